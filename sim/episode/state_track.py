"""Records the world's task state around every goal, the agent's beside the gold's, for the state judge.

While the episode runs only the agent's side is taken: its world's changes when each goal begins and ends. The gold
side is computed once the episode is over, by a private world from the pack (same seed) that replays each goal's
gold calls straight to the world: the state the task asks for after that goal. So an episode in flight holds a few
changed paths, never a second world. A goal a stressor made a decline keeps its (empty) gold; where a stressor only
rewrote the form of the gold's calls (formats, drifted names: as many calls as before) the unstressed gold is
replayed first, because that is the form the world takes — a world may accept both and store them differently; where
it changed the plan (a backup path, a workaround, a goal that absorbed an earlier declined one) the stressed gold
goes first. Either way the other is tried when the first fails. States are kept as the world reports them, changes
from its base data (``sim.core.task_state``), so a trace holds what moved, not the world. A gold that cannot be
replayed leaves ``gold_after`` None from that goal on: the judge says so instead of guessing.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from sim.core import (
    DualControlWorld,
    GoalState,
    GoldCall,
    ReplayHook,
    Task,
    ToolCall,
    World,
    WorldChange,
    WorldContext,
    WorldPack,
)
from sim.core.task_state import moved, task_state
from sim.episode.world_events import EventSchedule

GOLD_CACHE_SIZE = 4096
GoalStates = list[dict[str, Any] | None]
"""The gold world's changes after each goal (None from a goal whose gold could not be replayed)."""


class GoldStateCache:
    """(pack, fingerprint of the task's gold) -> the gold's states after each goal: least recently used dropped first.

    Owned by whoever plays many episodes of one pack (a run's session) and handed to each episode, so episodes of
    the same task and stressed gold replay it once. The pack is kept in the value, so its id cannot be taken by
    another pack while the entry lives."""

    def __init__(self, size: int = GOLD_CACHE_SIZE) -> None:
        self._size = size
        self._entries: OrderedDict[tuple[int, str], tuple[WorldPack, GoalStates]] = OrderedDict()
        self._fingerprints: dict[tuple[int, int], tuple[Task, Task | None, str]] = {}

    def get(self, pack: WorldPack, fingerprint: str) -> GoalStates | None:
        key = (id(pack), fingerprint)
        hit = self._entries.get(key)
        if hit is None or hit[0] is not pack:
            return None
        self._entries.move_to_end(key)
        return hit[1]

    def put(self, pack: WorldPack, fingerprint: str, states: GoalStates) -> None:
        self._entries[(id(pack), fingerprint)] = (pack, states)
        if len(self._entries) > self._size:
            self._entries.popitem(last=False)

    def fingerprint(self, task: Task, unstressed: Task | None) -> str:
        """``_fingerprint`` of the pair, kept by identity for a task no stressor rewrote: the episodes of a task
        (every trial) share its object, and dumping it was a visible share of an episode's end. A rewritten task is
        the episode's own: never kept (it would only hold memory). The task is kept in the value, so its id cannot
        be taken by another while the entry lives."""
        if unstressed is not None and unstressed is not task:
            return _fingerprint(task, unstressed)
        key = (id(task), id(unstressed))
        hit = self._fingerprints.get(key)
        if hit is not None and hit[0] is task and hit[1] is unstressed:
            return hit[2]
        found = _fingerprint(task, unstressed)
        self._fingerprints[key] = (task, unstressed, found)
        if len(self._fingerprints) > self._size:
            del self._fingerprints[next(iter(self._fingerprints))]
        return found


def _fingerprint(task: Task, unstressed: Task | None) -> str:
    """What decides the gold's states: every goal's plans, stressed and not, and outcomes."""
    shape: dict[str, Any] = {"goals": {"__all__": {"gold", "user_gold", "outcome"}}}
    return task.model_dump_json(include=shape) + (
        unstressed.model_dump_json(include=shape) if unstressed is not None else ""
    )


