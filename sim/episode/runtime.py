"""The agent's only way to touch the world: stressors, the world, and the event record."""

from __future__ import annotations

import difflib
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence

from sim.core import (
    CallContext,
    CallOutcome,
    Event,
    FaultKind,
    Stressor,
    ToolCall,
    ToolResult,
    ToolSpec,
    Usage,
    World,
    WorldChange,
    failure,
    through_stressors,
)
from sim.core.call_ids import invented_call_id
from sim.episode.world_events import EventSchedule, event_record
from sim.llm.errors import StepLimitReached
from sim.llm.gateway import EpisodeLLM

Dispatch = Callable[[ToolCall, CallContext], Awaitable[CallOutcome]]


def chain(
    stressors: Sequence[Stressor], world: World, callable_names: Callable[[], frozenset[str]] | None = None
) -> Dispatch:
    """Compose on_call hooks: the first stressor sees the agent's call first, the world sees it last.

    A call that reaches the bottom naming no tool the agent may call now is refused there, not run: a tool the
    toolkit hides this turn (missing, closed-world) must not work, while a name a stressor translates (a renamed
    endpoint) may. Without ``callable_names`` the world decides alone.

    The context and the outcome are values made per call (not shared state), so concurrent calls stay apart.
    """

    async def last_stop(call: ToolCall) -> CallOutcome:
        return await reach_callable(world, None if callable_names is None else callable_names(), call)

    async def dispatch(call: ToolCall, ctx: CallContext) -> CallOutcome:
        return await through_stressors(stressors, call, ctx, last_stop)

    return dispatch


async def reach_callable(world: World, names: frozenset[str] | None, call: ToolCall) -> CallOutcome:
    """The bottom of the chain: ``call`` run on ``world``, or refused when ``names`` (callable now) lacks it."""
    if names is not None and call.name not in names:
        close = difflib.get_close_matches(call.name, sorted(names), n=3, cutoff=0.6)
        hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
        message = f"Unknown function '{call.name}'. Call one of the listed tools.{hint}"
        return CallOutcome(result=failure(call, "not_found", "unknown_tool", message), unknown_tool=True)
    return CallOutcome.from_world(call, await world.call(call))


