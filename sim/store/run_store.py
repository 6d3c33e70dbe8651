"""The run store: runs/<run-id>/ with a manifest, append-only JSONL and a summary.

Scores come in sets, one per judge configuration (its hash is each Score's ``judge_config``):
``score_sets.jsonl`` lists the sets in the order they were computed, the last one being the newest;
``scores.jsonl`` holds every set's scores. Re-judging appends; nothing is rewritten. Within a set,
the newest line for an (episode, judge) wins, so a judge fault re-run later is replaced by its verdict.

Crash safety: every record is one whole line, appended with O_APPEND and fsync'd before it counts as
stored, by one writer (during a run: ``sim.store.writer.StoreWriter``, which batches many lines into one
write + fsync off the event loop). A kill -9 can at worst leave a partial last line; readers skip it and
``resume`` cuts it off before appending. Small files (manifest, summary) are replaced atomically.

Reading streams: every reader yields one record at a time, so memory follows the record, not the run.
An episode played again (``--resume`` re-runs provider faults) has a newer record later in ``episodes.jsonl``;
readers see only the newest (``sim.store.superseded``).

An episode names the tools it was shown by reference to ``toolkits.jsonl`` (each distinct toolkit stored once, before
the first episode naming it: ``sim.store.toolkits``); ``parse_episode`` puts them back, and lines of runs stored
before (tools inline) read as they are.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar, overload

from pydantic import BaseModel, ValidationError

from sim.core import EpisodeResult, Score
from sim.core.files import write_text_atomic
from sim.core.text_check import json_line
from sim.store.episode_json import decode_episode, encode_episode
from sim.store.run_lock import RunLock, RunLocked
from sim.store.superseded import EpisodeStatus, superseded_lines
from sim.store.toolkits import TOOLKITS, StoredToolkits, ToolkitError

M = TypeVar("M", bound=BaseModel)

MANIFEST = "manifest.json"
EPISODES = "episodes.jsonl"
SCORES = "scores.jsonl"
SUMMARY = "summary.json"
SCORE_SETS = "score_sets.jsonl"


class StoreError(Exception):
    """A run directory that cannot be used as asked (missing, mismatched config, corrupt line, disk full)."""


class EpisodeKey(BaseModel):
    """The light view of a stored episode that says which one it is (parsing skips the rest)."""

    episode_id: str


def write_json_atomic(path: Path, data: Any) -> None:
    write_text_atomic(path, json.dumps(data, indent=2, sort_keys=True, default=str) + "\n")


def _cut_partial_tail(path: Path, chunk: int = 1 << 16) -> None:
    """Drop a last line that was cut short by a crash (no trailing newline). Reads the tail only."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with path.open("rb+") as f:
        end = f.seek(0, os.SEEK_END)
        f.seek(end - 1)
        if f.read(1) == b"\n":
            return
        pos = end
        while pos > 0:  # back to the last newline: everything after it is the partial record
            start = max(0, pos - chunk)
            f.seek(start)
            cut = f.read(pos - start).rfind(b"\n")
            if cut >= 0:
                f.truncate(start + cut + 1)
                return
            pos = start
        f.truncate(0)


def read_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """(line number, raw line) of every complete, non-blank line; a partial tail from a crash is not a record."""
    if not path.exists():
        return
    with path.open("rb") as f:
        for lineno, raw in enumerate(f, start=1):
            if not raw.endswith(b"\n"):
                return
            if raw.strip():
                yield lineno, raw


def parse_line(path: Path, lineno: int, raw: bytes, model: type[M]) -> M:
    """One stored line as ``model``; a corrupt line is an error naming file and line."""
    try:
        return model.model_validate_json(raw)
    except ValidationError as exc:
        raise StoreError(f"{path}:{lineno}: not a valid {model.__name__}: {exc.errors()[0]['msg']}") from exc


def read_jsonl(path: Path, model: type[M]) -> Iterator[M]:
    """Complete lines only, one at a time; a corrupt complete line is an error naming file and line.

    ``model`` may be a light view of the stored record (a model with only some of its fields): parsing
    then skips building the rest, which is how the summary reads episodes without their events' bodies.
    """
    for lineno, raw in read_lines(path):
        yield parse_line(path, lineno, raw, model)