def _compact(state: GoalState, whole: bool) -> GoalState:
    """Only the paths the goal is judged on: those the gold or the agent moved in it (a path left out is as at the
    base in both states, so nothing the judge computes changes). States grow with the goals before them; kept
    whole, a five-goal conversation stored each change up to twenty times. The last goal is kept whole: the end
    state is judged on it (and a before state cut short would make every earlier change look new)."""
    if whole or state.gold_before is None or state.gold_after is None:
        return state
    paths = moved(state.gold_before, state.gold_after) | moved(state.before, state.after)

    def only(values: dict[str, Any]) -> dict[str, Any]:
        return {p: v for p, v in values.items() if p in paths}

    return GoalState(
        goal=state.goal,
        before=only(state.before),
        after=only(state.after),
        gold_before=only(state.gold_before),
        gold_after=only(state.gold_after),
    )


class StateTracker:
    def __init__(
        self,
        pack: WorldPack,
        seed: int,
        task: Task,
        world: World,
        unstressed: Task | None = None,
        cache: GoldStateCache | None = None,
        context: WorldContext | None = None,
        world_changes: tuple[WorldChange, ...] = (),
        replay_hooks: tuple[ReplayHook, ...] = (),
    ) -> None:
        self._pack, self._seed, self._context = pack, seed, context
        self._changes = world_changes
        """Timed world events: the gold world meets them at the same point of each goal as the agent's did."""
        self._hooks = replay_hooks
        """The stressors that turn a gold call into the world's own (``ReplayHook``), in ``on_call`` order: a goal an
        event happens in replays only its gold for the changed world, in the world's form."""
        self._cache = cache
        self._task = task
        self._unstressed = unstressed if unstressed is not None and len(unstressed.goals) == len(task.goals) else None
        self._open: tuple[int, dict[str, Any]] | None = None
        self._agent: list[tuple[int, dict[str, Any], dict[str, Any]]] = []  # (goal, before, after)

    @classmethod
    def for_world(
        cls,
        pack: WorldPack,
        seed: int,
        task: Task,
        world: World,
        unstressed: Task | None = None,
        cache: GoldStateCache | None = None,
        context: WorldContext | None = None,
        world_changes: tuple[WorldChange, ...] = (),
        replay_hooks: tuple[ReplayHook, ...] = (),
    ) -> StateTracker | None:
        """A tracker when the world offers a task state, else None (nothing to judge): build trackers this way.
        ``cache``: the gold states of earlier episodes (None: every episode replays its own gold); ``context``: the
        one the episode built its world from; the gold's world is built from it too."""
        if task_state(world) is None:
            return None
        return cls(pack, seed, task, world, unstressed, cache, context, world_changes, replay_hooks)

    @property
    def in_goal(self) -> bool:
        return self._open is not None

    def begin(self, goal: int, world: World) -> None:
        """The agent's world as ``goal`` starts (after the isolated setup restored the gold state)."""
        self._open = (goal, self._now(world))

    def end(self, world: World) -> None:
        """Close the goal in progress: the agent's world now."""
        if self._open is not None:
            goal, before = self._open
            self._agent.append((goal, before, self._now(world)))
            self._open = None

    async def states(self) -> list[GoalState]:
        """Every closed goal's states, the gold's computed now (replayed in goal order, each goal once)."""
        if not self._agent:
            return []
        last = min(max(g for g, _, _ in self._agent), len(self._task.goals) - 1)
        after = await self._gold_states(last)
        out = []
        for i, (goal, before, now) in enumerate(self._agent):
            gold_before = {} if goal == 0 else after[goal - 1] if goal - 1 < len(after) else None
            gold_after = after[goal] if goal < len(after) else None
            state = GoalState(goal=goal, before=before, after=now, gold_before=gold_before, gold_after=gold_after)
            out.append(_compact(state, whole=i == len(self._agent) - 1))
        return out

    async def _gold_states(self, last: int) -> GoalStates:
        """The gold's changes after each goal up to ``last``. Where every world of the pack is the same whatever the
        seed and task, the whole task's are computed once and kept in the cache for the episodes of the same task and
        stressed gold."""
        # getattr, not isinstance(pack, SharedWorldPack): a runtime Protocol check per episode costs more than this.
        # An episode with world events replays its own: the cache's key is the gold, and the events change the world.
        shared = getattr(self._pack, "same_world_every_seed", False) is True and not self._changes
        if self._cache is None or not shared:
            return await self._replay_goals(last)
        fingerprint = self._cache.fingerprint(self._task, self._unstressed)
        states = self._cache.get(self._pack, fingerprint)
        if states is None:
            states = await self._replay_goals(len(self._task.goals) - 1)
            self._cache.put(self._pack, fingerprint, states)
        return [None if a is None else dict(a) for a in states[: last + 1]]

    async def _replay_goals(self, last: int) -> GoalStates:
        gold_world = self._pack.new_world(self._seed, self._context)
        gold: dict[str, Any] | None = self._now(gold_world)
        after: GoalStates = []
        events = EventSchedule(self._changes)
        for g in range(last + 1):
            if gold is not None:
                gold, events = await self._replay_goal(gold_world, g, events)
            after.append(gold)
        return after

    @staticmethod
    def _now(world: World) -> dict[str, Any]:
        return task_state(world) or {}

    async def _replay_goal(
        self, world: World, g: int, events: EventSchedule
    ) -> tuple[dict[str, Any] | None, EventSchedule]:
        """The gold world's changes once goal ``g`` is replayed (None when no plan of it goes through), and the events
        still to come."""
        turn = self._task.goals[g]
        plans = [turn.gold]
        if any(c.goal == g for c in self._changes):
            # A goal an event happens in: only the plan for the changed world (the old one may still go through,
            # wrongly), in the world's form.
            plans = [[c.model_copy(update={"name": n.name, "arguments": n.arguments}) for c, n in self._native(g)]]
        elif self._unstressed is not None and turn.outcome != "decline":
            own = self._unstressed.goals[g].gold
            # Same number of calls: a rewrite of form (world form first); else a new plan (stressed first).
            plans = [own, turn.gold] if len(own) == len(turn.gold) else [turn.gold, own]
            if plans[0] == plans[1]:  # the stressors left this goal alone (and every goal of an unstressed run)
                plans = plans[:1]
        start = world.snapshot() if len(plans) > 1 else None  # a snapshot and restore cost more than the replay
        for plan in plans:
            if start is not None:
                world.restore(start)
            tried = events.fork() if events else events
            if await self._replay(world, turn.acts(plan), g, tried):
                return self._now(world), tried
        return None, events

    def _native(self, g: int) -> list[tuple[GoldCall, ToolCall]]:
        """Goal ``g``'s gold, each call beside the world's own form of it (``ReplayHook.on_replay``)."""
        pairs = []
        for i, gold in enumerate(self._task.goals[g].gold):
            native = ToolCall(id=f"state_{g}_{i}", name=gold.name, arguments=dict(gold.arguments))
            for hook in self._hooks:
                native = hook.on_replay(native, g)
            pairs.append((gold, native))
        return pairs

    @staticmethod
    async def _replay(world: World, acts: list[tuple[bool, GoldCall]], goal: int, events: EventSchedule) -> bool:
        """The plan's calls in order, the user's own among them (dual control): what the user does on its side
        may change the agent's (a bill paid on the phone). Events count the agent's calls only."""
        for i, (by_user, gold) in enumerate(acts):
            if events and not by_user:
                events.before_call(world, goal)
            call = ToolCall(id=f"state_{goal}_{i}", name=gold.name, arguments=dict(gold.arguments))
            if not by_user:
                result = await world.call(call)
            elif isinstance(world, DualControlWorld):
                result = await world.user_call(call)
            else:
                return False  # a user act this world cannot replay: the gold's state is unknown
            if not result.ok:
                return False
        return True