class EpisodeRuntime:
    """Implements AgentRuntime for one episode; the episode loop moves it from turn to turn. ``goal`` (the goal the
    user is on, for the trace) is the loop's, not part of what an agent may read."""

    def __init__(
        self,
        world: World,
        stressors: Sequence[Stressor],
        specs: Sequence[ToolSpec],
        instructions: str,
        llm: EpisodeLLM,
        record: Callable[[Event], None],
        clock: Callable[[], float],
        max_calls_per_turn: int,
        seed: int = 0,
        goal_toolkits: Mapping[int, Collection[str]] | None = None,
        episode_id: str = "",
        world_changes: Sequence[WorldChange] = (),
    ) -> None:
        """``goal_toolkits``: goal -> the world functions the task data allows in it (``Goal.tools``); other goals
        offer the whole toolkit. ``world_changes``: the timed world events the stressors schedule, applied to the
        world before the call that makes each due."""
        self.episode_id = episode_id
        self.deadline_left: Callable[[], float] | None = None
        """Seconds of working time left, once the loop's deadline runs (``EpisodeControls.time_left``)."""
        self.ended = False
        """The agent ended the conversation (``EpisodeControls.end_conversation``): the loop asks the user no more."""
        self.instructions = instructions
        self.llm = llm
        self.seed = seed
        self.turn = 0
        self.goal = 0
        self._stressors = tuple(stressors)
        self._episode_tools = list(specs)
        self._episode_names = frozenset(s.name for s in specs)
        self.goal_tools: dict[int, list[str]] = {}
        """Goals whose callable tools differ from the episode's: every name offered while the user pursued the
        goal (the trace's ``goal_tools``)."""
        self._tools = tuple(specs)
        self._names = self._episode_names
        self._record = record
        self._clock = clock
        self._max_calls = max_calls_per_turn
        # What the world says of its own tools: a call the agent makes by a name it was never shown (a renamed
        # endpoint) is a lookup or not by the tool it reached.
        self._world_read_only = {s.name: s.read_only for s in world.specs()}
        # Task data may leave world functions out of a goal (``Goal.tools``): goal -> the world names it allows.
        self._goal_allowed = {g: frozenset(names) for g, names in (goal_toolkits or {}).items()}
        self._fixed_toolkit = not self._stressors and not self._goal_allowed
        self._read_only = {s.name: s.read_only for s in specs}
        self._calls_in_turn = 0
        self._call_index = 0
        self._ids: set[str] = set()
        """Every call id of the episode so far (judges pair calls and results by id: one id, one call)."""
        self._invented = 0
        # No closure over self is kept (a chain built here would hold one): an ended episode is then freed by
        # reference counting at once, not left as cyclic garbage for the collector to walk.
        self._world = world
        self._events = EventSchedule(world_changes)

    def events_settled_before(self, goal: int) -> None:
        """The isolated setup put the world in the gold's state at the start of ``goal``: the events of earlier goals
        are in it."""
        self._events.settled_before(goal)

    def current_tools(self) -> tuple[ToolSpec, ...]:
        return self._tools

    # --- EpisodeControls: what an agent outside squall needs besides the AgentRuntime ---

    @property
    def max_steps(self) -> int:
        return self._max_calls

    def time_left(self) -> float | None:
        return None if self.deadline_left is None else self.deadline_left()

    def report_usage(self, usage: Usage) -> None:
        self.llm.charge_role("agent", usage)

    def end_conversation(self) -> None:
        self.ended = True

    def start_turn(self, turn: int, goal: int | None = None) -> None:
        """A conversation turn starts; ``goal`` is the task goal the user's message pursues (default: the turn)."""
        self.turn = turn
        self.goal = turn if goal is None else goal
        self._calls_in_turn = 0
        self.llm.start_turn(turn, self.goal)
        self._refresh_tools()

    def _refresh_tools(self) -> None:
        """The tools callable now (turn start, and after every call): the goal's own list from the task data
        (innermost: what the world offers for this goal), then the stressors."""
        if self._fixed_toolkit:  # the hot path of unstressed runs: nothing can change the toolkit
            return
        tools = self._episode_tools
        allowed = self._goal_allowed.get(self.goal)
        if allowed is not None:  # a name the world lacks (a stressor's look-alike or renamed tool) is the stressors'
            tools = [t for t in tools if t.name in allowed or t.name not in self._world_read_only]
        for s in reversed(self._stressors):  # innermost first, like on_spec: the outermost layer has the last word
            tools = s.on_tools(self.goal, tools)
        if len(tools) != len(self._tools) or any(a is not b for a, b in zip(tools, self._tools, strict=True)):
            # A new tuple only when the toolkit changed: transports cache the encoding of the one they saw.
            self._tools = tuple(tools)
            self._names = frozenset(t.name for t in tools)
            self._read_only.update({t.name: t.read_only for t in tools})
        changed = self._names is not self._episode_names and self._names != self._episode_names
        if changed or self.goal in self.goal_tools:
            offered = self.goal_tools.setdefault(self.goal, [])
            offered += [t.name for t in tools if t.name not in offered]

    async def call(self, call: ToolCall, step: int) -> ToolResult:
        if self._calls_in_turn >= self._max_calls:
            raise StepLimitReached(f"more than {self._max_calls} tool calls in turn {self.turn}")
        # Ids are settled here, before any await (calls of one step run concurrently): unique in the episode whatever
        # the model sent, and deterministic wherever the provider's own are.
        index = self._call_index
        self._call_index += 1
        self._calls_in_turn += 1
        call_id = self._call_id(call.id)
        if call_id != call.id:
            call = call.model_copy(update={"id": call_id})
        if self._events:  # the world moves on its own before this call: recorded first, never shown to the agent
            for change in self._events.before_call(self._world, self.goal):
                self._record(event_record(change, self.turn, self.goal, step, self._clock()))
        called = Event(
            kind="tool_call",
            turn=self.turn,
            goal=self.goal,
            step=step,
            t=self._clock(),
            call=call,
            read_only=self._read_only.get(call.name),
        )
        shown = call.name in self._names
        if shown:  # recorded before it runs, so concurrent calls of a step keep their order in the trace
            self._record(called)
        ctx = CallContext(turn=self.turn, goal=self.goal, call_index=index)
        outcome = await through_stressors(self._stressors, call, ctx, self._last_stop)
        result = outcome.result
        if result.call_id != call.id:
            result = result.model_copy(update={"call_id": call.id})
        if outcome.unknown_tool and not outcome.fired:
            # An invented function: the agent's fault, answered but never part of the call record. The fault keeps
            # the call and its refusal, so the agent's history in later turns shows what the model did (as BFCL's).
            detail = f"{call.name}: not among the available tools"
            self._record(self._fault_event("agent", "agent:unknown_tool", detail, step, call=call, result=result))
            return result
        if not shown:  # a name a stressor took (a renamed endpoint): a lookup or not by what it reached
            world_name = outcome.world_call.name if outcome.world_call is not None else None
            self._record(called.model_copy(update={"read_only": self._world_read_only.get(world_name or "")}))
        raw = outcome.world_result
        if raw is not None and raw.call_id != call.id:
            raw = raw.model_copy(update={"call_id": call.id})
        changed = raw is not None and (raw.status, raw.content) != (result.status, result.content)
        self._refresh_tools()  # a call may change what is callable next (a tool search found one)
        self._record(
            Event(
                kind="tool_result",
                turn=self.turn,
                goal=self.goal,
                step=step,
                t=self._clock(),
                call=call,
                result=result,
                raw_result=raw if changed else None,
                scenarios=list(outcome.fired),
            )
        )
        return result

    def _call_id(self, given: str) -> str:
        """The provider's id verbatim (the trace joins its logs, the history sends it back as it came), unless there
        is none or it repeats one already used in the episode: then one invented (``sim.core.call_ids``)."""
        if given and given not in self._ids:
            self._ids.add(given)
            return given
        made = invented_call_id(self._invented)
        while made in self._ids:
            self._invented += 1
            made = invented_call_id(self._invented)
        self._invented += 1
        self._ids.add(made)
        return made

    async def _last_stop(self, call: ToolCall) -> CallOutcome:
        return await reach_callable(self._world, self._names, call)

    def fault(self, fault: FaultKind, code: str, detail: str, step: int = 0) -> None:
        self._record(self._fault_event(fault, code, detail, step))

    def _fault_event(
        self,
        fault: FaultKind,
        code: str,
        detail: str,
        step: int,
        call: ToolCall | None = None,
        result: ToolResult | None = None,
    ) -> Event:
        return Event(
            kind="error",
            turn=self.turn,
            goal=self.goal,
            step=step,
            t=self._clock(),
            fault=fault,
            code=code,
            content=detail,
            call=call,
            result=result,
        )
