"""The compare view's document for two runs: the paired per-judge differences of ``squall report --compare`` and
the tasks that flipped, passed in one run and not in the other, paired episode by episode."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judges.run.run_summary import RunSummary
from sim.report.compare import compare_runs
from sim.store.run_store import StoreError


@dataclass(frozen=True)
class CompareSide:
    """One run of a comparison: its key, folder, summary (None while it has no scores) and episode rows."""

    key: str
    path: Path
    summary: RunSummary | None
    rows: list[dict[str, Any]]


def _paired_diffs(this: CompareSide, other: CompareSide) -> tuple[list[dict[str, Any]], list[str], str]:
    """(per judge: this, other, diff, 95% CI, pairs, tasks), the pairing warnings, a problem ('' when none)."""
    if this.summary is None or other.summary is None:
        return [], [], "a run without scores yet has nothing to compare"
    try:
        cmp = compare_runs(this.path, this.summary, other.path, other.summary)
    except (StoreError, ValueError, OSError) as exc:
        return [], [], str(exc)
    rows = [
        {"judge": d.judge, "a": d.other, "b": d.this, "diff": d.diff, "ci95": d.ci95, "pairs": d.pairs}
        | {"tasks": d.tasks}
        for d in cmp.diffs
    ]
    return rows, cmp.warnings, ""


def flipped_tasks(a_rows: list[dict[str, Any]], b_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tasks (with their stressor variant) where some paired episode passed in one run and not in the other: the
    passes in each run over the paired episodes, and which way it went."""
    b_by_id = {r["id"]: r for r in b_rows}
    tasks: dict[tuple[str, str], dict[str, Any]] = defaultdict(lambda: {"a": 0, "b": 0, "pairs": 0, "episodes": []})
    for ra in a_rows:
        rb = b_by_id.get(ra["id"])
        if rb is None or {ra["outcome"], rb["outcome"]} - {"passed", "wrong"}:
            continue  # unpaired, failed or unscored: no verdict to flip
        t = tasks[(ra["task"], ra["variant"])]
        t["pairs"] += 1
        t["a"] += ra["outcome"] == "passed"
        t["b"] += rb["outcome"] == "passed"
        if ra["outcome"] != rb["outcome"]:
            t["episodes"].append(ra["id"])
    out = []
    for (task, variant), t in sorted(tasks.items()):
        if t["episodes"]:
            way = "fixed" if t["b"] > t["a"] else "broke" if t["b"] < t["a"] else "mixed"
            out.append({"task": task, "variant": variant, **t, "way": way})
    return out


def compare_document(a: CompareSide, b: CompareSide) -> dict[str, Any]:
    """Run A against run B: B − A per judge on the paired episodes, and the flipped tasks (A → B)."""
    diffs, warnings, problem = _paired_diffs(b, a)  # compare_runs reports this − other: B − A
    a_rows, b_rows = a.rows, b.rows
    return {
        "a": a.key,
        "b": b.key,
        "diffs": diffs,
        "warnings": warnings,
        "problem": problem,
        "flipped": flipped_tasks(a_rows, b_rows),
        "paired": len({r["id"] for r in a_rows} & {r["id"] for r in b_rows}),
    }
