"""The run's one writer: appends are queued on the event loop and written + fsync'd in a worker thread.

Why a thread: an fsync takes ~0.5 ms on a good disk and tens of ms on a busy one; on the event loop it
stalls every episode in flight. The loop serialises and enqueues (``append_episode`` / ``append_scores``
return at once while there is room); the thread writes and fsyncs — both release the GIL — and when
records pile up it takes many of them per write + fsync (one batch: every queued record, up to
``max_batch``). Serialising stays on the loop on purpose: on the thread it holds the GIL in long runs and
the loop waits for it (measured: loop stalls of 15–50 ms vs 5–15 ms, same throughput;
``python -m sim.bench.store_writer``). Lines encoded elsewhere (``append_judged``: an episode judged in a worker
process, encoded there by ``encode_episode`` and ``store_line``) are stored as they came: no serialising here at all.

Guarantees, the same as ``RunStore._append`` gives one record at a time:
- every record is one whole line, appended with O_APPEND; a record counts as stored only once fsync'd
  (``flush`` returns when everything queued before it is);
- within a batch episodes.jsonl is written and fsync'd before scores.jsonl, and an episode is always
  queued before its scores: an episode is durable before its scores are, never the other way round;
- likewise toolkits.jsonl before episodes.jsonl, a toolkit queued (once per run) before the first episode naming
  it: a toolkit is durable before any episode that names it (``sim.store.toolkits``), so a reference never dangles;
- a kill -9 loses at most what is queued or in flight (a partial last line, which readers skip);
- a write that fails (disk full, I/O error) stops the writer: the error is raised by the append or flush
  that is waiting or comes next, and by ``close`` — never a hang. Nothing is written after a failure.

Backpressure: at most ``max_pending`` records wait; an append beyond that waits for room.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Self

from sim.core import EpisodeResult, Score
from sim.core.text_check import json_line
from sim.store.episode_json import encode_episode
from sim.store.run_store import EPISODES, SCORES, RunStore, StoreError, append_all, open_append
from sim.store.toolkits import TOOLKITS, Toolkit

_FILE_ORDER = (TOOLKITS, EPISODES, SCORES)  # within a batch: each record durable before those that depend on it


class StoreWriteError(StoreError):
    """The store could not be written (disk full, I/O error): the run stops, what was fsync'd is kept."""


@dataclass
class WriterStats:
    """What the writer did: how well batching amortised fsyncs."""

    records: int = 0
    batches: int = 0
    fsyncs: int = 0
    bytes: int = 0
    busy_s: float = 0.0  # time spent serialising, writing and fsyncing
    fsync_s: float = 0.0
    largest_batch: int = 0

    def as_dict(self) -> dict[str, float]:
        return {
            "records": self.records,
            "batches": self.batches,
            "fsyncs": self.fsyncs,
            "bytes": self.bytes,
            "busy_s": round(self.busy_s, 4),
            "fsync_s": round(self.fsync_s, 4),
            "largest_batch": self.largest_batch,
            "records_per_fsync": round(self.records / self.fsyncs, 2) if self.fsyncs else 0.0,
        }


@dataclass
class _Record:
    file: str
    lines: list[bytes]  # whole JSON lines, newline included


@dataclass
class _Flush:
    future: asyncio.Future[None]


@dataclass
class _Stop:
    future: asyncio.Future[None]


_Item = _Record | _Flush | _Stop


@dataclass
class _Batch:
    lines: dict[str, list[bytes]] = field(default_factory=dict)
    records: int = 0
    markers: list[_Flush | _Stop] = field(default_factory=list)


