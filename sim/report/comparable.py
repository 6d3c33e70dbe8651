"""Leaderboards over a folder of mixed runs: one per world and plan, and the runs none can rank, with why.

Runs compare only on the same world and the same planned tasks (``RunInfo.plan``); pooling a folder of several
worlds into one board leaves no episode every row shares, so every row would read n/a. Here runs are split by
(world, plan) first; inside a part, a group (``--by``) whose episodes meet no other group's is set aside, and a part
left with one run has nothing to be ranked against. Each part that still holds two or more runs is ranked by
``sim.report.leaderboard.leaderboard``, unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sim.report.leaderboard import DEFAULT_METRIC, Leaderboard, RunScores, group_name, leaderboard, load_run_scores
from sim.report.run_index import distinct_runs, iter_runs, read_run_info
from sim.store.run_store import MANIFEST, StoreError


@dataclass(frozen=True)
class NotComparable:
    """A run no board ranks, and why."""

    run_id: str
    label: str
    agent: str
    world: str
    plan: str
    reason: str


@dataclass
class WorldBoard:
    world: str
    plan: str
    board: Leaderboard

    def as_dict(self) -> dict[str, Any]:
        return {"world": self.world, "plan": self.plan, **self.board.as_dict()}


@dataclass
class Boards:
    metric: str
    by: str
    boards: list[WorldBoard]
    not_comparable: list[NotComparable]
    notes: list[str] = field(default_factory=list)
    """Folders passed over (a link to a run already counted, a folder that is not a run)."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "by": self.by,
            "boards": [b.as_dict() for b in self.boards],
            "not_comparable": [asdict(n) for n in self.not_comparable],
            "notes": self.notes,
        }


def _set_aside(run: RunScores, reason: str) -> NotComparable:
    i = run.info
    return NotComparable(i.run_id, i.label, i.agent, i.world, i.plan, reason)


def _met(groups: dict[str, set[Any]], name: str) -> int:
    """How many of the other groups' episodes ``name``'s episodes meet, summed."""
    return sum(len(groups[name] & theirs) for other, theirs in groups.items() if other != name)


def _disjoint(runs: list[RunScores], by: str) -> tuple[list[RunScores], list[RunScores]]:
    """(kept, set aside): groups are set aside, the one whose episodes meet the others' least first, until the
    kept groups share an episode."""
    kept = list(runs)
    aside: list[RunScores] = []
    while True:
        groups: dict[str, set[Any]] = {}
        for run in kept:
            groups.setdefault(group_name(run.info, by), set()).update(run.values)
        if len(groups) < 2 or set.intersection(*groups.values()):
            return kept, aside
        worst = min(groups, key=lambda name: (_met(groups, name), len(groups[name]), name))
        aside += [r for r in kept if group_name(r.info, by) == worst]
        kept = [r for r in kept if group_name(r.info, by) != worst]


def split_boards(
    runs: Sequence[RunScores],
    by: str = "agent",
    reference: str | None = None,
    notes: Sequence[str] = (),
    unreadable: Sequence[NotComparable] = (),
    metric: str | None = None,
) -> Boards:
    """One leaderboard per (world, plan) over ``runs`` (see the module docstring); ``unreadable`` joins the runs
    set aside. ``reference`` is used where a board has that group; ValueError when none has it, or on an unknown
    ``by``."""
    metric = metric or next(iter({r.metric for r in runs}), DEFAULT_METRIC)
    aside = list(unreadable)
    parts: dict[tuple[str, str], list[RunScores]] = {}
    for run in runs:
        group_name(run.info, by)  # an unknown --by fails here, before anything is ranked
        if not run.values:
            aside.append(_set_aside(run, f"no verdicts on {metric}"))
        else:
            parts.setdefault((run.info.world, run.info.plan), []).append(run)
    worlds = {world for world, _ in parts}
    boards: list[WorldBoard] = []
    for (world, plan), members in sorted(parts.items()):
        kept, disjoint = _disjoint(members, by)
        shared = f"no episode with a verdict shared with the other runs of {world} ({plan})"
        aside += [_set_aside(r, shared) for r in disjoint]
        if len(kept) < 2:
            aside += [_set_aside(r, shared if disjoint else _alone(world, plan, parts, worlds)) for r in kept]
            continue
        ref = reference if reference in {group_name(r.info, by) for r in kept} else None
        boards.append(WorldBoard(world, plan, leaderboard(kept, by, ref)))
    if reference is not None and boards and all(b.board.reference != reference for b in boards):
        raise ValueError(f"reference {reference!r} is in no leaderboard")
    aside.sort(key=lambda n: (n.world, n.plan, n.run_id))
    return Boards(metric, by, boards, aside, list(notes))


def _alone(world: str, plan: str, parts: dict[tuple[str, str], list[RunScores]], worlds: set[str]) -> str:
    if any(w == world and p != plan for w, p in parts):
        return f"no other run of {world} plans {plan}"
    if len(worlds) > 1:
        return f"the only run of world {world}"
    return "the only run with a verdict: nothing to rank it against"


def load_scores(dirs: Sequence[Path], metric: str = DEFAULT_METRIC) -> tuple[list[RunScores], list[NotComparable]]:
    """Each run's verdicts on ``metric``; a run whose scores cannot be read is not comparable, saying why."""
    loaded: list[RunScores] = []
    broken: list[NotComparable] = []
    for d in dirs:
        try:
            loaded.append(load_run_scores(d, metric))
        except StoreError as exc:
            i = read_run_info(d)
            broken.append(NotComparable(i.run_id, i.label, i.agent, i.world, i.plan, f"scores unreadable: {exc}"))
    return loaded, broken


def run_folders(paths: Sequence[Path]) -> tuple[list[Path], list[str]]:
    """Run folders among ``paths``, a folder of runs standing for its runs (``latest`` and folders that are not
    runs skipped), each once; and a note per path passed over (``distinct_runs``: a glob's extras, such as a world
    imported under ``runs/``, are noted, and StoreError only when no path is or holds a run)."""
    dirs: list[Path] = []
    for path in paths:
        held = [r.path for r in iter_runs(path)] if path.is_dir() and not (path / MANIFEST).is_file() else []
        dirs += held or [path]
    return distinct_runs(dirs)


def load_boards(
    paths: Sequence[Path], metric: str = DEFAULT_METRIC, by: str = "agent", reference: str | None = None
) -> Boards:
    """``split_boards`` over run folders and folders of runs (see ``run_folders``)."""
    kept, notes = run_folders(paths)
    loaded, broken = load_scores(kept, metric)
    return split_boards(loaded, by, reference, notes, broken, metric)
