"""Run one model-written program in a child Python process, its tool calls answered by the harness.

The child (``child.py``, standard library only) limits its own address space, CPU time, file sizes and processes,
runs in a fresh temporary folder with an almost empty environment and no site-packages, refuses sockets, new
processes and files outside that folder through an audit hook, and, where ``unshare -n`` works here, lives in an
empty network namespace. Its tool stubs send ``{"call", "arguments"}`` lines on its stdout; each is handed to
``call`` (the episode runtime: traced, stressed, judged like a native call) and the result goes back on its stdin.
What the program prints (stdout and stderr, one stream) is kept up to ``output_chars``.

The wall-time limit counts the program's own time: the clock stops while the harness runs a tool call (a slow
world or a stressor's delay is not the program's).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from sim.agents.code.signatures import PythonTool

Outcome = Literal["ok", "exception", "timeout", "memory", "crashed"]
ToolCaller = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
"""(tool name, arguments) -> ``{"status", "content", "error_code"}``, the runtime's result as the child reads it."""

_CHILD = Path(__file__).with_name("child.py")
_MB = 1024 * 1024
_LINE_LIMIT = 8 * _MB  # one tool call's arguments, as a JSON line
_ENV = {"PYTHONHASHSEED": "0", "PYTHONIOENCODING": "utf-8", "LC_ALL": "C.UTF-8"}
"""The child's whole environment: no keys, no proxies, no PATH; a fixed hash seed so set order is reproducible."""


@dataclass(frozen=True)
class CodeLimits:
    """What one program may use."""

    timeout_s: float = 10.0
    """Wall-clock seconds of the program's own time (tool calls excluded); CPU time is capped at this, rounded up."""
    memory_mb: int = 512
    """Address-space limit (RLIMIT_AS) of the child process, MiB."""
    output_chars: int = 4000
    """Printed output kept for the model; the rest is counted and dropped."""
    network_namespace: bool = True
    """Run the child under ``unshare -n`` where that works here (root, or unprivileged user namespaces)."""


@dataclass
class ProgramRun:
    """What one program did."""

    outcome: Outcome
    output: str = ""
    """What it printed, cut to the limit, then the traceback or the reason it was stopped."""
    calls: int = 0
    refused: list[str] = field(default_factory=list)
    """Sandbox refusals (sockets, processes, files): the audit hook's events."""


@functools.cache
def _child_source() -> str:
    return _CHILD.read_text(encoding="utf-8")


@functools.cache
def _unshare_prefix() -> tuple[str, ...]:
    """``unshare -n`` (optionally mapping the user to root in a new user namespace) if it works here; else nothing."""
    exe = shutil.which("unshare")
    if exe is None:
        return ()
    for prefix in ((exe, "-n"), (exe, "-r", "-n")):
        try:
            done = subprocess.run([*prefix, "true"], capture_output=True, timeout=5, check=False)  # once per process
        except (OSError, subprocess.SubprocessError):
            continue
        if done.returncode == 0:
            return prefix
    return ()


def network_isolated() -> bool:
    """Whether children get an empty network namespace here (else only the audit hook stands between them and it)."""
    return bool(_unshare_prefix())


async def run_program(code: str, tools: Sequence[PythonTool], limits: CodeLimits, call: ToolCaller) -> ProgramRun:
    """Run ``code`` with ``tools`` as functions; the child is killed at the limits, on error or on cancellation."""
    prefix = await asyncio.to_thread(_unshare_prefix) if limits.network_namespace else ()
    workdir = await asyncio.to_thread(tempfile.mkdtemp, prefix="squall-code-")
    cpu_s = max(1, int(limits.timeout_s + 0.999))
    argv = [*prefix, sys.executable, "-s", "-S", "-P", "-B", "-c", _child_source()]
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv, str(limits.memory_mb * _MB), str(cpu_s),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            cwd=workdir, env=_ENV, start_new_session=True, limit=_LINE_LIMIT,
        )  # fmt: skip
    except BaseException:  # no child (EAGAIN, ENOMEM, cancelled): its folder goes now, not never
        await asyncio.to_thread(shutil.rmtree, workdir, True)
        raise
    printed = _Output(limits.output_chars)
    reader = asyncio.create_task(printed.drain(proc.stderr))
    run = ProgramRun("crashed")
    try:
        await _converse(proc, code, tools, limits, call, run)
    finally:
        _kill(proc)
        await proc.wait()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(reader, 2)
        reader.cancel()
        await asyncio.to_thread(shutil.rmtree, workdir, True)
    if run.outcome == "crashed":
        run.outcome = _crash_kind(proc.returncode)
    run.output = printed.text() + _stopped_note(run, limits, proc.returncode)
    return run


