"""Mean toolkit size before and after each expansion row over a world's tasks, as the robustness study reports it
(2.7 -> 5.6 tools): "before" is the task's own toolkit (what its goals need or list), "after" what the agent is
offered. Computed offline, without an agent: each row's stressor is built for each task and asked for its toolkit,
from the specs that task's episode offers (``specs_for``: a world whose tasks have their own toolkits builds each
task's world, as an episode does).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import fmean

from sim.core import Task, ToolSpec
from worlds.stressors.catalog import builtin_scenarios, stressor_class
from worlds.stressors.scenario import Scenario
from worlds.stressors.types.expand import ToolkitExpansion, listed_tools, needed_tools


@dataclass(frozen=True)
class SizeRow:
    scenario: str
    tasks: int
    before: float
    """Mean tools of the task's own toolkit."""
    after: float
    """Mean tools offered."""
    short: int
    """Tasks that got fewer related tools than asked (plus_N: the pool lacked them)."""
    pool: str
    """filtered (MiniLM < 0.8 to every original) or why not."""


def expand_rows() -> list[Scenario]:
    return [s for s in builtin_scenarios() if s.type == "expand"]


def toolkit_sizes(
    tasks: Sequence[Task],
    specs: Sequence[ToolSpec],
    rows: Sequence[Scenario] | None = None,
    seed: int = 0,
    specs_for: Callable[[Task], Sequence[ToolSpec]] | None = None,
) -> list[SizeRow]:
    """One row per expansion scenario (default: every built-in one). ``specs``: the world's tools; ``specs_for``:
    the tools a task's episode offers, where that is fewer (default: ``specs``)."""
    world_names = {s.name for s in specs}
    own = [len((set(needed_tools(t)) | listed_tools(t)) & world_names) for t in tasks]
    out: list[SizeRow] = []
    for row in rows if rows is not None else expand_rows():
        offered: list[int] = []
        short = 0
        notes: set[str] = set()
        for task in tasks:
            stressor = stressor_class(row.type)(row, seed, None)
            assert isinstance(stressor, ToolkitExpansion)
            stressor.on_task(task)
            tools, _ = stressor.on_spec(list(specs_for(task) if specs_for else specs), "")
            offered.append(len(tools))
            if stressor.expansion is not None:
                short += stressor.expansion.short > 0
            if stressor.pool_note:
                notes.add(stressor.pool_note)
        pool = "; ".join(sorted(notes)) or "filtered"
        out.append(SizeRow(row.name, len(tasks), fmean(own or [0]), fmean(offered or [0]), short, pool))
    return out
