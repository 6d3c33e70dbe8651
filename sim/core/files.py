"""Files: names that come from data, and writing a whole file (or folder) so that readers see the old one or the
new one, never a torn one, even across a crash."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
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


@contextmanager
def staged_folder(out: Path, replace: bool = False) -> Iterator[Path]:
    """A folder to fill, made beside ``out`` and renamed into place when the block ends; on any error it is removed
    and ``out`` is left as it was. Refuses an existing ``out`` unless ``replace`` (then the old one goes only once
    the new one is in place)."""
    out = Path(out)
    if out.exists() and not replace:
        raise FileExistsError(f"{out}: already exists (remove it, or pass --force to replace it)")
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp"))
    try:
        yield staging
        staging.chmod(0o755)
        old = None
        if out.exists():
            old = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.", suffix=".old"))
            out.rename(old / "world")
        staging.rename(out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
