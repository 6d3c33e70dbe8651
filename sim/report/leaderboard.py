"""Many runs ranked on one judge: runs → rows, pure (no printing), for ``squall leaderboard``, ``squall report A B
C`` and the viewer.

Runs are grouped by a field of their identity (``agent``, ``run``, ``label``, ``world``, ...); a group's verdict on
an episode is the mean of its runs' verdicts on it. A judge with a verdict per goal (core API accuracy, state match)
counts goals, as the run's headline does: an episode weighs by its goals with a verdict, so a row's score over
the same episodes is the number its run's headline shows, not a mean of episode means.

Episodes are keyed by (world, episode_id) — the same task, variant, user and trial — and only the episodes every
group has a verdict on (the shared ones) are ranked, so every row is measured on the same episodes: each row's
score on them, its 95% interval (percentile bootstrap resampling whole shared tasks, as a task's episodes are not
independent draws), and its difference from the reference row (the leader unless one is named) with a paired 95%
interval (the same bootstrap, each task's pairs resampled together). Each row also shows its score over all of its
own episodes, for reference.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, cast

from judges.common.stats import BOOTSTRAP_RESAMPLES, cluster_bootstrap, paired_ratio_difference
from judges.names import JudgeName
from sim.core import Score
from sim.report.run_index import RunInfo, read_run_info
from sim.store.run_store import RunStore

GROUP_FIELDS = ("agent", "run", "run_id", "label", "world", "user", "stressors", "sweep")
"""What ``--by`` may group runs by: a field of ``RunInfo`` (``run``: each run alone, named by its label or else its
id; runs that share a label pool — ``run_id`` keeps them apart)."""
DEFAULT_METRIC = JudgeName.CORE_API_ACCURACY
INTERVAL_NOTE = (
    "Δ = row − {reference}. 95% intervals: bootstrap over tasks ({resamples} resamples), Δ's paired (a task's "
    "episodes in both rows drawn together)."
)

EpisodeKey = tuple[str, str]
"""(world, episode_id): the same episode across runs."""


@dataclass
class RunScores:
    """One run's verdicts on one judge: episode → (task, sum of verdicts, units: goals or 1); episodes without a
    verdict are absent."""

    info: RunInfo
    metric: str
    values: dict[EpisodeKey, tuple[str, float, float]] = field(default_factory=dict)


@dataclass(frozen=True)
class LeaderRow:
    rank: int
    name: str
    runs: list[str]
    own_episodes: int
    own_score: float | None
    shared_episodes: int
    score: float | None
    ci95: tuple[float, float] | None
    delta: float | None
    """This row − the reference row on the shared episodes (None for the reference itself)."""
    delta_ci95: tuple[float, float] | None


@dataclass
class Leaderboard:
    metric: str
    by: str
    reference: str | None
    shared_episodes: int
    shared_tasks: int
    rows: list[LeaderRow]
    note: str
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def load_run_scores(run_dir: Path, metric: str = DEFAULT_METRIC, score_set: str | None = None) -> RunScores:
    """The verdicts of ``metric`` in a run's score set (default: its newest); the newest line of an episode wins.
    StoreError when the folder is not a run or the score set is unknown."""
    info = read_run_info(run_dir)
    store = RunStore.open_existing(info.path)
    chosen = store.find_score_set(score_set) if score_set else store.newest_score_set()
    values: dict[EpisodeKey, tuple[str, float, float] | None] = {}
    for score in store.iter_scores(chosen):
        if score.judge == metric:  # the newest line of an episode wins, a later "no verdict" too
            counted = verdict_units(score)
            values[(info.world, score.episode_id)] = None if counted is None else (score.task_id, *counted)
    return RunScores(info, metric, {k: v for k, v in values.items() if v is not None})


def verdict_units(score: Score) -> tuple[float, float] | None:
    """(sum of verdicts, units) of one episode's score: its goals with a verdict where the judge has a verdict per
    goal, else its one value; None without a verdict. The unit a run's headline counts."""
    goals = [v for v in score.per_goal if v is not None]
    if goals:
        return float(sum(goals)), float(len(goals))
    if score.value is None:
        return None
    return float(score.value), 1.0


def group_name(info: RunInfo, by: str) -> str:
    if by == "run":
        return info.name
    if by not in GROUP_FIELDS:
        raise ValueError(f"--by {by!r}: use one of {', '.join(GROUP_FIELDS)}")
    return str(getattr(info, by) or "—")


