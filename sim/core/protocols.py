"""The seams between engine, worlds, users, agents, stressors and judges.

Everything here is a structural protocol: implementations never inherit from squall classes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from sim.core.calls import CallContext, CallNext, CallOutcome
from sim.core.gold import EpisodeGold
from sim.core.model_io import ModelRequest, ModelResponse
from sim.core.task import Task
from sim.core.tools import ToolCall, ToolResult, ToolSpec
from sim.core.trace import EpisodeResult, Event, FaultKind, Score, Usage, UserAct, WorldCheck


class World(Protocol):
    """One episode's executable environment. Deterministic: same seed, same calls, same results."""

    name: str

    def specs(self) -> list[ToolSpec]: ...

    def instructions(self) -> str:
        """Domain instructions the agent's system prompt starts from."""
        ...

    async def call(self, call: ToolCall) -> ToolResult: ...

    def snapshot(self) -> Any:
        """A JSON-serialisable copy of the state."""
        ...

    def restore(self, snapshot: Any) -> None: ...

    def state_hash(self) -> str: ...


@runtime_checkable
class TaskStateWorld(Protocol):
    """A world the state judge can judge (an optional capability; found with ``isinstance``)."""

    def task_state(self) -> dict[str, Any]:
        """What the task is about, flat, as changes from the world's base data (``sim.core.task_state``)."""
        ...


@runtime_checkable
class DualControlWorld(Protocol):
    """A world whose user holds tools of its own (an optional capability; found with ``isinstance``): τ²'s telecom
    user toggles airplane mode on the phone the agent can only talk about. The user's tools run on the user's side
    of the world (a device), called by the user simulator, never by the agent; the episode records each call as
    the user's (``user_tool_call``/``user_tool_result`` events)."""

    def user_specs(self) -> list[ToolSpec]:
        """The tools the user may call."""
        ...

    async def user_call(self, call: ToolCall) -> ToolResult:
        """Run one of the user's tools on the user's side (refusals are failed results, never exceptions)."""
        ...


@runtime_checkable
class CheckingWorld(Protocol):
    """A world that checks its own final state against the task (an optional capability; found with
    ``isinstance``): τ²'s environment assertions are functions of the domain, which judges may not import."""

    def end_checks(self) -> list[WorldCheck]:
        """The task's checks on the state now (called once, when the episode ends)."""
        ...


class UserTools(Protocol):
    """What a user of a dual-control world is handed: the user's tools, run and recorded as the user's acts."""

    @property
    def specs(self) -> tuple[ToolSpec, ...]: ...

    async def call(self, call: ToolCall) -> ToolResult:
        """Run the call on the user's side and record it (and its result) in the trace as the user's."""
        ...


@dataclass(frozen=True)
class WorldContext:
    """What an episode hands the world it builds, beside the seed.

    One value rather than more parameters: what an episode may give its world can grow without touching every
    pack's ``new_world``, and a world that needs none of it ignores one argument."""

    task: Task | None = None
    """The task the episode plays, as its file has it (before stressors rewrite the gold): a world may build
    per-task tools, initial state and instructions from it. None: no episode (listing tools, tests)."""
    llm: LLMHandle | None = None
    """For worlds whose responses a model writes: requests through it are charged to role ``world`` and never
    count as agent steps. None outside an episode."""
    cache_mode: str | None = None
    """The run's response-cache mode (``read-write``, ``read-only``, ``off``: ``--cache``), which a world keeping a
    response cache of its own (a simulated API) obeys as the gateway does. None outside a run: such a world only
    reads its cache."""


@runtime_checkable
class SharedWorldPack(Protocol):
    """A pack that may declare every world it builds the same (an optional capability; found with ``isinstance``)."""

    same_world_every_seed: bool
    """True: nothing random and nothing per task, so whatever the seed and task every world starts alike; what
    the engine computes from one world (the gold's states) is shared across episodes."""


class WorldPack(Protocol):
    """Frozen world data loaded once per run; builds a fresh World per episode."""

    name: str

    def tasks(self) -> list[Task]: ...

    def tool_specs(self) -> list[ToolSpec]:
        """Every tool a world of this pack may offer, whatever the task: the run-level toolkit (which tools
        stressor scenarios may target, what ``squall worlds`` lists). A world built for one task offers these or
        fewer."""
        ...

    def new_world(self, seed: int, context: WorldContext | None = None) -> World:
        """A fresh world for one episode (``context``: its task and model handle; None builds the task-free
        world every pack can build, for tools and tests)."""
        ...


