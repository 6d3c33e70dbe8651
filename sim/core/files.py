"""Files: names that come from data, and writing a whole file so that readers see the old one or the new one,
never a torn one, even across a crash."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
"""An identifier from data that becomes a file or folder name (run ids, database ids): one path segment, no
separator, never ``.`` or ``..``, never hidden. A value from a shared dataset must not pick where squall writes."""


def is_file_name(value: object) -> bool:
    return isinstance(value, str) and FILE_NAME.fullmatch(value) is not None


def write_text_atomic(path: Path, text: str) -> None:
    """Write to a private temporary file beside ``path``, fsync it, then rename it into place (atomic on POSIX).

    The temporary name is unique, so two writers never share one; on any error it is removed. The file ends up
    readable by all (``mkstemp`` makes it private), as data files and run outputs are meant to be read."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
