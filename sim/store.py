"""The run store: runs/<run-id>/ with a manifest, append-only JSONL and a summary.

Crash safety: every record is one line written with a single write() and fsync'd, by one writer.
A kill -9 can at worst leave a partial last line; readers skip it and ``open`` for resume cuts it
off before appending. Small files (manifest, summary) are replaced atomically.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from sim.core import EpisodeResult, Score

M = TypeVar("M", bound=BaseModel)

MANIFEST = "manifest.json"
EPISODES = "episodes.jsonl"
SCORES = "scores.jsonl"
SUMMARY = "summary.json"


class StoreError(Exception):
    """A run directory that cannot be used as asked (missing, mismatched config, corrupt line)."""


def write_text_atomic(path: Path, text: str) -> None:
    """Readers see the old file or the new one, never a torn one, even across a crash."""
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def write_json_atomic(path: Path, data: Any) -> None:
    write_text_atomic(path, json.dumps(data, indent=2, sort_keys=True, default=str) + "\n")


def _cut_partial_tail(path: Path) -> None:
    """Drop a last line that was cut short by a crash (no trailing newline)."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with path.open("rb+") as f:
        data = f.read()
        if data.endswith(b"\n"):
            return
        f.truncate(data.rfind(b"\n") + 1)


def read_jsonl(path: Path, model: type[M]) -> Iterator[M]:
    """Complete lines only; a corrupt complete line is an error naming file and line."""
    if not path.exists():
        return
    with path.open("rb") as f:
        for lineno, raw in enumerate(f, start=1):
            if not raw.endswith(b"\n"):
                return  # a partial tail from a crash: not a finished record
            if not raw.strip():
                continue
            try:
                yield model.model_validate_json(raw)
            except ValidationError as exc:
                raise StoreError(f"{path}:{lineno}: not a valid {model.__name__}: {exc.errors()[0]['msg']}") from exc


class RunStore:
    """Single writer for one run directory."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    def create(cls, root: Path, manifest: dict[str, Any]) -> RunStore:
        if (root / MANIFEST).exists():
            raise StoreError(f"{root} already holds a run; pass --resume to continue it or pick another --run-id")
        root.mkdir(parents=True, exist_ok=True)
        write_json_atomic(root / MANIFEST, manifest)
        return cls(root)

    @classmethod
    def resume(cls, root: Path, config_hash: str) -> RunStore:
        manifest_path = root / MANIFEST
        if not manifest_path.exists():
            raise StoreError(f"{root}: nothing to resume (no {MANIFEST})")
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        if manifest.get("config_hash") != config_hash:
            raise StoreError(
                f"{manifest_path}: config_hash {manifest.get('config_hash')} differs from this run's {config_hash}; "
                "resume with the same settings (world, agent, user, stressors, seed, trials, limit, judges)"
            )
        for name in (EPISODES, SCORES):
            _cut_partial_tail(root / name)
        return cls(root)

    @classmethod
    def open_existing(cls, root: Path) -> RunStore:
        if not (root / MANIFEST).exists():
            raise StoreError(f"{root}: not a squall run directory (no {MANIFEST})")
        return cls(root)

    def manifest(self) -> dict[str, Any]:
        return dict(json.loads((self.root / MANIFEST).read_text(encoding="utf-8")))

    def append_episode(self, result: EpisodeResult) -> None:
        self._append(EPISODES, [result.model_dump_json()])

    def append_scores(self, scores: list[Score]) -> None:
        self._append(SCORES, [s.model_dump_json() for s in scores])

    def _append(self, name: str, lines: list[str]) -> None:
        data = "".join(line + "\n" for line in lines).encode("utf-8")
        # O_APPEND + one write: records never interleave, and fsync bounds loss to what is in flight.
        fd = os.open(self.root / name, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)

    def episodes(self) -> list[EpisodeResult]:
        return list(read_jsonl(self.root / EPISODES, EpisodeResult))

    def scores(self) -> list[Score]:
        return list(read_jsonl(self.root / SCORES, Score))

    def done_ids(self) -> set[str]:
        return {r.episode_id for r in self.episodes()}

    def write_summary(self, summary: dict[str, Any]) -> None:
        write_json_atomic(self.root / SUMMARY, summary)

    def rewrite_scores(self, scores: list[Score]) -> None:
        """Replace scores.jsonl wholesale (re-judging), atomically."""
        write_text_atomic(self.root / SCORES, "".join(s.model_dump_json() + "\n" for s in scores))