class Stressor(Protocol):
    """A per-episode, seeded perturbation. Any hook may be the identity.

    An episode's stressors compose like layers around the world: ``on_call`` in list order (the first sees the
    agent's call first), ``on_task``, ``on_spec`` and ``on_tools`` in reverse order (the first rewrites the gold,
    the docs and the toolkit last), so what the agent reads and is scored on is in the form that reaches the first
    layer."""

    name: str

    def on_task(self, task: Task) -> Task:
        """Rewrite the task (gold, references). Runs before every other hook."""
        ...

    def on_spec(self, specs: list[ToolSpec], instructions: str) -> tuple[list[ToolSpec], str]:
        """Rewrite what the agent reads."""
        ...

    def on_tools(self, goal: int, specs: list[ToolSpec]) -> list[ToolSpec]:
        """The tools the agent may call now, from the episode's (after on_spec): asked at the start of every
        conversation turn (``goal``: the task goal the user is on) and after every call, so a function can be
        missing until a later goal, or become callable once a tool search found it."""
        ...

    async def on_call(self, call: ToolCall, ctx: CallContext, next: CallNext) -> CallOutcome:
        """Wrap one call and return what became of it (``sim.core.calls``): pass it on with ``await next(call)``,
        act and pass a rewritten call on with ``await next(call, fired=self.name)``, answer it yourself with
        ``CallOutcome.answered(result, self.name)``, or change what came back with ``outcome.replaced(result,
        self.name)``. Nothing is written anywhere: the outcome says which scenarios fired, so the trace can tell
        injected from real."""
        ...


@runtime_checkable
class ReplayHook(Protocol):
    """A stressor that must see the gold the isolated setup replays (an optional capability; found with
    ``isinstance``). Replay goes straight to the world, never through ``on_call``; a stressor whose gold is in a form
    only it understands (a format rule, a newer schema) gives the world's own call back, and one that tracks the
    episode's history (a prerequisite met) notes it. Called in ``on_call`` order, each with the call in the form
    that would reach it."""

    def on_replay(self, call: ToolCall, goal: int) -> ToolCall:
        """The call as this layer passes it on (the world's form for what it translates); ``goal``: the goal it
        belongs to."""
        ...


class LLMHandle(Protocol):
    """An episode's door to the gateway: every model request of the episode goes through it."""

    steps: int
    """Agent-role model requests made so far in the current turn (user and judge requests never count)."""

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Run one model request under the gateway's limits, retries and cache; usage is charged to its role."""
        ...


class AgentRuntime(Protocol):
    """What an agent under test may touch during one turn. It carries no task: the user says what is wanted, and only
    calibration agents are handed the gold, by their factory (``AgentFactory``)."""

    @property
    def turn(self) -> int:
        """0-based index of the current conversation turn."""
        ...

    @property
    def instructions(self) -> str:
        """The system instructions the agent starts from: the world's, as the stressors' ``on_spec`` left them."""
        ...

    @property
    def llm(self) -> LLMHandle:
        """The episode's gateway handle; agents that call models must use it."""
        ...

    @property
    def seed(self) -> int:
        """The episode's seed: agents pass it (or a value derived from it) as the request's sampling seed."""
        ...

    def current_tools(self) -> tuple[ToolSpec, ...]:
        """The tools the agent may call at this step. Ask before every model request: stressors may change the
        toolset mid-turn. The same tuple comes back while nothing changed (transports cache its encoding)."""
        ...

    async def call(self, call: ToolCall, step: int) -> ToolResult:
        """Run a tool through the stressors and the world; records the call and its result."""
        ...

    def fault(self, fault: FaultKind, code: str, detail: str, step: int = 0) -> None:
        """Record a fault event (e.g. an unparseable action) without ending the turn."""
        ...


