"""Reading a file a user named: only a regular file, only up to a size limit, only UTF-8 text.

A path from the command line or a config may name a FIFO (``open`` blocks until a writer comes: forever), a device
(``/dev/zero`` never ends), a directory, or a file far larger than any input squall needs. Every read of such a
path goes through here, so each of those is one error line naming the file instead of a hang or an exhausted
machine.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

MiB = 1 << 20
DATA_LIMIT = 256 * MiB
"""Task files, question sets, generated functions, paraphrase and label tables: data that grows with a benchmark."""
SETTINGS_LIMIT = 4 * MiB
"""Personas, run configs, mock-server configs, ``world.toml``: hand-written settings, a few KB in practice."""


class InputFileError(ValueError):
    """A file that cannot be used as input; the message is one line: ``PATH: reason``."""


def _not_regular(mode: int) -> str | None:
    """Why a file of this mode cannot be read as input, or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "is a directory, not a file"
    if stat.S_ISFIFO(mode):
        return "is a FIFO (named pipe), not a regular file: reading it could wait forever"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "is a device, not a regular file: reading it may never end"
    if stat.S_ISSOCK(mode):
        return "is a socket, not a regular file"
    return "is not a regular file"


def _limit(limit: int) -> str:
    return f"{limit // MiB} MiB" if limit % MiB == 0 else f"{limit:,}-byte"


def read_bytes(path: Path | str, limit: int) -> bytes:
    """The whole file, at most ``limit`` bytes. Raises InputFileError for a missing or unreadable path, anything
    but a regular file, or a larger file."""
    path = Path(path)
    try:
        mode = os.stat(path).st_mode  # before opening: opening a FIFO for reading blocks until a writer comes
    except OSError as error:
        raise InputFileError(f"{path}: cannot read: {error.strerror or error}") from error
    if (why := _not_regular(mode)) is not None:
        raise InputFileError(f"{path}: {why}")
    try:
        # O_NONBLOCK: the path may have been swapped for a FIFO since the stat; the fstat below catches that.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        raise InputFileError(f"{path}: cannot read: {error.strerror or error}") from error
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(fd)
        if (why := _not_regular(info.st_mode)) is not None:
            raise InputFileError(f"{path}: {why}")
        if info.st_size > limit:
            raise InputFileError(f"{path}: {info.st_size:,} bytes, over the {_limit(limit)} limit for this file")
        try:
            data = file.read(limit + 1)  # never more, whatever the size said: a file may grow while read
        except OSError as error:
            raise InputFileError(f"{path}: cannot read: {error.strerror or error}") from error
    if len(data) > limit:
        raise InputFileError(f"{path}: over the {_limit(limit)} limit for this file")
    return data


def decode_utf8(path: Path | str, data: bytes) -> str:
    """``data`` as text; an error names the file, the byte offset and its line."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InputFileError(f"{path}: not UTF-8 text (byte {error.start}, line {line}: {error.reason})") from None


def read_text(path: Path | str, limit: int) -> str:
    """The whole file as UTF-8 text, at most ``limit`` bytes (see ``read_bytes``)."""
    return decode_utf8(path, read_bytes(path, limit))
