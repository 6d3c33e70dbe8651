"""The sandboxed child's whole program: run as ``python -s -S -P -B -c SOURCE MEMORY_BYTES CPU_S`` by ``sandbox``.

Standard library only, never imported by squall (``sandbox`` reads this file's text): the child must not load any
of squall's code. It limits itself (address space, CPU, file size, open files, processes), moves the protocol off
fds 0/1 (what the program prints goes to fd 2, which the harness reads and cuts), reads one setup line (the
program and its tools), installs an audit hook that refuses sockets, new processes, ctypes, raising limits and file
access outside its working folder and the standard library, then runs the program. Each tool stub writes one JSON
line ``{"call": NAME, "arguments": {...}}`` and blocks until the harness answers with the runtime's result.
An audit hook is a tripwire, not a wall (CPython says so): the process limits and the empty network namespace
(when ``unshare`` works) are what hold if it is bypassed.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import traceback

TYPE_CHECKING = False  # typing is not imported at run time: the child starts faster without it
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_MB = 1024 * 1024
_REFUSED_PREFIXES = ("socket.", "subprocess.", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "ctypes.")
_REFUSED_EVENTS = frozenset(
    {"os.system", "os.forkpty", "os.kill", "os.killpg", "pty.spawn", "resource.setrlimit", "resource.prlimit",
     "webbrowser.open", "os.symlink", "os.link"}
)  # fmt: skip
_REFUSED_MODULES = frozenset(
    {"socket", "_socket", "ssl", "_ssl", "subprocess", "_posixsubprocess", "ctypes", "_ctypes", "multiprocessing",
     "_multiprocessing", "select", "selectors", "mmap", "fcntl", "pty", "urllib.request", "http.client"}
)  # fmt: skip
_PATH_EVENTS = frozenset(
    {"os.listdir", "os.scandir", "os.chdir", "os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.truncate",
     "os.chmod", "os.chown", "os.utime", "shutil.rmtree", "shutil.copyfile"}
)  # fmt: skip


def _limit(memory_bytes: int, cpu_s: int) -> None:
    """Hard limits equal to soft ones, so the program cannot raise them (the hook refuses setrlimit too); the CPU
    limit's hard one a second later, so the kernel's SIGXCPU (read as a timeout) comes before its SIGKILL."""
    for which, value in (
        (resource.RLIMIT_AS, memory_bytes),
        (resource.RLIMIT_FSIZE, 16 * _MB),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_NOFILE, 64),
        (resource.RLIMIT_NPROC, 0),  # no new processes (the kernel ignores this one for root)
    ):
        resource.setrlimit(which, (value, value))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))


class ToolError(Exception):
    """A tool call that did not succeed: ``status`` (rate_limited, not_found, ...), ``code`` and ``content`` (the
    payload the tool returned, usually ``{"error": message, "code": ...}``)."""

    def __init__(self, name: str, status: str, code: str | None, content: Any) -> None:
        message = content.get("error", content) if isinstance(content, dict) else content
        super().__init__(f"{name}: {status}{f' ({code})' if code else ''}: {message}")
        self.tool, self.status, self.code, self.content = name, status, code, content


def _guard(  # every name the hook calls is bound here, so a program rebinding one changes nothing
    workdir: str,
    stdlib_roots: tuple[str, ...],
    refused: list[str],
    refused_events: frozenset[str] = _REFUSED_EVENTS,
    refused_prefixes: tuple[str, ...] = _REFUSED_PREFIXES,
    refused_modules: frozenset[str] = _REFUSED_MODULES,
    path_events: frozenset[str] = _PATH_EVENTS,
    realpath: Callable[[str], str] = os.path.realpath,
    fsdecode: Callable[[bytes], str] = os.fsdecode,
    fspath: Callable[[Any], Any] = os.fspath,
    sep: str = os.sep,
    writing_flags: int = os.O_WRONLY | os.O_RDWR | os.O_CREAT,
    path_types: tuple[type, ...] = (str, bytes, os.PathLike),
) -> Callable[[str, tuple[Any, ...]], None]:
    """The audit hook: what a program may not do. ``refused`` collects the events it stopped (reported back).
    Constants and callables are the hook's own (defaults, read once), not the module's or builtins' at call time."""
    allowed_reads = (workdir, *stdlib_roots)
    _isinstance, _any, _bool, _str, _bytes, _int = isinstance, any, bool, str, bytes, int

    def inside(path: Any, roots: tuple[str, ...]) -> bool:
        if _isinstance(path, _int):
            return True  # an fd the process already holds
        if _isinstance(path, _bytes):
            path = fsdecode(path)
        real = realpath(fspath(path))
        return "site-packages" not in real and _any(real == r or real.startswith(r + sep) for r in roots)

    def hook(event: str, args: tuple[Any, ...]) -> None:
        what: str | None = None
        if event in refused_events or event.startswith(refused_prefixes):
            what = event
        elif event == "import" and (args[0] in refused_modules or args[0].split(".")[0] in refused_modules):
            what = f"import {args[0]}"
        elif event == "open" and args[0] is not None:
            mode, flags = args[1], args[2]
            writing = (_isinstance(mode, _str) and _any(c in mode for c in "wax+")) or (
                _isinstance(flags, _int) and _bool(flags & writing_flags)
            )
            if not inside(args[0], (workdir,) if writing else allowed_reads):
                what = f"open {args[0]!r}"
        elif (
            event in path_events
            and args
            and _isinstance(args[0], path_types)
            and not inside(args[0], allowed_reads if event in ("os.listdir", "os.scandir") else (workdir,))
        ):
            what = f"{event} {args[0]!r}"
        if what is not None:
            refused.append(what)
            raise PermissionError(f"sandbox: {what} is not allowed (no network, processes or files outside the cwd)")

    return hook