@runtime_checkable
class EpisodeControls(Protocol):
    """What an episode's runtime offers an agent that lives outside squall (an optional capability of an
    ``AgentRuntime``; found with ``isinstance``): the names it reports under, the budgets it must keep, and the two
    things only such an agent says for itself (its model usage, and that it ends the conversation)."""

    @property
    def episode_id(self) -> str: ...

    @property
    def max_steps(self) -> int:
        """Tool calls the agent may make in one turn."""
        ...

    def time_left(self) -> float | None:
        """Seconds of the episode's working-time budget left now; None: no deadline is running."""
        ...

    def report_usage(self, usage: Usage) -> None:
        """Charge model usage the agent reports (its model calls never pass the gateway) to this turn's agent."""
        ...

    def end_conversation(self) -> None:
        """The agent ends the conversation after this turn's reply: the user is not asked again."""
        ...


class Agent(Protocol):
    """An agent under test. Stateless across episodes: the history is handed in each turn."""

    name: str

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        """Act on the conversation so far (ending with the user's latest message) and return the reply."""
        ...


AgentFactory = Callable[[EpisodeGold], Agent]
"""The agent of one episode, built from its gold: a calibration agent binds to it, a model agent ignores it (one
agent serves every episode: ``shared_agent``)."""


def shared_agent(agent: Agent) -> AgentFactory:
    """The factory of an agent that never reads the gold: the same agent for every episode."""

    def same(_gold: EpisodeGold) -> Agent:
        return agent

    return same


class UserView(BaseModel):
    """What a user sees after an agent turn: the agent's reply, never its tool calls (a real user does not)."""

    turn: int = Field(description="Index of the conversation turn that just ended.")
    agent_message: str


class UserMessage(BaseModel):
    """A user's next message, the goal it is about, and the user's own slips on the way to it."""

    text: str
    goal: int = Field(ge=0, description="The task goal (``task.goals`` index) this message pursues.")
    act: UserAct = Field(default_factory=UserAct)
    slips: list[tuple[str, str]] = Field(
        default_factory=list,
        description="User faults caught and retried before this message: ('user:<reason>', detail). Recorded as "
        "user faults, apart from the agent's.",
    )
    ends: bool = Field(
        default=False,
        description="The user ends the conversation here: the text (if any) is not sent; the slips are recorded.",
    )


@dataclass(frozen=True)
class UserContext:
    """What a user is handed when a conversation opens."""

    seed: int
    """The episode's seed: the same seed (and response cache) gives the same user messages."""
    llm: LLMHandle | None = None
    """The episode's gateway handle; an LLM user sends ``role="user"`` requests through it (never agent steps)."""
    tools: UserTools | None = None
    """The user's own tools, where the world gives it some (``DualControlWorld``); None: the user only talks."""


class User(Protocol):
    """A simulated (or human) user. ``reply`` returns None to end the conversation.

    The user owns goal progress: each message says which task goal it pursues, and the user moves to the next goal
    when it judges the current one done (or gives up on it). Scripted, LLM and human users all do."""

    name: str

    async def open(self, task: Task, context: UserContext) -> UserMessage: ...

    async def reply(self, view: UserView) -> UserMessage | None:
        """The next message; None (or a message with ``ends``) ends the conversation."""
        ...


@runtime_checkable
class SimulatedWorldPack(Protocol):
    """A world whose answers a model simulates where its response cache has none (an optional capability of a
    ``WorldPack``; found with ``isinstance``): an imported OpenAPI or ToolBench world."""

    @property
    def simulator_model(self) -> str | None:
        """The model that simulates answers (world.toml's ``model``); None: the cache alone answers."""
        ...

    def with_simulator_model(self, model: str) -> WorldPack:
        """The same world, its answers simulated by ``model`` (``--world-model``)."""
        ...


@runtime_checkable
class StoppableUser(Protocol):
    """A user who may stop the agent mid-turn (an optional capability of a ``User``; found with ``isinstance``): a
    person pressing Ctrl-C in ``squall chat`` while a slow model answers. When ``stop_agent`` is set, the turn's
    request is cancelled and the conversation ends there, saved and judged as played so far."""

    @property
    def stop_agent(self) -> asyncio.Event: ...


class Judge(Protocol):
    """A pure function of a stored episode. LLM-backed judges get an LLMHandle at construction."""

    name: str

    async def score(self, result: EpisodeResult) -> Score: ...
