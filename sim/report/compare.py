"""``squall report RUN_DIR --compare OTHER``: two runs side by side.

Headline numbers are shown for each run as it is (each over its own denominators). The per-episode judges are
compared on the episodes both runs hold (paired by episode_id: task, variant, user label and trial — the same
seed only where both runs used the same root seed, which is warned about otherwise), as the difference
this run − other with a paired bootstrap interval that resamples tasks, since a task's episodes are not
independent draws. Streams: one run's scores are held as (task, value) per episode and judge, the other's are
read one at a time."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from judges.common.stats import paired_ratio_difference
from judges.common.summary_view import pct
from judges.names import JudgeName
from judges.run.run_identity import distinct_labels
from judges.run.run_summary import RunSummary
from sim.report.html import table
from sim.report.leaderboard import verdict_units
from sim.report.sections import headline_rows
from sim.store.run_store import EpisodeKey, RunStore, StoreError

if TYPE_CHECKING:
    from rich.console import Console

FIRST_JUDGES = (JudgeName.CORE_API_ACCURACY, JudgeName.CONVERSATION_SUCCESS, JudgeName.COMPLETION)
"""Listed first; any other judge both runs scored follows in name order."""


@dataclass
class JudgeDiff:
    judge: str
    pairs: int
    this: float | None
    other: float | None
    diff: float | None
    ci95: tuple[float, float] | None
    tasks: int


@dataclass
class Comparison:
    this_name: str
    other_name: str
    headline: list[list[str]] = field(default_factory=list)
    """[metric, this value, this CI, other value, other CI]."""
    diffs: list[JudgeDiff] = field(default_factory=list)
    paired: int = 0
    only_this: int = 0
    only_other: int = 0
    legend: list[str] = field(default_factory=list)
    """'LABEL: what that run ran' for each run (``RunIdentity.header_line``)."""
    warnings: list[str] = field(default_factory=list)
    """Settings that differ between the runs and change what a pair means (not the agent: that is compared)."""


PAIRING_FIELDS = ("seed", "world", "user", "setup", "stressors", "stressor_mode", "max_turns", "max_steps")
"""Run settings under which a paired episode is the same episode: its world, stressor draws, user and limits."""


def _pairing_warnings(this: RunStore, other: RunStore) -> list[str]:
    try:
        a, b = this.manifest()["config"], other.manifest()["config"]
    except StoreError:  # hand-built stores have no run manifest
        return []
    return [
        f"{name} differs ({a.get(name)!r} vs {b.get(name)!r}): paired episodes did not run under the same conditions"
        for name in PAIRING_FIELDS
        if a.get(name) != b.get(name)
    ]


def _values(store: RunStore, score_set: str) -> dict[str, dict[str, tuple[str, tuple[float, float] | None]]]:
    """judge -> episode_id -> (task, (sum, units) or None); the newest line of the set wins."""
    out: dict[str, dict[str, tuple[str, tuple[float, float] | None]]] = defaultdict(dict)
    for s in store.iter_scores(score_set):
        out[s.judge][s.episode_id] = (s.task_id, verdict_units(s))
    return out


def _judge_diffs(this: RunStore, this_set: str, other: RunStore, other_set: str, paired: set[str]) -> list[JudgeDiff]:
    """Per judge, both runs' rates over the paired episodes with a verdict in both, counted as each run's headline
    counts them (goals where the judge has a verdict per goal, so state match reads the same here as there)."""
    held = _values(other, other_set)
    # judge -> task -> [sum other, units other, sum this, units this]
    sums: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0, 0.0, 0.0]))
    pairs: dict[str, int] = defaultdict(int)
    seen: dict[str, dict[str, tuple[str, tuple[float, float] | None]]] = defaultdict(dict)
    for s in this.iter_scores(this_set):
        if s.judge in held and s.episode_id in paired:
            seen[s.judge][s.episode_id] = (s.task_id, verdict_units(s))  # newest line wins: sum after the pass
    for judge, by_episode in seen.items():
        for eid, (task, mine) in by_episode.items():
            theirs = held[judge].get(eid, ("", None))[1]
            if mine is not None and theirs is not None:
                cell = sums[judge][task]
                cell[0] += theirs[0]
                cell[1] += theirs[1]
                cell[2] += mine[0]
                cell[3] += mine[1]
                pairs[judge] += 1
    names = sorted(held.keys() & seen.keys(), key=lambda j: (FIRST_JUDGES.index(j) if j in FIRST_JUDGES else 99, j))
    diffs = []
    for judge in names:
        st = paired_ratio_difference([(c[0], c[1], c[2], c[3]) for c in sums[judge].values()])
        diffs.append(JudgeDiff(judge, pairs[judge], st["b"], st["a"], st["diff"], st["ci95"], st["clusters"]))
    return diffs


def column_labels(runs: list[tuple[Path, RunSummary]]) -> list[str]:
    """A column name per run: its label (``--label``, else agent+stressors), never a truncated timestamp; two runs
    with one label are told apart by their run ids."""
    labels = [s.identity.label if s.identity and s.identity.label else s.run_id or d.resolve().name for d, s in runs]
    return distinct_labels(labels, [s.run_id or d.resolve().name for d, s in runs])


def _ids(store: RunStore) -> set[str]:
    return {k.episode_id for k in store.iter_episodes(EpisodeKey)}


def compare_runs(this_dir: Path, this_summary: RunSummary, other_dir: Path, other_summary: RunSummary) -> Comparison:
    """Compare two runs under each one's score set as its summary names it."""
    this, other = RunStore.open_existing(this_dir), RunStore.open_existing(other_dir)
    this_ids, other_ids = _ids(this), _ids(other)
    paired = this_ids & other_ids
    this_name, other_name = column_labels([(this_dir, this_summary), (other_dir, other_summary)])
    cmp = Comparison(this_name, other_name, paired=len(paired))
    cmp.legend = [
        f"{name} = {s.run_id}: {s.identity.header_line()}"
        for name, s in ((this_name, this_summary), (other_name, other_summary))
        if s.identity is not None
    ]
    cmp.only_this, cmp.only_other = len(this_ids - paired), len(other_ids - paired)
    cmp.warnings = _pairing_warnings(this, other)
    del this_ids, other_ids
    this_rows = {r[0]: r for r in headline_rows(this_summary)}
    other_rows = {r[0]: r for r in headline_rows(other_summary)}
    for metric in [*this_rows, *(m for m in other_rows if m not in this_rows)]:
        a, b = this_rows.get(metric), other_rows.get(metric)
        cmp.headline.append([metric, a[1] if a else "—", a[2] if a else "", b[1] if b else "—", b[2] if b else ""])
    this_set = this_summary.score_set or this.newest_score_set()
    other_set = other_summary.score_set or other.newest_score_set()
    cmp.diffs = _judge_diffs(this, this_set, other, other_set, paired)
    return cmp


