"""``--agent`` strings of the outside kinds, checked before the run starts: a clear error for a malformed one.

``http:URL`` (a bare ``http://…`` or ``https://…`` is the same), ``python:module:function`` (an async callable the
module defines, importable from here: the current folder is on the import path, as for ``python -m``),
``command:PROG ARGS`` or ``command:"PROG ARGS"`` (split as a shell would, without a shell).
"""

from __future__ import annotations

import importlib
import inspect
import os
import shlex
import shutil
import sys
from typing import Literal, cast
from urllib.parse import urlsplit

from sim.agents.outside.transports import OutsideCallable

OutsideKind = Literal["http", "python", "command"]
OUTSIDE_KINDS: tuple[OutsideKind, ...] = ("http", "python", "command")


def split_outside(raw: str) -> tuple[OutsideKind, str] | None:
    """``(kind, target)`` for an outside agent's spec; None for any other spec. Raises ValueError when malformed."""
    head, sep, rest = raw.partition(":")
    if head in ("http", "https") and rest.startswith("//"):  # a bare URL
        return "http", check_target("http", raw)
    if not sep or head not in OUTSIDE_KINDS:
        return None
    kind = cast(OutsideKind, head)
    return kind, check_target(kind, rest.strip())


def check_target(kind: OutsideKind, target: str) -> str:
    """The target, checked as far as it can be without calling it; raises ValueError saying what is wrong."""
    if not target:
        what = {"http": "a URL", "python": "module:function", "command": "a program"}[kind]
        raise ValueError(f"agent spec '{kind}:': missing {what} after '{kind}:'")
    if kind == "http":
        parts = urlsplit(target)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"agent spec 'http:{target}': not an http(s) URL (e.g. http:http://127.0.0.1:8000/agent)")
    elif kind == "python":
        load_callable(target)
    else:
        program = command_argv(target)[0]
        if shutil.which(program) is None:
            raise ValueError(f"agent spec 'command:{target}': program {program!r} not found")
    return target


def command_argv(target: str) -> list[str]:
    try:
        argv = shlex.split(target)
    except ValueError as exc:
        raise ValueError(f"agent spec 'command:{target}': {exc}") from None
    if not argv:
        raise ValueError("agent spec 'command:': missing a program after 'command:'")
    if len(argv) == 1 and any(c.isspace() for c in argv[0]) and shutil.which(argv[0]) is None:
        # command:"PROG ARGS" quoted whole (the quotes survive inside --agent '...'): the words inside the quotes
        return command_argv(argv[0])
    return argv


def load_callable(target: str) -> OutsideCallable:
    """The async callable ``module:function`` names (``function`` may be dotted: ``module:Class.method``)."""
    module_name, sep, attribute = target.rpartition(":")
    if not sep or not module_name or not attribute:
        raise ValueError(f"agent spec 'python:{target}': expected python:module:function")
    here = os.getcwd()
    if here not in sys.path:  # as for `python -m`: a module in the current folder imports
        sys.path.insert(0, here)
    try:
        found: object = importlib.import_module(module_name)
    except Exception as exc:  # an ImportError, or whatever the module raised while importing
        raise ValueError(f"agent spec 'python:{target}': module {module_name!r} does not import: {exc}") from None
    for part in attribute.split("."):
        if not hasattr(found, part):
            raise ValueError(f"agent spec 'python:{target}': {module_name!r} has no {attribute!r}")
        found = getattr(found, part)
    call = getattr(found, "__call__", None)  # noqa: B004 - an object with an async __call__ qualifies too
    if not (inspect.iscoroutinefunction(found) or inspect.iscoroutinefunction(call)):
        raise ValueError(
            f"agent spec 'python:{target}': {attribute!r} is not an async callable (define it with async def)"
        )
    return cast(OutsideCallable, found)