class StoreWriter:
    """Owns a run store's appends while open (``async with StoreWriter(store) as writer``)."""

    def __init__(self, store: RunStore, max_pending: int = 8192, max_batch: int = 4096) -> None:
        self.store = store
        self.stats = WriterStats()
        self._max_pending = max_pending
        self._max_batch = max_batch
        self._queue: queue.SimpleQueue[_Item] = queue.SimpleQueue()
        self._pending = 0  # records queued, not yet fsync'd (loop side)
        self._room_waiters: deque[asyncio.Future[None]] = deque()
        self._markers: set[asyncio.Future[None]] = set()
        self._error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._toolkits: set[str] = set()  # stored or queued: each toolkit is written once

    # --- the loop side ---

    async def __aenter__(self) -> Self:
        self._loop = asyncio.get_running_loop()
        self._toolkits = await asyncio.to_thread(self.store.toolkits.shas)  # a resumed run's
        self._thread = threading.Thread(target=self._run, name="squall-store-writer", daemon=True)
        self._thread.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Make everything queued durable and stop the thread (also when the run was cancelled or failed)."""
        try:
            await self.close()
        except StoreWriteError:
            if exc is None:
                raise  # otherwise the run's own error is the one to report; the write error is its context

    async def append_episode(self, result: EpisodeResult) -> None:
        encoded = encode_episode(result)
        await self.append_judged(encoded.line, (), encoded.toolkit)

    async def append_scores(self, scores: list[Score]) -> None:
        if scores:
            await self._put(len(scores), _Record(SCORES, [store_line(s) for s in scores]))

    async def append_judged(
        self, episode_line: bytes, score_lines: Sequence[bytes], toolkit: Toolkit | None = None
    ) -> None:
        """An episode and its scores encoded elsewhere (``encode_episode`` and ``store_line``, in a worker process),
        stored as they are: queued together, the toolkit the episode names first unless already stored, then the
        episode (durable before its scores, as ever)."""
        for line in (episode_line, *score_lines, *([toolkit.line] if toolkit is not None else [])):
            if not line.endswith(b"\n") or line.count(b"\n") != 1:
                raise ValueError("not one store line: a record must be one line, newline included")
        records = [_Record(EPISODES, [episode_line])]
        if toolkit is not None and toolkit.sha not in self._toolkits:
            records.insert(0, _Record(TOOLKITS, [toolkit.line]))
        if score_lines:
            records.append(_Record(SCORES, list(score_lines)))
        await self._put(sum(len(r.lines) for r in records), *records)
        if toolkit is not None:  # queued: a later episode naming it is queued behind it, so in its batch or a later one
            self._toolkits.add(toolkit.sha)

    async def flush(self) -> None:
        """Returns once every record queued before the call is fsync'd; raises if the writer failed."""
        await self._marker(_Flush)

    async def close(self) -> None:
        if self._thread is None:
            return
        if self._thread.is_alive() and self._error is None:
            await self._marker(_Stop)
        thread, self._thread = self._thread, None
        await asyncio.to_thread(thread.join)
        self._check()

    @property
    def pending(self) -> int:
        return self._pending

    def _check(self) -> None:
        if self._error is not None:
            raise StoreWriteError(f"{self.store.root}: cannot write the run store: {_describe(self._error)}")

    async def _put(self, n: int, *records: _Record) -> None:
        """Queue ``records`` (``n`` lines in all) one after the other, once there is room."""
        self._check()
        if self._thread is None:
            raise RuntimeError("StoreWriter is not open")
        while self._pending >= self._max_pending:
            waiter = self._loop_().create_future()
            self._room_waiters.append(waiter)
            await waiter
            self._check()
        self._pending += n
        for record in records:
            self._queue.put(record)

    async def _marker(self, kind: type[_Flush] | type[_Stop]) -> None:
        self._check()
        future = self._loop_().create_future()
        self._markers.add(future)
        self._queue.put(kind(future))
        try:
            await future
        finally:
            self._markers.discard(future)
        self._check()  # woken by a failure rather than by the marker's batch

    def _loop_(self) -> asyncio.AbstractEventLoop:
        assert self._loop is not None, "StoreWriter is not open"
        return self._loop

    def _written(self, records: int, markers: list[_Flush | _Stop]) -> None:
        """On the loop: a batch is durable."""
        self._pending -= records
        room = self._max_pending - self._pending
        while self._room_waiters and room > 0:
            waiter = self._room_waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                room -= 1
        for marker in markers:
            if not marker.future.done():
                marker.future.set_result(None)

    def _failed(self, error: BaseException) -> None:
        """On the loop: the thread stopped on an error; wake everyone waiting, so that they raise."""
        self._error = error
        for waiter in (*self._room_waiters, *self._markers):
            if not waiter.done():
                waiter.set_result(None)  # they re-check and raise StoreWriteError
        self._room_waiters.clear()

    # --- the thread side ---

    def _run(self) -> None:
        fds: dict[str, int] = {}
        try:
            while True:
                batch = self._take()
                started = time.perf_counter()
                self._write(batch, fds)
                self.stats.busy_s += time.perf_counter() - started
                self._loop_().call_soon_threadsafe(self._written, batch.records, batch.markers)
                if any(isinstance(m, _Stop) for m in batch.markers):
                    return
        except BaseException as exc:  # disk full, I/O error, a bug: reported, never swallowed
            with contextlib.suppress(RuntimeError):  # the loop is already closed: nobody is left to tell
                self._loop_().call_soon_threadsafe(self._failed, exc)
        finally:
            for fd in fds.values():
                with contextlib.suppress(OSError):
                    os.close(fd)

    def _take(self) -> _Batch:
        """Block for one item, then take what was already queued behind it (up to max_batch records) — not what
        arrives meanwhile: that waits for the next batch, so a record waits for at most one batch before its own."""
        batch = _Batch()
        item: _Item = self._queue.get()
        behind = self._queue.qsize()
        while True:
            if isinstance(item, _Record):
                batch.lines.setdefault(item.file, []).extend(item.lines)
                batch.records += len(item.lines)
            else:
                batch.markers.append(item)
                if isinstance(item, _Stop):
                    break
            if batch.records >= self._max_batch or behind == 0:
                break
            item, behind = self._queue.get_nowait(), behind - 1
        return batch

    def _write(self, batch: _Batch, fds: dict[str, int]) -> None:
        for name in _FILE_ORDER:
            lines = batch.lines.get(name)
            if not lines:
                continue
            if name not in fds:
                fds[name] = open_append(self.store.root / name)
            data = b"".join(lines)
            append_all(fds[name], data)
            started = time.perf_counter()
            os.fsync(fds[name])
            self.stats.fsync_s += time.perf_counter() - started
            self.stats.fsyncs += 1
            self.stats.bytes += len(data)
        self.stats.records += batch.records
        self.stats.batches += 1
        self.stats.largest_batch = max(self.stats.largest_batch, batch.records)


def store_line(score: Score) -> bytes:
    """A score as the store holds it: one JSON line, newline included (what ``append_judged`` takes)."""
    return json_line(score).encode("utf-8") + b"\n"


def _describe(error: BaseException) -> str:
    if isinstance(error, OSError):
        where = f" ({error.filename})" if error.filename else ""
        return f"{error.strerror or error}{where}"
    return f"{type(error).__name__}: {error}"
