"""One writer per run folder: an advisory lock on the folder itself, held while a process writes the run.

``flock`` on the directory's own descriptor, not on a lock file: nothing extra lands in the run folder, nothing is
left behind, and the kernel drops the lock when the holder exits however it exits (kill -9 included). Two
``--resume`` of one run, or a ``squall score`` beside a running run, would otherwise append the same episodes or
scores twice.
"""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path

LOCKS_TABLE = Path("/proc/locks")


class RunLocked(Exception):
    """Another process holds the run folder's lock."""


class RunLock:
    """The writer's lock on one run folder; ``release`` (or the process's exit) gives it back."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._fd: int | None = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            st = os.fstat(self._fd)
            self.release()
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise
            holder = holder_pid(st.st_dev, st.st_ino)
            who = f"process {holder}" if holder is not None else "another process"
            raise RunLocked(f"{root} is being written by {who}; wait for it to finish or stop it") from None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)  # closing the only descriptor drops the flock

    def __del__(self) -> None:  # a store dropped without close (an error before the run began) frees its folder
        self.release()


def holder_pid(dev: int, ino: int, table: Path = LOCKS_TABLE) -> int | None:
    """The PID that holds a flock on (dev, ino), from Linux's lock table; None where there is no such table.

    Lines read ``1: FLOCK  ADVISORY  WRITE 4242 fd:01:1234567 0 EOF`` (major and minor in hex, inode in decimal)."""
    wanted = (os.major(dev), os.minor(dev), ino)
    try:
        lines = table.read_text(encoding="ascii", errors="replace").splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.split()
        if len(parts) < 6 or parts[1] != "FLOCK":
            continue
        try:
            major, minor, inode = parts[5].split(":")
            if (int(major, 16), int(minor, 16), int(inode)) == wanted:
                return int(parts[4])
        except ValueError:
            continue
    return None
