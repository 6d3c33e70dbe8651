"""The isolated setup: before each turn the world and the history the agent sees are the gold ones.

The reference study measures each turn in two setups. Cumulative (the default) lets the agent live with its own
calls across the conversation, so one mistake can sink every later turn. Isolated measures each turn as if every
earlier turn had gone right:

- World: a private gold world (a fresh world from the pack, same seed) replays turn t-1's primary gold path when
  turn t starts; the agent's world is then restored to that world's snapshot. Deterministic, and the agent's
  world at turn t is exactly the state the gold path of turns 0..t-1 leaves.
- History: for each earlier turn, the user message the user actually sent, the gold calls with their real results
  from that replay, and a gold reply: the turn's ``gold_answer`` when set, else an acknowledgement naming the calls
  made (``gold_reply``). The agent's own earlier events stay in the trace (the record of what it did) but are not
  in what it is handed.
- Marking: replayed events are recorded in the trace with ``replayed=True`` and the turn they replay, right before
  the next user message; judges skip them (``Event.replayed``), so gold is never credited to the agent.
- Stressors: replay goes straight to the world, never through ``on_call``: replayed calls are not the agent's, so a
  stressor neither perturbs them nor counts them (an outage still picks its target from the agent's own first
  call). The replayed gold is the task as the episode runs it (after ``on_task``), the same gold the judges use,
  so it is in the form the agent reads: a stressor with ``on_replay`` (``sim.core.ReplayHook``: a format rule, a
  newer schema, a prerequisite) turns each replayed call into the world's own, in ``on_call`` order; the trace and
  the history keep the documented form.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

from sim.core import (
    DualControlWorld,
    Event,
    Goal,
    ReplayHook,
    Stressor,
    Task,
    ToolCall,
    ToolSpec,
    World,
    WorldContext,
    WorldPack,
)
from sim.core.call_ids import invented_call_id
from sim.episode.world_events import EventSchedule, scheduled_changes

Setup = Literal["cumulative", "isolated"]


class GoldReplayError(RuntimeError):
    """A gold call failed on replay: the task's gold plan (or the world) is broken — a harness fault."""


def gold_reply(turn: Goal) -> str:
    """The assistant reply a gold history shows for ``turn``."""
    if turn.gold_answer:
        return turn.gold_answer
    names = list(dict.fromkeys(call.name for call in turn.gold))
    return f"Done: called {', '.join(names)}." if names else "Done."


def isolated_history(events: Iterable[Event], goal: int | None = None) -> list[Event]:
    """What the agent is handed in the isolated setup: every user message so far, the replayed gold, and the
    agent's own events of the goal now pursued (a goal may take several turns: a question, its answer)."""
    return [
        ev for ev in events if ev.kind == "user_message" or ev.replayed or (goal is not None and ev.goal_index == goal)
    ]


class GoldHistory:
    """Keeps a gold world one turn behind the conversation and replays each finished turn into the trace."""

    def __init__(
        self,
        pack: WorldPack,
        seed: int,
        task: Task,
        specs: Sequence[ToolSpec],
        record: Callable[[Event], None],
        clock: Callable[[], float],
        context: WorldContext | None = None,
        stressors: Sequence[Stressor] = (),
    ) -> None:
        self._world = pack.new_world(seed, context)  # built as the agent's world is: same task, same handle
        self._hooks = [s for s in stressors if isinstance(s, ReplayHook)]  # on_call order: outermost first
        self._events = EventSchedule(scheduled_changes(stressors))  # the gold world meets the agent's world events
        self._task = task
        self._read_only = {s.name: s.read_only for s in specs}
        self._record = record
        self._clock = clock
        self._replayed = 0  # turns replayed so far
        self._calls = 0  # gold calls replayed so far: each one's id (sent to the model in its history) is its number

    async def before_turn(self, turn: int, world: World) -> None:
        """Replay the goals (task turns) before ``turn`` not yet replayed, then put the agent's world in the gold
        state. Called when the user moves to a new goal, not on every conversation turn."""
        if turn == 0:
            return  # both worlds start fresh from the same pack and seed
        while self._replayed < min(turn, len(self._task.goals)):  # a user may talk past the plan
            await self._replay(self._replayed)
            self._replayed += 1
        world.restore(self._world.snapshot())

    async def _replay(self, t: int) -> None:
        turn = self._task.goals[t]
        user_side = self._world if isinstance(self._world, DualControlWorld) else None
        i = -1
        for by_user, gold in turn.acts(turn.gold):
            if by_user:  # dual control: the user's own act in its place, on the user's side, recorded as the user's
                if user_side is None:
                    raise GoldReplayError(f"task {self._task.id}: turns.{t}: a user act, but the world gives none")
                await self._replay_user_act(t, gold.name, gold.arguments, user_side)
                continue
            i += 1
            call = ToolCall(id=invented_call_id(self._calls, "gold"), name=gold.name, arguments=dict(gold.arguments))
            self._calls += 1
            native = call
            try:
                for hook in self._hooks:
                    native = hook.on_replay(native, t)
            except ValueError as error:  # gold a stressor's own rule refuses: the rewrite is broken
                raise GoldReplayError(
                    f"task {self._task.id}: turns.{t} gold call {i} ({gold.name}): {error}"
                ) from error
            read_only = self._read_only.get(native.name, self._read_only.get(call.name))
            if self._events:
                self._events.before_call(self._world, t)
            # One step per call: gold paths are sequential (a later call may use an earlier lookup).
            self._record(
                Event(
                    kind="tool_call",
                    turn=t,
                    goal=t,
                    step=i + 1,
                    t=self._clock(),
                    call=call,
                    read_only=read_only,
                    replayed=True,
                )
            )
            result = await self._world.call(native)
            if not result.ok:
                raise GoldReplayError(f"task {self._task.id}: turns.{t} gold call {i} ({gold.name}): {result.status}")
            self._record(
                Event(
                    kind="tool_result",
                    turn=t,
                    goal=t,
                    step=i + 1,
                    t=self._clock(),
                    call=call,
                    result=result,
                    replayed=True,
                )
            )
        self._record(
            Event(kind="agent_message", turn=t, goal=t, t=self._clock(), content=gold_reply(turn), replayed=True)
        )

    async def _replay_user_act(self, t: int, name: str, arguments: dict[str, Any], user: DualControlWorld) -> None:
        call = ToolCall(id=invented_call_id(self._calls, "gold"), name=name, arguments=dict(arguments))
        self._calls += 1
        self._record(Event(kind="user_tool_call", turn=t, goal=t, t=self._clock(), call=call, replayed=True))
        result = await user.user_call(call)
        if not result.ok:
            raise GoldReplayError(f"task {self._task.id}: turns.{t} user act {name}: {result.status}")
        self._record(
            Event(kind="user_tool_result", turn=t, goal=t, t=self._clock(), call=call, result=result, replayed=True)
        )
