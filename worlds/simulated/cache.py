"""The simulated responses of one world: plain JSON files a team can commit, one per operation.

``cache/<operation>.json`` holds ``{"operation": NAME, "entries": [...]}``; an entry is the call's canonical
arguments, the per-episode state it was asked in (``""``: none yet), the response and the model that wrote it.
Entries are sorted by state and canonical arguments, so a file's diff shows what was added and nothing else; a
response keeps the key order the model wrote, which is what the episode that asked saw.

Safe when many episodes write at once: a write takes an exclusive lock on ``cache/.lock`` (``flock``, so other
processes of the same run wait too), re-reads the operation's file, adds the entry unless another writer got there
first (the first answer wins, and every episode is then served that one), writes a temporary file and renames it
over the old one (atomic: a reader sees the old file or the new one, never half of one).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from worlds.simulated.canonical import canonical_json, normalised

_LOCK_FILE = ".lock"


class CacheFileError(ValueError):
    """A cache file that is not what this module writes; names the file and what is wrong."""


@dataclass(frozen=True)
class CachedResponse:
    arguments: Any
    state: str
    response: Any
    model: str


FAILED_KEY = "simulation_failed"
"""A cached response ``{"simulation_failed": why}``: the model gave no usable answer for this call. Kept, so a
re-run replays the failure without a request; ``squall worlds warm`` asks again."""


def is_failure(response: Any) -> bool:
    return isinstance(response, dict) and set(response) == {FAILED_KEY}


def entry_key(arguments: Any, state: str) -> str:
    return f"{state}\x00{canonical_json(arguments)}"


class ResponseStore:
    """Every cached response of one world's folder, read once and kept in memory; thread-safe."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._entries: dict[str, dict[str, CachedResponse]] = {}
        self._lock = threading.Lock()
        if directory.is_dir():
            for path in sorted(directory.glob("*.json")):
                self._entries[path.stem] = _read(path)
        # What the simulator shows as earlier answers: the cache as opened, so a prompt never depends on which
        # episode of the run happened to write first.
        self._opened = {operation: list(entries.values()) for operation, entries in self._entries.items()}

    def get(self, operation: str, arguments: Any, state: str) -> CachedResponse | None:
        return self._entries.get(operation, {}).get(entry_key(arguments, state))

    def count(self, operation: str | None = None) -> int:
        if operation is not None:
            return len(self._entries.get(operation, {}))
        return sum(len(entries) for entries in self._entries.values())

    def examples(self, operation: str) -> list[CachedResponse]:
        """The operation's successful exchanges as the cache was when opened, in file order."""
        return [entry for entry in self._opened.get(operation, []) if not is_failure(entry.response)]

    def put(self, operation: str, entry: CachedResponse) -> CachedResponse:
        """Store ``entry`` unless one is there already (a failure gives way to a success); returns the entry that
        is there now (the first writer's)."""
        key = entry_key(entry.arguments, entry.state)
        with self._lock, self._folder_lock():
            path = self.directory / f"{operation}.json"
            entries = _read(path) if path.exists() else {}  # another process may have written since we loaded
            kept = entries.get(key)
            if kept is None or (is_failure(kept.response) and not is_failure(entry.response)):
                entries[key] = kept = entry  # a success replaces a failure asked again (worlds warm)
                _write(path, operation, entries)
            self._entries[operation] = entries
            return kept

    @contextlib.contextmanager
    def _folder_lock(self) -> Iterator[None]:
        self.directory.mkdir(parents=True, exist_ok=True)
        ignore = self.directory / ".gitignore"
        if not ignore.exists():  # the lock and stray temporary files are never committed
            ignore.write_text(f"{_LOCK_FILE}\n.*.tmp\n", encoding="utf-8")
        with open(self.directory / _LOCK_FILE, "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


def _read(path: Path) -> dict[str, CachedResponse]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CacheFileError(f"{path}: not a readable JSON cache file: {error}") from error
    if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
        raise CacheFileError(f"{path}: expected an object with an 'entries' list")
    entries: dict[str, CachedResponse] = {}
    for i, raw in enumerate(data["entries"]):
        if not isinstance(raw, dict) or not {"arguments", "response"} <= set(raw):
            raise CacheFileError(f"{path}: entries.{i}: needs 'arguments' and 'response'")
        state = raw.get("state", "")
        if not isinstance(state, str) or not isinstance(raw["arguments"], dict):
            raise CacheFileError(f"{path}: entries.{i}: 'arguments' must be an object and 'state' a string")
        entry = CachedResponse(normalised(raw["arguments"]), state, raw["response"], str(raw.get("model", "")))
        entries[entry_key(entry.arguments, state)] = entry
    return entries


def _write(path: Path, operation: str, entries: dict[str, CachedResponse]) -> None:
    # Arguments with sorted keys; a response as the model wrote it (read back, it is what the first episode saw).
    rows = [
        {
            "arguments": json.loads(canonical_json(e.arguments)),
            "state": e.state,
            "response": e.response,
            "model": e.model,
        }
        for _, e in sorted(entries.items())
    ]
    text = json.dumps({"operation": operation, "entries": rows}, indent=1, ensure_ascii=False)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text + "\n")
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
