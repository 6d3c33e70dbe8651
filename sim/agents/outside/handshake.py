"""The handshake before a run: does the ``http:`` or ``command:`` agent answer ``squall-agent/1``'s hello
(``sim.agents.outside.protocol``)? One request, sent the way turns will be, with a short timeout, so an agent that is
not there fails the run at once, with one line, instead of a run of episodes it never answered.

The standard library's HTTP client and ``subprocess`` only: no heavy import delays the answer. A ``python:`` agent
is checked where its spec is read (``sim.agents.outside.spec``: it imports and takes one argument).
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import urllib.error
import urllib.request

from sim.agents.outside.errors import OutsideBadReply
from sim.agents.outside.protocol import AgentHello, HelloReply
from sim.agents.outside.replies import MAX_REPLY_BYTES, hello_from_bytes
from sim.agents.outside.spec import OutsideKind, command_argv

HTTP_HELLO_TIMEOUT_S = 3.0
"""Connecting and answering: nothing listening is refused at once; a host that drops packets is given up on after
this (the run's preflight answers within 5 s)."""
COMMAND_HELLO_TIMEOUT_S = 15.0
"""A program's answer to the hello: it may start an interpreter and import a framework first."""


class HandshakeFailed(Exception):
    """The agent did not answer the hello as the protocol asks; the message is one line, naming the agent."""


def handshake(kind: OutsideKind, target: str) -> str | None:
    """Send the hello; returns the preflight's line, None for a ``python:`` agent (no hello). Raises HandshakeFailed."""
    if kind == "http":
        return _answered(target, _post_hello(target))
    if kind == "command":
        argv = command_argv(target)
        return _answered(f"command {shlex.join(argv)}", _run_hello(argv), text_allowed=True)
    return None


def _answered(where: str, body: bytes, text_allowed: bool = False) -> str:
    try:
        answer = hello_from_bytes(body, where, text_allowed)
    except OutsideBadReply as exc:
        raise HandshakeFailed(f"{exc} (its answer to the squall-agent/1 hello)") from None
    named = f" (agent {answer.agent!r})" if isinstance(answer, HelloReply) and answer.agent else ""
    return f"preflight: {where} answers the squall-agent/1 hello{named}"


def _post_hello(url: str) -> bytes:
    """The body of a 2xx answer to the hello POSTed to ``url``."""
    data = AgentHello().model_dump_json().encode()
    request = urllib.request.Request(url, data, {"Content-Type": "application/json"}, method="POST")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # as the run's client: no proxy from env
    try:
        with opener.open(request, timeout=HTTP_HELLO_TIMEOUT_S) as response:
            return bytes(response.read(MAX_REPLY_BYTES + 1))
    except urllib.error.HTTPError as exc:
        snippet = " ".join(exc.read(300).decode("utf-8", "replace").split())
        raise HandshakeFailed(
            f"{url}: HTTP {exc.code} to the squall-agent/1 hello ({snippet or exc.reason}); an agent answers it with "
            "a 2xx reply"
        ) from None
    except TimeoutError:
        raise HandshakeFailed(f"{url}: does not answer (no answer within {HTTP_HELLO_TIMEOUT_S:g} s)") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError):
            raise HandshakeFailed(f"{url}: does not answer (no answer within {HTTP_HELLO_TIMEOUT_S:g} s)") from None
        raise HandshakeFailed(f"{url}: does not answer ({getattr(reason, 'strerror', None) or reason})") from None


def _run_hello(argv: list[str]) -> bytes:
    """The stdout of the program given the hello on stdin, once it exited 0. It runs in a process group of its own,
    killed whole when it does not answer in time (as a turn's program is)."""
    where = f"command {shlex.join(argv)}"
    try:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        raise HandshakeFailed(f"{where}: cannot start ({exc.strerror or exc})") from None
    try:
        out, err = process.communicate(AgentHello().model_dump_json().encode(), timeout=COMMAND_HELLO_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):  # already gone
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise HandshakeFailed(
            f"{where}: no answer to the squall-agent/1 hello within {COMMAND_HELLO_TIMEOUT_S:g} s"
        ) from None
    if process.returncode != 0:
        lines = err[-2000:].decode("utf-8", "replace").strip().splitlines()
        tail = lines[-1].strip()[:300] if lines else ""  # a traceback's last line says what went wrong
        raise HandshakeFailed(
            f"{where}: exited with status {process.returncode} on the squall-agent/1 hello"
            + (f": {tail}" if tail else "")
        )
    return out