def _diff_text(d: JudgeDiff) -> tuple[str, str]:
    if d.diff is None:
        return "n/a", ""
    ci = "" if d.ci95 is None else f"[{100 * d.ci95[0]:+.1f}, {100 * d.ci95[1]:+.1f}]"
    return f"{100 * d.diff:+.1f} pts", ci


def paired_line(cmp: Comparison) -> str:
    return (
        f"{cmp.paired} episodes paired by episode_id; {cmp.only_this} only in {cmp.this_name}, "
        f"{cmp.only_other} only in {cmp.other_name}. Δ = {cmp.this_name} − {cmp.other_name} over paired "
        "episodes with a verdict in both, each rate counted as its headline counts it (goals where a judge has a "
        "verdict per goal); 95% interval: paired bootstrap over tasks."
    )


def render_comparison(cmp: Comparison, console: Console) -> None:
    from rich.markup import escape as escape_markup
    from rich.table import Table

    head = Table(title=f"{cmp.this_name} vs {cmp.other_name}", header_style="bold")
    head.add_column("metric")
    for column in (cmp.this_name, "95% CI", cmp.other_name, "95% CI "):
        named = column in (cmp.this_name, cmp.other_name)  # a label wraps; it is never cut to "…"
        head.add_column(column, justify="right", overflow="fold" if named else "ellipsis")
    for row in cmp.headline:
        head.add_row(*row)
    for line in cmp.legend:
        console.print(line, markup=False, highlight=False)
    console.print(head)
    t = Table(title="paired per-episode judges", header_style="bold")
    t.add_column("judge", no_wrap=True)
    for column in ("pairs", "tasks", cmp.this_name, cmp.other_name, "Δ", "95% CI"):
        named = column in (cmp.this_name, cmp.other_name)
        t.add_column(column, justify="right", overflow="fold" if named else "ellipsis")
    for d in cmp.diffs:
        t.add_row(d.judge, str(d.pairs), str(d.tasks), pct(d.this), pct(d.other), *_diff_text(d))
    console.print(t)
    console.print(paired_line(cmp), markup=False, highlight=False)
    for warning in cmp.warnings:
        console.print(f"[yellow]warning:[/] {escape_markup(warning)}")


def comparison_html(cmp: Comparison) -> str:
    header = ["metric", cmp.this_name, "95% CI", cmp.other_name, "95% CI"]
    rows = [[d.judge, str(d.pairs), str(d.tasks), pct(d.this), pct(d.other), *_diff_text(d)] for d in cmp.diffs]
    paired = table(["judge", "pairs", "tasks", cmp.this_name, cmp.other_name, "Δ", "95% CI"], rows, "paired")
    if not rows:
        paired = '<p class="note">No judge has a verdict on an episode both runs hold.</p>'
    return (
        f'<h2 id="compare">Comparison: {escape(cmp.this_name)} vs {escape(cmp.other_name)}</h2>'
        + "".join(f'<p class="note legend">{escape(line)}</p>' for line in cmp.legend)
        + table(header, cmp.headline, "compare")
        + "<h3>Paired per-episode judges</h3>"
        + paired
        + f'<p class="note" id="paired-note">{escape(paired_line(cmp))}</p>'
        + "".join(f'<p class="note warning">Warning: {escape(w)}</p>' for w in cmp.warnings)
    )


def compare_file_name(other_dir: Path) -> str:
    """compare-<other run's folder name>.html, with anything but [A-Za-z0-9._-] replaced."""
    return "compare-" + re.sub(r"[^A-Za-z0-9._-]", "_", other_dir.resolve().name or "other") + ".html"
