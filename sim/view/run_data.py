"""The documents ``squall view`` serves for one run: the run's own (what it ran, its report sections, charts with
intervals, a light row per episode) and its episodes in chunks (the full traces the episode view, the search and
the per-step view read). Built by streaming the store; a run still being written is read as far as its complete
lines go (the store's readers skip a partial last line)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judges.common.stats import cluster_bootstrap, wilson
from judges.run.run_summary import RunSummary
from sim.report.episodes import DEFAULT_CAP, collect_episodes
from sim.report.html import plots
from sim.report.sections import build_sections
from sim.report.svg import interval_chart
from sim.run.rescore import summary_of
from sim.store.run_store import RunStore, StoreError
from sim.view.episode_data import ViewProjector, chunk_document, index_row

CHUNK = 40
"""Episodes per chunk document: the episode view loads one chunk, the search loads them all."""
MAX_CHART_ROWS = 30
IDENTITY_KEYS = ("label", "agent", "world", "user", "stressors", "stressor_mode", "setup", "seed", "trials")


@dataclass
class RunDocuments:
    """A run's documents at one state of its files."""

    run: dict[str, Any]
    chunks: list[dict[str, Any]]
    summary: RunSummary | None


def identity(path: Path, manifest: dict[str, Any]) -> dict[str, Any]:
    """What the run ran, from its manifest (the typed identity where the run wrote one, else its config)."""
    config: dict[str, Any] = manifest.get("config") or {}
    named: dict[str, Any] = manifest.get("identity") or {}
    out = {k: named.get(k, config.get(k)) for k in IDENTITY_KEYS}
    out.update(
        run_id=path.name,
        created_at=manifest.get("created_at"),
        git_commit=(manifest.get("git_commit") or "")[:10],
        planned=manifest.get("planned_episodes"),
    )
    return out


def _summary(path: Path) -> tuple[RunSummary | None, str]:
    try:
        return summary_of(path, None), ""
    except (StoreError, ValueError, OSError) as exc:  # a run whose first scores are not written yet
        return None, str(exc)


def _judge_chart(rows: list[dict[str, Any]]) -> str:
    """Each judge's score counted as the headline counts it (goals with a verdict for a judge with one per goal,
    else episodes), with a bootstrap interval over tasks: the chart and the headline show one number."""
    by_judge: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0]))
    for row in rows:
        for judge, (total, units) in row["units"].items():
            tally = by_judge[judge][row["task"]]
            tally[0] += total
            tally[1] += units
    bars = []
    for judge in sorted(by_judge):
        tasks = by_judge[judge]
        n = sum(units for _, units in tasks.values())
        mean = sum(total for total, _ in tasks.values()) / n
        bars.append((judge, mean, cluster_bootstrap([(t, u) for t, u in tasks.values()]), int(n)))
    if not bars:
        return ""
    return interval_chart(
        bars[:MAX_CHART_ROWS], "judges as the headline counts them", "goals or episodes scored; 95% CI over tasks"
    )


def _rate_chart(rows: list[dict[str, Any]], key: str, title: str) -> str:
    """Passed share per group (task, scenario, user), with a Wilson interval; the worst first."""
    groups: dict[str, list[bool]] = defaultdict(list)
    for row in rows:
        if row["outcome"] in ("passed", "wrong"):
            groups[str(row[key]) or "(baseline)"].append(row["outcome"] == "passed")
    if len(groups) < 2:
        return ""
    bars = [(name, sum(v) / len(v), wilson(sum(v), len(v)), len(v)) for name, v in groups.items()]
    bars.sort(key=lambda b: (b[1], b[0]))
    return interval_chart(bars[:MAX_CHART_ROWS], title, "episodes passed")


def build_run_documents(path: Path, key: str, cap: int = DEFAULT_CAP) -> RunDocuments:
    """The run's document and its chunks (see the module docstring)."""
    store = RunStore.open_existing(path)
    manifest = store.manifest()
    summary, problem = _summary(path)
    score_set = (summary.score_set if summary is not None else None) or store.newest_score_set()
    projector = ViewProjector()
    sample = collect_episodes(store, score_set, cap, projector)
    episodes = sample.episodes
    rows = [index_row(ep, i // CHUNK) for i, ep in enumerate(episodes)]
    chunks = [chunk_document(episodes[i : i + CHUNK], projector.shared) for i in range(0, len(episodes), CHUNK)]
    charts = [_judge_chart(rows), _rate_chart(rows, "variant", "passed per stressor scenario")]
    charts += [_rate_chart(rows, "user", "passed per user"), _rate_chart(rows, "task", "passed per task")]
    charts = [c for c in charts if c]
    sections: list[dict[str, Any]] = []
    notes: list[str] = []
    if summary is not None:
        plotted, notes = plots(summary)
        charts += plotted
        sections = [s.model_dump(mode="json") for s in build_sections(summary)]
    run = {
        "key": key,
        "identity": identity(path, manifest),
        "summary_problem": problem,
        "score_set": score_set,
        "stored": sample.total,
        "shown": len(episodes),
        "chunks": len(chunks),
        "sections": sections,
        "charts": charts,
        "chart_notes": notes,
        "episodes": rows,
    }
    return RunDocuments(run, chunks, summary)
