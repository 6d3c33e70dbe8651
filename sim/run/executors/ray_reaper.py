"""Reaps a local Ray cluster's processes once the process that started it is gone, however it went (kill -9 too).

Ray's own fate-sharing is slow and partial after a SIGKILL of the driver: gcs_server and raylet die with it, but the
dashboard and runtime-env agents first try to report to the dead GCS and linger for a minute or more. So the driver
starts this script (a separate session: a Ctrl-C on the terminal does not reach it) with a pipe on its stdin and
marks every process of its cluster by an environment variable that they all inherit. End of file on stdin means the
driver has exited; the script then kills each process carrying the mark and exits.

Standard library only, and run as a file (``python ray_reaper.py MARK``), not as a module: it must start in
milliseconds and not import squall or Ray. Linux only (/proc); elsewhere it reaps nothing.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from contextlib import suppress
from pathlib import Path

MARK_VARIABLE = "SQUALL_RAY_CLUSTER"


def marked(mark: str, proc: Path = Path("/proc")) -> list[int]:
    """Pids of this user's processes whose environment has ``MARK_VARIABLE=mark`` (never this process)."""
    needle = f"{MARK_VARIABLE}={mark}".encode()
    found = []
    for entry in proc.glob("[0-9]*"):
        pid = int(entry.name)
        if pid == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:  # gone, or another user's
            continue
        if needle in environ.split(b"\0"):
            found.append(pid)
    return found


def reap(mark: str, rounds: int = 20) -> int:
    """SIGKILL every marked process, again until none is left (a raylet may spawn one mid-sweep); how many.
    A killed process is no longer found: a zombie's environment reads empty."""
    killed: set[int] = set()
    for _ in range(rounds):
        pids = marked(mark)
        if not pids:
            break
        for pid in pids:
            with suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        killed.update(pids)
        time.sleep(0.05)
    return len(killed)


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not argv[1]:
        print(f"usage: {argv[0]} MARK", file=sys.stderr)
        return 2
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.stdin.buffer.read()  # returns at end of file: the driver closed the pipe, or died
    reap(argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