@dataclass
class _Group:
    name: str
    runs: list[str] = field(default_factory=list)
    sums: dict[EpisodeKey, list[float]] = field(default_factory=dict)
    """episode → [sum of verdicts, units, runs with a verdict]."""
    tasks: dict[EpisodeKey, tuple[str, str]] = field(default_factory=dict)
    """episode → (world, task): the cluster it is resampled with."""

    def add(self, run: RunScores) -> None:
        self.runs.append(run.info.run_id)
        for key, (task, total, units) in run.values.items():
            cell = self.sums.setdefault(key, [0.0, 0.0, 0.0])
            cell[0] += total
            cell[1] += units
            cell[2] += 1
            self.tasks[key] = (key[0], task)

    def counted(self, key: EpisodeKey) -> tuple[float, float]:
        """(sum, units) of an episode, averaged over the group's runs that judged it."""
        total, units, runs = self.sums[key]
        return total / runs, units / runs

    def score(self, keys: Iterable[EpisodeKey]) -> float | None:
        sums = [self.counted(k) for k in keys]
        units = sum(u for _, u in sums)
        return round(sum(t for t, _ in sums) / units, 4) if units else None


def _by_task(group: _Group, keys: Iterable[EpisodeKey]) -> dict[tuple[str, str], list[float]]:
    """task → [sum of this group's verdicts, units] over ``keys``."""
    out: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    for key in keys:
        total, units = group.counted(key)
        cell = out[group.tasks[key]]
        cell[0] += total
        cell[1] += units
    return out


def _pairing_warnings(runs: Sequence[RunScores]) -> list[str]:
    seeds = {r.info.seed for r in runs}
    trials = {r.info.trials for r in runs}
    out = []
    if len(seeds) > 1:
        out.append(f"root seeds differ ({sorted(map(str, seeds))}): paired episodes did not draw the same randomness")
    if len(trials) > 1:
        out.append(f"trials differ ({sorted(map(str, trials))}): only the trials every group ran are shared")
    return out


def _or_below(score: float | None) -> float:
    return -1.0 if score is None else score


def leaderboard(
    runs: Sequence[RunScores], by: str = "agent", reference: str | None = None, resamples: int = BOOTSTRAP_RESAMPLES
) -> Leaderboard:
    """Rank the groups of ``runs`` on their metric over the episodes every group has a verdict on. ``reference``
    names the group Δ is taken against (default: the leader). ValueError on an unknown ``by`` or ``reference``,
    or runs of different metrics."""
    metrics = {r.metric for r in runs}
    if len(metrics) > 1:
        raise ValueError(f"runs scored on different metrics: {sorted(metrics)}")
    metric = next(iter(metrics), DEFAULT_METRIC)
    groups: dict[str, _Group] = {}
    for run in runs:
        name = group_name(run.info, by)
        groups.setdefault(name, _Group(name)).add(run)
    if reference is not None and reference not in groups:
        raise ValueError(f"reference {reference!r} is not one of {sorted(groups)}")
    shared: set[EpisodeKey] = set.intersection(*(set(g.sums) for g in groups.values())) if groups else set()
    ordered = sorted(shared)
    per_task = {name: _by_task(g, ordered) for name, g in groups.items()}
    tasks = sorted({g.tasks[k] for g in groups.values() for k in ordered})
    scores = {name: g.score(ordered) for name, g in groups.items()}
    ranked = sorted(groups, key=lambda n: (-_or_below(scores[n]), n))
    ref = reference if reference is not None else (ranked[0] if ranked else None)
    rows = []
    for rank, name in enumerate(ranked, 1):
        g = groups[name]
        mine = per_task[name]
        ci = cluster_bootstrap([(mine[t][0], mine[t][1]) for t in tasks], resamples=resamples)
        delta = delta_ci = None
        if ref is not None and name != ref:
            theirs = per_task[ref]
            clusters = [(*theirs[t], *mine[t]) for t in tasks]
            paired = paired_ratio_difference(cast(list[tuple[float, float, float, float]], clusters), resamples)
            delta, delta_ci = paired["diff"], paired["ci95"]
        own = g.score(g.sums)
        rows.append(LeaderRow(rank, name, g.runs, len(g.sums), own, len(ordered), scores[name], ci, delta, delta_ci))
    warnings = _pairing_warnings(runs)
    if groups and not shared:
        warnings.append("no episode has a verdict in every group: nothing is ranked (different worlds or tasks?)")
    note = INTERVAL_NOTE.format(resamples=resamples, reference=ref or "the leader")
    return Leaderboard(metric, by, ref, len(ordered), len(tasks), rows, note, warnings)


def leaderboard_of_dirs(
    run_dirs: Sequence[Path], metric: str = DEFAULT_METRIC, by: str = "agent", reference: str | None = None
) -> Leaderboard:
    """``leaderboard`` over run folders (each under its newest score set)."""
    return leaderboard([load_run_scores(d, metric) for d in run_dirs], by, reference)
