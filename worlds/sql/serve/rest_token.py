"""The token that guards a served world's gold (``GET /tasks``), and the file that hands it to the harness.

``squall serve`` makes a random token at start; ``/tasks`` answers only a request that carries it as
``Authorization: Bearer <token>``, so an agent under test that can make HTTP requests cannot read the gold calls
and answers. The harness (``squall run --world http://127.0.0.1:PORT``) finds the token in a file only the user
who started the server can read: ``$XDG_RUNTIME_DIR/squall/serve-PORT.token``, or under ``~/.cache/squall`` where
that variable is unset. That is the protection the world folder's own ``tasks.jsonl`` has: whoever can read one
can read the other. The server removes its file when it stops.
"""

from __future__ import annotations

import contextlib
import hmac
import os
import secrets
import stat
import tempfile
from pathlib import Path

BEARER = "Bearer "
_MAX_TOKEN_BYTES = 256


class TokenFileError(RuntimeError):
    """The token cannot be left for the harness (the message names the folder and why)."""


def new_token() -> str:
    return secrets.token_urlsafe(32)


def authorized(header: str | None, token: str) -> bool:
    """Whether an ``Authorization`` header carries ``token`` (a constant-time comparison)."""
    given = header[len(BEARER) :] if header is not None and header.startswith(BEARER) else ""
    return hmac.compare_digest(given.encode(), token.encode())


def token_dir() -> Path:
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    return (Path(runtime) if runtime else Path.home() / ".cache") / "squall"


def token_path(port: int) -> Path:
    return token_dir() / f"serve-{port}.token"


def write_token(port: int, token: str) -> Path:
    """Leave ``token`` for the harness: a file readable by this user only, in a folder only this user can enter.
    Raises TokenFileError when it cannot (the folder is not this user's own, or cannot be written)."""
    folder = token_dir()
    try:
        return _write(folder, token_path(port), token)
    except OSError as error:
        raise TokenFileError(f"{folder}: cannot leave the server's token there: {error.strerror or error}") from error


def _write(folder: Path, path: Path, token: str) -> Path:
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = folder.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise OSError("not a folder of this user's own")
    os.chmod(folder, 0o700)
    descriptor, tmp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")  # mode 0600
    try:
        with os.fdopen(descriptor, "w") as handle:
            handle.write(token + "\n")
        os.replace(tmp, path)  # write then rename: a harness never reads half a token
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def read_token(port: int) -> str | None:
    """The token a server on ``port`` left, or None when there is none (not served by this user)."""
    try:  # non-blocking and regular files only: a FIFO or device planted there must not hang the harness
        descriptor = os.open(token_path(port), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return None
        text = handle.read(_MAX_TOKEN_BYTES).decode("ascii", errors="replace").strip()
    return text or None


def remove_token(port: int, token: str) -> None:
    """Remove the server's token file, unless another server has since written its own there."""
    if read_token(port) == token:
        with contextlib.suppress(OSError):
            token_path(port).unlink()