async def _converse(
    proc: asyncio.subprocess.Process,
    code: str,
    tools: Sequence[PythonTool],
    limits: CodeLimits,
    call: ToolCaller,
    run: ProgramRun,
) -> None:
    """Feed the program, answer its calls, until it says it is done, dies, or runs out of time."""
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(_line({"code": code, "tools": [t.wire() for t in tools]}))
    budget = limits.timeout_s
    while True:
        t0 = time.perf_counter()
        try:
            raw = await asyncio.wait_for(proc.stdout.readline(), max(budget, 0.0))
        except TimeoutError:
            run.outcome = "timeout"
            return
        except ValueError:  # a line over the limit: the program wrote garbage over the protocol
            run.outcome = "crashed"
            return
        budget -= time.perf_counter() - t0
        if not raw:
            return  # the child died without saying it was done
        try:
            message = json.loads(raw)
        except ValueError:
            continue  # not the stubs' line: a program writing to the protocol's descriptor is not followed
        if not isinstance(message, dict):
            continue
        if "done" in message:
            run.outcome = message["done"] if message["done"] in ("ok", "exception", "memory") else "crashed"
            run.refused = [str(r) for r in message.get("refused") or []][:20]
            return
        arguments = message.get("arguments")
        run.calls += 1
        answer = await call(str(message.get("call")), arguments if isinstance(arguments, dict) else {})
        proc.stdin.write(_line(answer))
        with contextlib.suppress(ConnectionError):
            await proc.stdin.drain()


def _line(value: Any) -> bytes:
    return (json.dumps(value, ensure_ascii=False, default=str) + "\n").encode()


def _kill(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # its own session: anything it started goes too


def _crash_kind(returncode: int | None) -> Outcome:
    """A child that died without reporting: SIGXCPU is its CPU limit (the wall clock's twin); anything else a crash."""
    return "timeout" if returncode == -signal.SIGXCPU else "crashed"


def _stopped_note(run: ProgramRun, limits: CodeLimits, returncode: int | None) -> str:
    if run.outcome == "timeout":
        return f"\n[stopped: the program ran past its time limit of {limits.timeout_s:g} s]"
    if run.outcome == "memory":
        return f"\n[stopped: the program went over its memory limit of {limits.memory_mb} MB]"
    if run.outcome == "crashed":
        return f"\n[stopped: the program's process ended abnormally (exit status {returncode})]"
    return ""


class _Output:
    """The child's printed output: the first ``limit`` characters kept, the rest counted (and read, so the child
    never blocks on a full pipe)."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._kept: list[bytes] = []
        self._size = 0
        self._dropped = 0

    async def drain(self, stream: asyncio.StreamReader | None) -> None:
        if stream is None:
            return
        while chunk := await stream.read(65536):
            room = self._limit * 4 - self._size  # bytes: a character is at most 4
            if room > 0:
                self._kept.append(chunk[:room])
                self._size += min(len(chunk), room)
            self._dropped += max(0, len(chunk) - max(room, 0))

    def text(self) -> str:
        text = b"".join(self._kept).decode("utf-8", errors="replace")
        cut = len(text) - self._limit
        if cut > 0 or self._dropped:
            text = text[: self._limit] + f"\n[output cut at {self._limit} characters]"
        return text.rstrip("\n")
