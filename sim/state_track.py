"""Records the world's task state around every goal, the agent's beside the gold's, for the state judge.

The gold side is a private world from the pack (same seed) that replays each goal's gold calls straight to the
world: the state the task asks for after that goal. A goal a stressor made a decline keeps its (empty) gold;
where a stressor only rewrote the form of the gold's calls (formats, drifted names: as many calls as before) the
unstressed gold is replayed first, because that is the form the world takes — a world may accept both and store
them differently; where it changed the plan (a backup path, a workaround, a goal that absorbed an earlier
declined one) the stressed gold goes first. Either way the other is tried when the first fails. States
are kept as changes from the episode's start (``sim.core.task_state``), so a trace holds what moved, not the
world. A gold that cannot be replayed leaves ``gold_after`` None: the judge says so instead of guessing.
"""

from __future__ import annotations

from typing import Any

from sim.core import GoalState, GoldCall, Task, ToolCall, World, WorldPack
from sim.core.task_state import changed, task_state


class StateTracker:
    def __init__(self, pack: WorldPack, seed: int, task: Task, world: World, unstressed: Task | None = None) -> None:
        start = task_state(world)
        if start is None:
            raise ValueError("the world has no task state")
        self._start = start
        self._gold_world = pack.new_world(seed)
        self._task = task
        self._unstressed = unstressed if unstressed is not None and len(unstressed.turns) == len(task.turns) else None
        self._gold: dict[str, Any] | None = {}  # the gold world's changes after the goals replayed so far
        self._replayed = 0
        self._open: tuple[int, dict[str, Any]] | None = None
        self.states: list[GoalState] = []

    @classmethod
    def for_world(
        cls, pack: WorldPack, seed: int, task: Task, world: World, unstressed: Task | None = None
    ) -> StateTracker | None:
        """A tracker when the world offers a task state, else None (nothing to judge)."""
        return cls(pack, seed, task, world, unstressed) if task_state(world) is not None else None

    @property
    def in_goal(self) -> bool:
        return self._open is not None

    def begin(self, goal: int, world: World) -> None:
        """The agent's world as ``goal`` starts (after the isolated setup restored the gold state)."""
        self._open = (goal, self._now(world))

    async def end(self, world: World) -> None:
        """Close the goal in progress: the agent's world now, and the gold's after replaying up to this goal."""
        if self._open is None:
            return
        goal, before = self._open
        self._open = None
        gold_before = await self._gold_through(goal - 1)
        gold_after = await self._gold_through(goal)
        self.states.append(
            GoalState(goal=goal, before=before, after=self._now(world), gold_before=gold_before, gold_after=gold_after)
        )

    def _now(self, world: World) -> dict[str, Any]:
        return changed(self._start, task_state(world) or {})

    async def _gold_through(self, goal: int) -> dict[str, Any] | None:
        """The gold world's changes once every goal up to ``goal`` is replayed (goals replay once, in order)."""
        while self._gold is not None and self._replayed <= min(goal, len(self._task.turns) - 1):
            g = self._replayed
            start = self._gold_world.snapshot()
            turn = self._task.turns[g]
            plans = [turn.gold]
            if self._unstressed is not None and turn.outcome != "decline":
                own = self._unstressed.turns[g].gold
                # Same number of calls: a rewrite of form (world form first); else a new plan (stressed first).
                plans = [own, turn.gold] if len(own) == len(turn.gold) else [turn.gold, own]
            done = False
            for plan in plans:
                self._gold_world.restore(start)
                if done := await self._replay(plan, g):
                    break
            if not done:
                self._gold = None  # a broken gold plan: no reference state from here on
                break
            self._replayed += 1
            self._gold = self._now(self._gold_world)
        return None if self._gold is None else dict(self._gold)

    async def _replay(self, calls: list[GoldCall], goal: int) -> bool:
        for i, gold in enumerate(calls):
            call = ToolCall(id=f"state_{goal}_{i}", name=gold.name, arguments=dict(gold.arguments))
            if not (await self._gold_world.call(call)).ok:
                return False
        return True