def append_all(fd: int, data: bytes) -> None:
    """Write every byte (O_APPEND fd: the data lands at the end, never interleaved with another writer's)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def open_append(path: Path) -> int:
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)


class RunStore:
    """One run directory. Its direct ``append_*`` methods write and fsync at once (one record, one fsync);
    a run writes through ``StoreWriter`` instead, which owns the appends while it is open."""

    def __init__(self, root: Path, lock: RunLock | None = None) -> None:
        self.root = root
        self._lock = lock
        """Held by a store opened to write (create, resume, open_to_write): one writer per run folder."""
        self._superseded: tuple[tuple[int, int], frozenset[int]] | None = None
        """The superseded lines of episodes.jsonl, with the (size, mtime) they were read at."""
        self.toolkits = StoredToolkits(root)
        """The toolkits episodes name (``sim.store.toolkits``)."""

    def close(self) -> None:
        """Give the run folder back to other writers (the process's exit does too)."""
        if self._lock is not None:
            self._lock.release()

    @classmethod
    def check_new(cls, root: Path) -> None:
        """Raise unless ``create(root)`` can succeed: checked before anything else is started."""
        if (root / MANIFEST).exists():
            raise StoreError(f"{root} already holds a run; pass --resume to continue it or pick another --run-id")
        if root.exists() and not root.is_dir():
            raise StoreError(f"{root} exists and is not a directory")
        if root.is_dir() and any(root.iterdir()):
            raise StoreError(f"{root} exists and is not empty; pick another --run-id")

    @classmethod
    def create(cls, root: Path, manifest: dict[str, Any]) -> RunStore:
        cls.check_new(root)
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{root}: cannot create the run directory: {exc.strerror or exc}") from exc
        lock = _lock(root)
        try:
            cls.check_new(root)  # again under the lock: another process may have created this run meanwhile
            write_json_atomic(root / MANIFEST, manifest)
        except OSError as exc:
            lock.release()
            raise StoreError(f"{root}: cannot create the run directory: {exc.strerror or exc}") from exc
        except BaseException:
            lock.release()
            raise
        return cls(root, lock)

    @classmethod
    def resume(cls, root: Path, config_hash: str, same_run: Callable[[dict[str, Any]], bool] | None = None) -> RunStore:
        """The run to continue: its manifest's ``config_hash`` must be ``config_hash``, or ``same_run`` must accept
        the manifest (a hash of an older form, which only the caller can recompute)."""
        manifest_path = root / MANIFEST
        if not manifest_path.exists():
            raise StoreError(f"{root}: nothing to resume (no {MANIFEST})")
        lock = _lock(root)  # before the tails are cut: another writer may be mid-line
        try:
            try:
                manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise StoreError(f"{manifest_path}: unreadable manifest: {exc}") from exc
            if manifest.get("config_hash") != config_hash and not (same_run is not None and same_run(manifest)):
                raise StoreError(
                    f"{manifest_path}: config_hash {manifest.get('config_hash')} differs from this run's "
                    f"{config_hash}; resume with the same settings (world, agent, user, stressors, seed, trials, "
                    "limit, judges; the model's endpoint address may change)"
                )
            for name in (TOOLKITS, EPISODES, SCORES, SCORE_SETS):
                _cut_partial_tail(root / name)
        except BaseException:
            lock.release()
            raise
        return cls(root, lock)

    @classmethod
    def open_existing(cls, root: Path) -> RunStore:
        """A stored run to read (reports, comparisons): takes no lock, so it reads beside a running writer."""
        if not (root / MANIFEST).exists():
            raise StoreError(f"{root}: not a squall run directory (no {MANIFEST})")
        return cls(root)

    @classmethod
    def open_to_write(cls, root: Path) -> RunStore:
        """A stored run to append to (``squall score``): locked like a resume, partial tails cut."""
        cls.open_existing(root)  # a run folder, or a clear error
        lock = _lock(root)
        try:
            for name in (SCORES, SCORE_SETS):
                _cut_partial_tail(root / name)
        except BaseException:
            lock.release()
            raise
        return cls(root, lock)

    def manifest(self) -> dict[str, Any]:
        path = self.root / MANIFEST
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise StoreError(f"{path}: unreadable manifest: {exc}") from exc
        if not isinstance(data, dict) or not isinstance(data.get("config"), dict):
            raise StoreError(f"{path}: not a squall manifest (no 'config' object)")
        return data

    def update_manifest(self, changes: dict[str, Any]) -> None:
        """Replace top-level manifest keys (atomically): what a resume records about itself."""
        write_json_atomic(self.root / MANIFEST, {**self.manifest(), **changes})

    def append_episode(self, result: EpisodeResult) -> None:
        encoded = encode_episode(result)
        if encoded.toolkit is not None and not self.toolkits.has(encoded.toolkit.sha):
            self._append_bytes(TOOLKITS, encoded.toolkit.line)  # durable before the episode that names it
        self._append_bytes(EPISODES, encoded.line)

    def append_scores(self, scores: list[Score]) -> None:
        self._append(SCORES, [json_line(s) for s in scores])

    def _append(self, name: str, lines: list[str]) -> None:
        self._append_bytes(name, "".join(line + "\n" for line in lines).encode("utf-8"))

    def _append_bytes(self, name: str, data: bytes) -> None:
        # O_APPEND + one write: records never interleave, and fsync bounds loss to what is in flight.
        fd = open_append(self.root / name)
        try:
            append_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)

    @overload
    def iter_episodes(self) -> Iterator[EpisodeResult]: ...
    @overload
    def iter_episodes(self, model: type[M]) -> Iterator[M]: ...
    def iter_episodes(self, model: type[BaseModel] = EpisodeResult) -> Iterator[BaseModel]:
        """Stored episodes one at a time, as ``EpisodeResult`` or as a lighter view of one; a record a later one
        of the same episode replaces is left out."""
        skip = self.superseded()
        for lineno, raw in read_lines(self.root / EPISODES):
            if lineno not in skip:
                yield self.parse_episode(lineno, raw, model)

    @overload
    def parse_episode(self, lineno: int, raw: bytes) -> EpisodeResult: ...
    @overload
    def parse_episode(self, lineno: int, raw: bytes, model: type[M]) -> M: ...
    def parse_episode(self, lineno: int, raw: bytes, model: type[BaseModel] = EpisodeResult) -> BaseModel:
        """Line ``lineno`` of episodes.jsonl as ``model``, its toolkit in place (records name theirs by reference);
        a corrupt line, or one naming a toolkit the folder lacks, is an error naming file and line."""
        path = self.root / EPISODES
        try:
            return decode_episode(raw, model, self.toolkits)
        except ValidationError as exc:
            raise StoreError(f"{path}:{lineno}: not a valid {model.__name__}: {exc.errors()[0]['msg']}") from exc
        except ToolkitError as exc:
            raise StoreError(f"{path}:{lineno}: {exc}") from exc

    def superseded(self) -> frozenset[int]:
        """Line numbers in episodes.jsonl of records a later record of the same episode replaces. Read once per
        state of the file: a summary reads the episodes several times."""
        path = self.root / EPISODES
        try:
            stat = path.stat()
        except FileNotFoundError:
            return frozenset()
        key = (stat.st_size, stat.st_mtime_ns)
        if self._superseded is None or self._superseded[0] != key:
            statuses = ((n, parse_line(path, n, raw, EpisodeStatus)) for n, raw in read_lines(path))
            self._superseded = (key, superseded_lines(statuses))
        return self._superseded[1]

    def episodes(self) -> list[EpisodeResult]:
        """Every stored episode at once: for tests and small runs only (a run's tools stream)."""
        return list(self.iter_episodes())

    def iter_scores(self, score_set: str | None = None) -> Iterator[Score]:
        """Stored scores one at a time, oldest first; only one set's (``judge_config`` hash) when given."""
        return (s for s in read_jsonl(self.root / SCORES, Score) if score_set is None or s.judge_config == score_set)

    def scores(self, score_set: str | None = None) -> list[Score]:
        """Every stored score, or only one set's (``judge_config`` hash)."""
        return list(self.iter_scores(score_set))

    def done_ids(self) -> set[str]:
        return {r.episode_id for r in self.iter_episodes(EpisodeKey)}

    def write_summary(self, summary: dict[str, Any]) -> None:
        write_json_atomic(self.root / SUMMARY, summary)

    def add_score_set(self, judge_config_hash: str, judge_config: dict[str, Any], command: str) -> None:
        """Record that a set is being (re)computed now; the last recorded set is the newest."""
        line = {
            "judge_config": judge_config_hash,
            "config": judge_config,
            "command": command,
            "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        self._append(SCORE_SETS, [json.dumps(line, sort_keys=True)])

    def score_sets(self) -> list[dict[str, Any]]:
        """Recorded sets, oldest first, one entry per hash (at the place it was last recorded)."""
        path = self.root / SCORE_SETS
        entries: dict[str, dict[str, Any]] = {}
        if path.exists():
            for lineno, raw in enumerate(path.read_bytes().splitlines(keepends=True), start=1):
                if not raw.endswith(b"\n"):
                    break
                try:
                    entry = json.loads(raw)
                    key = str(entry["judge_config"])
                except (ValueError, KeyError, TypeError) as exc:
                    raise StoreError(f"{path}:{lineno}: not a score set record") from exc
                entries.pop(key, None)
                entries[key] = entry
        return list(entries.values())

    def newest_score_set(self) -> str:
        """The hash of the newest set ('' for runs stored before score sets existed)."""
        sets = self.score_sets()
        return str(sets[-1]["judge_config"]) if sets else ""

    def find_score_set(self, prefix: str) -> str:
        """The set whose hash starts with ``prefix``; a StoreError lists the sets otherwise."""
        sets = [str(s["judge_config"]) for s in self.score_sets()]
        found = [h for h in sets if h.startswith(prefix)]
        if len(found) != 1:
            what = "no" if not found else "more than one"
            raise StoreError(f"{self.root}: {what} score set matches '{prefix}'; sets: {', '.join(sets) or 'none'}")
        return found[0]


def _lock(root: Path) -> RunLock:
    try:
        return RunLock(root)
    except RunLocked as exc:
        raise StoreError(str(exc)) from None
    except OSError as exc:
        raise StoreError(f"{root}: cannot lock the run directory: {exc.strerror or exc}") from exc