def main() -> None:
    memory_bytes, cpu_s = int(sys.argv[1]), int(sys.argv[2])
    _limit(memory_bytes, cpu_s)
    proto_in = os.fdopen(os.dup(0), "r", encoding="utf-8")
    proto_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)  # raw writes to fd 1 join the printed output, never the protocol
    # The process's own streams, open for its life: not a with-block.
    sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", encoding="utf-8", errors="replace", buffering=1, closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", encoding="utf-8", errors="replace", buffering=1, closefd=False)  # noqa: SIM115
    setup = json.loads(proto_in.readline())
    workdir = os.path.realpath(os.getcwd())
    stdlib = os.path.realpath(os.path.dirname(os.__file__))
    refused: list[str] = []

    def call(name: str, arguments: dict[str, Any]) -> Any:
        try:
            line = json.dumps({"call": name, "arguments": arguments})
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name}: arguments must be JSON values ({exc})") from None
        proto_out.write(line + "\n")
        proto_out.flush()
        answer = proto_in.readline()
        if not answer:
            os._exit(3)  # the harness is gone
        result = json.loads(answer)
        if result["status"] != "success":
            raise ToolError(name, result["status"], result.get("error_code"), result.get("content"))
        return result.get("content")

    namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": __builtins__, "ToolError": ToolError}
    for tool in setup["tools"]:
        namespace[tool["py"]] = _stub(tool["name"], tool["py"], tool["params"], call)
    outcome = "ok"
    sys.addaudithook(_guard(workdir, (stdlib, os.path.realpath(sys.base_prefix)), refused))
    try:
        exec(compile(setup["code"], "<program>", "exec"), namespace)
    except SystemExit:
        pass
    except MemoryError:
        outcome = "memory"
        print("MemoryError: the program ran out of memory", file=sys.stderr)
    except BaseException as exc:
        outcome = "exception"
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == "<program>"]
        text = "".join(traceback.format_list(frames)) + "".join(traceback.format_exception_only(type(exc), exc))
        print("Traceback (most recent call last):\n" + text.rstrip(), file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    proto_out.write(json.dumps({"done": outcome, "refused": refused}) + "\n")
    proto_out.flush()


def _stub(name: str, py_name: str, params: list[str], call: Callable[[str, dict[str, Any]], Any]) -> Any:
    """The tool as a Python function: positional arguments in the order its signature shows, any keywords."""

    def tool(*args: Any, **kwargs: Any) -> Any:
        if len(args) > len(params):
            raise TypeError(f"{py_name}() takes at most {len(params)} positional arguments ({len(args)} given)")
        arguments = dict(zip(params, args, strict=False))  # fewer arguments than parameters
        for key in kwargs:
            if key in arguments:
                raise TypeError(f"{py_name}() got multiple values for argument {key!r}")
        arguments.update(kwargs)
        return call(name, arguments)

    tool.__name__ = tool.__qualname__ = py_name
    return tool


if __name__ == "__main__":  # run by -c in the child; never on import
    main()
