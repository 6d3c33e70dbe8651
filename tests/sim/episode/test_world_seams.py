"""The episode's side of the world seams: worlds built for their task, a world's model handle, goal tool lists."""

from __future__ import annotations

from collections.abc import Sequence

from personas.scripted import ScriptedUser
from sim.core import (
    AgentRuntime,
    ChatMessage,
    EpisodeResult,
    Event,
    ModelRequest,
    ModelResponse,
    Task,
    ToolCall,
    WorldPack,
    shared_agent,
)
from sim.episode.env import EpisodeEnv, EpisodeLimits, EpisodeSpec
from sim.episode.gold_history import Setup
from sim.episode.loop import run_episode
from sim.llm.gateway import Gateway
from sim.llm.transports.base import Reply
from tests.support.world_seams import HOME, NarratedPack, PerTaskPack

TASK: Task = HOME.tasks()[0]


class Quiet:
    name = "quiet"

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        return "ok"


class AsksThenCalls:
    """Every turn: one model request (its whole step budget, at max_steps=1) and one call of ``tool``; records the
    tools it was offered."""

    name = "asks-then-calls"

    def __init__(self, tool: str, ask: bool = True) -> None:
        self.tool, self.ask = tool, ask
        self.offered: list[list[str]] = []

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        self.offered.append([t.name for t in runtime.current_tools()])
        if self.ask:
            message = ChatMessage(role="user", content="hi")
            await runtime.llm.complete(ModelRequest(role="agent", model="narrator", messages=(message,)))
        await runtime.call(ToolCall(id="", name=self.tool, arguments={}), step=1)
        return "ok"


class Narrator:
    def __init__(self) -> None:
        self.roles: list[str] = []

    async def send(self, request: ModelRequest) -> Reply:
        self.roles.append(request.role)
        return Reply(ModelResponse(text="It happens."))

    async def aclose(self) -> None:
        return None


async def play(
    pack: WorldPack,
    agent: object,
    task: Task = TASK,
    setup: Setup = "cumulative",
    gateway: Gateway | None = None,
    max_steps: int = 15,
) -> EpisodeResult:
    env = EpisodeEnv(
        pack=pack,
        make_agent=shared_agent(agent),  # type: ignore[arg-type]
        user=ScriptedUser(),
        gateway=gateway or Gateway(),
        labels=("a", "u"),
        limits=EpisodeLimits(max_steps=max_steps),
        setup=setup,
    )
    return await run_episode(EpisodeSpec(task=task, trial=0, seed=3), env)


async def test_every_world_of_an_episode_is_built_for_its_task() -> None:
    pack = PerTaskPack()
    result = await play(pack, Quiet(), setup="isolated")
    assert result.termination == "completed"
    # The agent's world, the isolated setup's gold world and the state judge's gold world: all for this task.
    assert pack.built == [TASK.id] * 3
    gold_names = {c.name for g in TASK.goals for p in g.paths() for c in p}
    assert {t.name for t in result.tools} == gold_names < {t.name for t in HOME.tool_specs()}
    assert result.instructions.endswith(f"This conversation: {TASK.id}.")


async def test_a_world_model_request_is_charged_to_the_world_and_is_never_an_agent_step() -> None:
    narrator = Narrator()
    gateway = Gateway()
    gateway.register("narrator", narrator)
    agent = AsksThenCalls("list_rooms")
    result = await play(NarratedPack(), agent, gateway=gateway, max_steps=1)
    turns = len(TASK.goals)
    # One agent request per turn fills the step budget; the world's request in the same turn does not overflow it.
    assert result.termination == "completed" and not [e for e in result.events if e.kind == "error"]
    # The world's requests said "agent": the handle re-stamped them. After the episode's turns, the state judge's gold
    # world asks too (one request per gold call replayed): the episode's world usage as well.
    replayed = len(narrator.roles) - 2 * turns
    assert narrator.roles == ["agent", "world"] * turns + ["world"] * replayed and replayed > 0
    assert result.usage_by_role["agent"].requests == turns
    assert result.usage_by_role["world"].requests == turns + replayed
    assert result.usage.requests == 2 * turns + replayed


async def test_a_goal_tool_list_hides_the_rest_of_the_world_for_that_goal_only() -> None:
    first = TASK.goals[0]
    listed = sorted({c.name for p in first.paths() for c in p})
    assert "list_rooms" not in listed
    task = TASK.model_copy(update={"goals": [first.model_copy(update={"tools": listed}), *TASK.goals[1:]]})
    agent = AsksThenCalls("list_rooms", ask=False)
    result = await play(HOME, agent, task=task)
    order = [s.name for s in HOME.tool_specs()]
    assert agent.offered[0] == sorted(listed, key=order.index) and agent.offered[1] == order
    assert result.goal_tools == {0: agent.offered[0]}  # recorded as a stressor's change of toolkit is
    refused = [(e.goal, e.code) for e in result.events if e.kind == "error"]
    assert refused == [(0, "agent:unknown_tool")]  # missing for goal 0 only: the unknown-tool refusal
    ran = [e.goal for e in result.events if e.kind == "tool_result" and e.call and e.call.name == "list_rooms"]
    assert ran == list(range(1, len(TASK.goals)))
