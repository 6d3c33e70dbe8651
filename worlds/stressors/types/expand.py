"""Toolkit expansion: a closed world of ``size`` tools, where the ones the task needs sit among related-but-different
ones.

The toolkit holds exactly ``max(size, needed)`` tools: every tool the task names on any solution path of any goal
(core and support, primary and backup paths), then the most related tools of the world's pool, in a seeded order so
the needed ones are not always first. The pool is the world's other tools plus synthetic neighbours (a scheduled or
dry-run version of an action, the history or export of a lookup...): from the world's shipped catalog, filtered so
no neighbour's signature has embedding similarity >= 0.8 to an original's, or, for a world without one, written on
the fly from its specs and ranked by word overlap, UNFILTERED (``worlds.stressors.expand.toolkit``).

Synthetic tools are answered by the stressor itself (honestly for what they claim, never reaching the world, which
stays unchanged) and carry a correct ``read_only``: a successful non-read-only call is an extra core call for the
judges. World tools left out of the closed world are not callable (the runtime refuses calls outside the toolkit).
Gold is untouched.

The world's name comes from ``on_task`` (``Task.world``), which the episode runs before ``on_spec``: no protocol
change, and the catalog must also describe the specs it is handed, or the fallback is used. Stressors compose: tools
the catalog does not know (decoys an earlier stressor added) are kept; a needed tool an earlier stressor renamed
(schema drift) keeps its documented original. Gold a LATER stressor adds (a prerequisite lookup) is unseen here, so
in a stack this stressor belongs last.

Relative expansion (``expand.plus_N``, the robustness study's, seed 004): row param ``plus`` instead of ``size``. The
closed world is the task's own toolkit (the tools its goals need or list in ``Goal.tools``) plus ``plus`` synthetic
neighbours of those tools, from a pool filtered as the shipped catalogs are for EVERY world (a world without a shipped
catalog gets one built from its specs and cached on disk), ranked by BM25 and unfiltered where the ``[embed]`` extra
is absent (``worlds.stressors.expand.plus``, ``worlds.stressors.expand.related``). ``ranker`` (auto, embedding,
lexical) picks the pool's ranking, as tool search's does. A task that lists its own toolkit (``Goal.tools``) in a
world with more functions than its episode offers (BFCL's single-turn entries: each entry's functions) gets the
world's other functions as its related tools instead of synthetic ones, filtered the same way and answered by the
stressor with a neutral ``{"status": "ok"}``.

Row params: ``size``, the closed world's size; or ``plus``, how many related tools to add to the own toolkit.
"""

from __future__ import annotations

import random
from typing import Any

from sim.core import CallContext, CallNext, CallOutcome, Task, ToolCall, ToolSpec
from worlds.stressors.expand.answers import synthetic_answer
from worlds.stressors.expand.plus import PlusToolkit, choose_plus
from worlds.stressors.expand.related import related_pool, world_tools
from worlds.stressors.expand.toolkit import Toolkit, choose_toolkit, pool_for
from worlds.stressors.scenario import Scenario, ScenarioStressor


def needed_tools(task: Task) -> dict[str, frozenset[str]]:
    """Every tool named on any path of any goal, in first-use order, with the argument names its gold passes."""
    needed: dict[str, frozenset[str]] = {}
    for goal in task.goals:
        for path in goal.paths():
            for call in path:
                needed[call.name] = needed.get(call.name, frozenset()) | set(call.arguments)
    return needed


def listed_tools(task: Task) -> frozenset[str]:
    """Every tool a goal of the task lists in ``Goal.tools`` (a goal that lists none offers the whole toolkit)."""
    return frozenset(name for goal in task.goals for name in goal.tools or ())


def _count(name: str, params: dict[str, Any], key: str) -> int:
    value = params.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name}: {key} must be a positive integer, got {value!r}")
    return value


class ToolkitExpansion(ScenarioStressor):
    """Offers a closed world of ``size`` related tools, or the own toolkit and ``plus`` related tools, and answers
    the synthetic ones itself."""

    def __init__(self, scenario: Scenario, seed: int, overrides: dict[str, Any] | None = None) -> None:
        super().__init__(scenario, seed, overrides)
        self.seed = seed
        if ("size" in self.params) == ("plus" in self.params):
            raise ValueError(f"{self.name}: give exactly one of size (a closed world's size) and plus (tools added)")
        self.size = _count(self.name, self.params, "size") if "size" in self.params else None
        self.plus = _count(self.name, self.params, "plus") if "plus" in self.params else None
        self.ranker = str(self.params.get("ranker", "auto"))
        self.world: str | None = None
        self.needed: dict[str, frozenset[str]] = {}
        self.listed: frozenset[str] = frozenset()
        self.expansion: PlusToolkit | None = None
        """plus_N: the own toolkit and how many related tools were added."""
        self.pool_note: str | None = None
        """Why the pool is not the similarity-filtered one (None when it is)."""
        self.toolkit = Toolkit(specs=[], offered={}, hidden=frozenset())
        self.sources: dict[str, ToolSpec] = {}
        self.issued = 0

    def on_task(self, task: Task) -> Task:
        self.world = task.world
        self.needed = needed_tools(task)
        self.listed = listed_tools(task)
        return task

    def on_spec(self, specs: list[ToolSpec], instructions: str) -> tuple[list[ToolSpec], str]:
        rng = random.Random(f"{self.name}:{self.seed}:toolkit")  # the same toolkit however often it is asked
        if self.plus is not None:
            # A task with its own toolkit: the world's functions its episode lacks are its related tools.
            world = (world_tools(self.world) if self.world and self.listed else None) or ()
            offered, in_world = {s.name for s in specs}, {s.name for s in world}
            absent = [s for s in world if s.name not in offered]
            if absent:  # one pool per world (the same specs for every task), and what an earlier stressor added
                pooled = [*world, *(s for s in specs if s.name not in in_world)]
                pool, self.pool_note = related_pool(self.world, pooled, self.ranker, templated=False)
            else:
                pool, self.pool_note = related_pool(self.world, specs, self.ranker)
            self.expansion = choose_plus(specs, self.needed, self.listed, pool, self.plus, rng, absent)
            self.toolkit = self.expansion.toolkit
        else:
            assert self.size is not None  # one of the two, checked when built
            sized = pool_for(self.world, specs)
            self.pool_note = None if sized.filtered else "no shipped catalog: word-overlap ranking, unfiltered"
            self.toolkit = choose_toolkit(specs, self.needed, sized, self.size, rng)
        self.sources = {s.name: s for s in specs}
        return list(self.toolkit.specs), instructions

    async def on_call(self, call: ToolCall, ctx: CallContext, next: CallNext) -> CallOutcome:
        candidate = self.toolkit.offered.get(call.name)
        if candidate is not None:
            self.issued += 1
            answer = synthetic_answer(call, candidate, self.sources.get(candidate.source), self.issued)
            return CallOutcome.answered(answer, self.name)
        return await next(call)


STRESSOR = ToolkitExpansion
