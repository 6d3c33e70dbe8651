"""``squall export RUN``: a run's verdicts as tables other tools read — one row per episode (its identity, how it
ended, and every judge's value) and one row per goal and judge (value and that goal's error codes) — in CSV,
JSON Lines or Parquet (Parquet needs pyarrow: ``pip install 'squall[parquet]'``).

Streams: episodes are read one light record at a time and the scores one line at a time, so memory follows the
number of episodes, not the size of their traces. Files appear whole or not at all (written aside, then renamed)."""

from __future__ import annotations

import csv
import json
import os
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, cast

from pydantic import BaseModel

from sim.core import FAILED_TERMINATIONS, Score
from sim.report.run_index import RunInfo, read_run_info
from sim.store.run_store import RunStore

ExportFormat = Literal["csv", "jsonl", "parquet"]
FORMATS: tuple[ExportFormat, ...] = ("csv", "jsonl", "parquet")
EPISODE_FIELDS = (
    "run_id",
    "label",
    "agent",
    "world",
    "episode_id",
    "task_id",
    "trial",
    "seed",
    "user",
    "variant",
    "stressors",
    "termination",
    "failed",
    "turns_played",
    "input_tokens",
    "output_tokens",
    "cost",
    "duration_s",
    "score_set",
)
GOAL_FIELDS = ("run_id", "episode_id", "task_id", "trial", "goal", "judge", "value", "errors", "score_set")


class ExportError(Exception):
    """An export that cannot be made as asked (unknown format, Parquet without pyarrow)."""


class _EpisodeRow(BaseModel):
    """The part of a stored episode an export row needs (parsing skips the events)."""

    episode_id: str
    task_id: str
    trial: int
    seed: int
    user: str
    variant: str = ""
    stressors: list[str] = []
    termination: str = "completed"
    turns_played: int = 0
    duration_s: float = 0.0
    usage: dict[str, Any] = {}


def _scores(store: RunStore, score_set: str) -> tuple[dict[str, dict[str, Score]], list[str]]:
    """episode -> judge -> newest score of the set, and every judge in first-seen order."""
    out: dict[str, dict[str, Score]] = defaultdict(dict)
    judges: dict[str, None] = {}
    for score in store.iter_scores(score_set):
        out[score.episode_id][score.judge] = score
        judges.setdefault(score.judge, None)
    return out, list(judges)


def _goal_errors(errors: list[str], goal: int) -> str:
    prefix = f"goal{goal}:"
    return ";".join(e.removeprefix(prefix) for e in errors if e.startswith(prefix))


def episode_rows(
    info: RunInfo, store: RunStore, score_set: str, scores: dict[str, dict[str, Score]], judges: list[str]
) -> Iterator[dict[str, Any]]:
    for ep in store.iter_episodes(_EpisodeRow):
        mine = scores.get(ep.episode_id, {})
        row: dict[str, Any] = {
            "run_id": info.run_id,
            "label": info.label,
            "agent": info.agent,
            "world": info.world,
            **ep.model_dump(include={"episode_id", "task_id", "trial", "seed", "user", "variant"}),
            "stressors": ",".join(ep.stressors),
            "termination": ep.termination,
            "failed": ep.termination in FAILED_TERMINATIONS,
            "turns_played": ep.turns_played,
            "input_tokens": ep.usage.get("input_tokens", 0),
            "output_tokens": ep.usage.get("output_tokens", 0),
            "cost": ep.usage.get("cost", 0.0),
            "duration_s": ep.duration_s,
            "score_set": score_set,
        }
        for judge in judges:
            score = mine.get(judge)
            row[judge] = None if score is None else score.value
        yield row


def goal_rows(info: RunInfo, score_set: str, scores: dict[str, dict[str, Score]]) -> Iterator[dict[str, Any]]:
    for by_judge in scores.values():
        for judge, s in by_judge.items():
            for goal, value in enumerate(s.per_goal):
                yield {
                    "run_id": info.run_id,
                    "episode_id": s.episode_id,
                    "task_id": s.task_id,
                    "trial": s.trial,
                    "goal": goal,
                    "judge": judge,
                    "value": value,
                    "errors": _goal_errors(s.errors, goal),
                    "score_set": score_set,
                }


def _write_csv(path: Path, columns: list[str], rows: Iterator[dict[str, Any]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: "" if v is None else v for k, v in row.items()})


def _write_jsonl(path: Path, rows: Iterator[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def _write_parquet(path: Path, columns: list[str], rows: Iterator[dict[str, Any]]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    listed = list(rows)
    table = pa.Table.from_pylist(listed) if listed else pa.table({c: [] for c in columns})
    pq.write_table(table, path)


def _write(path: Path, fmt: ExportFormat, columns: list[str], rows: Iterator[dict[str, Any]]) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        if fmt == "csv":
            _write_csv(tmp, columns, rows)
        elif fmt == "jsonl":
            _write_jsonl(tmp, rows)
        else:
            _write_parquet(tmp, columns, rows)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def check_format(fmt: str) -> ExportFormat:
    """The format, checked before anything is read: ExportError names what is wrong."""
    if fmt not in FORMATS:
        raise ExportError(f"--format {fmt!r}: use one of {', '.join(FORMATS)}")
    if fmt == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise ExportError(
                "--format parquet needs pyarrow, which is not installed: pip install 'squall[parquet]' "
                "(or use --format csv or jsonl)"
            ) from None
    return cast(ExportFormat, fmt)  # checked against FORMATS above


def export_run(run_dir: Path, fmt: str, out_dir: Path, score_set: str | None = None) -> list[Path]:
    """Write ``episodes.<fmt>`` and ``goals.<fmt>`` of the run's score set (default: its newest) into
    ``out_dir``; returns their paths. ExportError / StoreError name what is wrong, before anything is written."""
    chosen_format = check_format(fmt)
    info = read_run_info(run_dir)
    store = RunStore.open_existing(info.path)
    chosen = store.find_score_set(score_set) if score_set else store.newest_score_set()
    scores, judges = _scores(store, chosen)
    out_dir.mkdir(parents=True, exist_ok=True)
    episodes = out_dir / f"episodes.{chosen_format}"
    goals = out_dir / f"goals.{chosen_format}"
    _write(episodes, chosen_format, [*EPISODE_FIELDS, *judges], episode_rows(info, store, chosen, scores, judges))
    _write(goals, chosen_format, list(GOAL_FIELDS), goal_rows(info, chosen, scores))
    return [episodes, goals]
