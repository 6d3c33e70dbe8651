"""The response cache: model answers on disk, so a re-run with the same seed makes no endpoint requests.

One JSON file per entry, ``<directory>/<2 hex>/<key>.json`` (the fan-out keeps folders small at 100k
entries), holding the request's ``cache_key()`` and the ``ModelResponse``. Every role shares it: the key
leaves the role out.

Crash safety: an entry is written to a unique temp file in its folder and renamed over its name
(``os.replace`` is atomic), so a reader in any process sees a whole entry or none, whatever concurrent
writers do; a kill -9 leaves at worst a ``.<key>.<random>.tmp`` file, which is never read and is swept
once old. No fsync: an OS crash may lose the newest entries, never tear one. A file that does not parse,
does not validate or holds another key is a miss, counted as corrupt (and removed in read-write mode).

Event loop: reads are direct, since a page-cached read of a small file costs less than handing it to a
thread; writes go through a bounded queue to one writer task that hands them to a thread in batches.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from sim.core.model_io import ModelRequest, ModelResponse
from sim.core.tools import Frozen

CacheMode = Literal["read-write", "read-only", "off"]
CACHE_MODES: tuple[CacheMode, ...] = ("read-write", "read-only", "off")

_BATCH = 256  # writes per thread hand-off: amortises the hop, keeps one batch's latency small
_TMP_SUFFIX = ".tmp"


class _Entry(Frozen):
    """What one cache file holds. The key is checked on read: a file under the wrong name is a miss."""

    key: str
    response: ModelResponse


@dataclass
class CacheStats:
    """Counters since the cache was opened (this process only)."""

    hits: int = 0
    misses: int = 0
    writes: int = 0
    corrupt: int = 0
    """Entries that did not parse, did not validate or held another key (read as misses)."""
    errors: int = 0
    """I/O errors other than a missing entry: the read counted as a miss, or the write was lost."""


@dataclass(frozen=True, slots=True)
class _Write:
    key: str
    response: ModelResponse


@dataclass(frozen=True, slots=True)
class _Remove:
    key: str
    inode: int
    """Only the file that was read as corrupt goes: another process may have replaced it since."""


class ResponseCache:
    """One run's response cache (several runs and processes may share its directory)."""

    def __init__(
        self,
        directory: Path,
        mode: CacheMode = "read-write",
        *,
        max_pending: int = 1024,
        temp_max_age_s: float = 3600.0,
    ) -> None:
        if mode not in CACHE_MODES:
            raise ValueError(f"cache mode must be one of {', '.join(CACHE_MODES)}, not {mode!r}")
        self.directory = Path(directory)
        self._root = os.fspath(directory)  # str paths: pathlib's joins cost ~3 us per lookup
        self.mode: CacheMode = mode
        self.stats = CacheStats()
        self._max_pending = max_pending
        self._temp_max_age_s = temp_max_age_s
        self._swept = False
        # Written entries still in the writer's queue: served from memory, so a get right after a put hits.
        self._pending: dict[str, ModelResponse] = {}
        # id(request) -> (weak ref, key) for requests that missed: their put need not hash them again (cache_key
        # costs ~70 us for an 8 kB request and grows with the conversation). The weak ref's callback drops the
        # entry when the request dies, so an id is never reused while it is here.
        self._keys: dict[int, tuple[weakref.ref[ModelRequest], str]] = {}
        self._queue: asyncio.Queue[_Write | _Remove] | None = None
        self._writer: asyncio.Task[None] | None = None
        self._closed = False

    def path(self, key: str) -> Path:
        """Where the entry for ``key`` lives."""
        return Path(self._file(key))

    def _file(self, key: str) -> str:
        return f"{self._root}/{key[:2]}/{key}.json"

    async def get(self, request: ModelRequest) -> ModelResponse | None:
        """The cached response (with ``cached=True``), or None. Never raises for a bad or unreadable entry."""
        if self.mode == "off":
            return None
        key = request.cache_key()
        response = self._pending.get(key)
        if response is None:
            response = self._read(key)
        if response is None:
            self.stats.misses += 1
            if self.mode == "read-write":
                self._remember_key(request, key)
            return None
        self.stats.hits += 1
        return response.model_copy(update={"cached": True})

    async def put(self, request: ModelRequest, response: ModelResponse) -> None:
        """Store a response (read-write mode only). Returns once queued; waits only while the queue is full.
        A response that came from the cache (``cached=True``) is already stored and is not written again."""
        if self.mode != "read-write" or response.cached:
            return
        if self._closed:
            raise RuntimeError("ResponseCache.put after aclose()")
        key = self._take_key(request)
        await self._writer_queue().put(_Write(key, response))
        self._pending[key] = response  # after the put: a put cancelled while waiting leaves nothing behind

    async def aclose(self) -> None:
        """Write every queued entry, then stop the writer. Gets still work afterwards; puts raise."""
        self._closed = True
        if self._queue is not None and self._writer is not None:
            await self._queue.join()
            self._writer.cancel()
            await asyncio.gather(self._writer, return_exceptions=True)
            self._writer = None

    async def __aenter__(self) -> ResponseCache:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def sweep(self, older_than_s: float | None = None) -> int:
        """Remove temp files left by killed writers (older than ``older_than_s``, default ``temp_max_age_s``:
        younger ones may belong to a live writer, whose entry would then be lost). Returns how many went."""
        if self.mode != "read-write":
            return 0
        age = self._temp_max_age_s if older_than_s is None else older_than_s
        return await asyncio.to_thread(self._sweep, age)

    # --- reads (on the loop: a small page-cached file costs less than the thread hop)

    def _read(self, key: str) -> ModelResponse | None:
        try:
            with open(self._file(key), "rb") as f:
                try:
                    entry = _Entry.model_validate_json(f.read())
                    if entry.key == key:
                        return entry.response
                except ValidationError:
                    pass
                inode = os.fstat(f.fileno()).st_ino
        except FileNotFoundError:
            return None
        except OSError:
            self.stats.errors += 1
            return None
        self.stats.corrupt += 1
        if self.mode == "read-write" and not self._closed:
            with contextlib.suppress(asyncio.QueueFull):  # if full, the next read of it tries again
                self._writer_queue().put_nowait(_Remove(key, inode))
        return None

    def _remember_key(self, request: ModelRequest, key: str) -> None:
        rid = id(request)

        def forget(ref: weakref.ref[ModelRequest]) -> None:
            if self._keys.get(rid, (None, ""))[0] is ref:
                del self._keys[rid]

        self._keys[rid] = (weakref.ref(request, forget), key)

    def _take_key(self, request: ModelRequest) -> str:
        found = self._keys.pop(id(request), None)
        if found is not None and found[0]() is request:
            return found[1]
        return request.cache_key()

    # --- writes (one writer task; file work in a thread)

    def _writer_queue(self) -> asyncio.Queue[_Write | _Remove]:
        if self._queue is None:
            self._queue = asyncio.Queue(self._max_pending)
            self._writer = asyncio.create_task(self._write_loop(self._queue), name="response-cache-writer")
        return self._queue

    async def _write_loop(self, queue: asyncio.Queue[_Write | _Remove]) -> None:
        while True:
            batch = [await queue.get()]
            while len(batch) < _BATCH and not queue.empty():
                batch.append(queue.get_nowait())
            try:
                written, errors = await asyncio.to_thread(self._apply, batch)
            except Exception:  # a bug must not hang puts on a full queue: count the batch as lost
                written, errors = 0, len(batch)
            self.stats.writes += written
            self.stats.errors += errors
            for op in batch:
                if isinstance(op, _Write) and self._pending.get(op.key) is op.response:
                    del self._pending[op.key]
                queue.task_done()

    def _apply(self, batch: list[_Write | _Remove]) -> tuple[int, int]:
        """Runs in a thread (one batch at a time). Returns (entries written, errors)."""
        if not self._swept:
            self._swept = True
            self._sweep(self._temp_max_age_s)
        written = errors = 0
        for op in batch:
            if isinstance(op, _Write):
                try:
                    self._write(op.key, _Entry(key=op.key, response=op.response).model_dump_json().encode())
                    written += 1
                except (OSError, ValueError):  # ValueError: a value pydantic cannot serialise
                    errors += 1
                continue
            path = self._file(op.key)
            try:
                if os.stat(path).st_ino == op.inode:
                    os.unlink(path)
            except FileNotFoundError:
                pass  # another process removed or replaced it first
            except OSError:
                errors += 1
        return written, errors

    def _write(self, key: str, data: bytes) -> None:
        folder = f"{self._root}/{key[:2]}"
        tmp = f"{folder}/.{key}.{secrets.token_hex(6)}{_TMP_SUFFIX}"  # unique across processes and hosts
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileNotFoundError:
            os.makedirs(folder, exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
            finally:
                os.close(fd)
            os.replace(tmp, f"{folder}/{key}.json")
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def _sweep(self, older_than_s: float) -> int:
        cutoff = time.time() - older_than_s
        removed = 0
        try:
            with os.scandir(self.directory) as top:
                folders = [e.path for e in top if e.is_dir(follow_symlinks=False)]
        except OSError:
            return 0
        for folder in folders:
            try:
                with os.scandir(folder) as entries:
                    temps = [e for e in entries if e.name.startswith(".") and e.name.endswith(_TMP_SUFFIX)]
            except OSError:
                continue
            for e in temps:
                try:
                    if e.stat(follow_symlinks=False).st_mtime < cutoff:
                        os.unlink(e.path)
                        removed += 1
                except OSError:
                    pass  # gone already (another sweeper, or renamed into place by its writer)
        return removed
