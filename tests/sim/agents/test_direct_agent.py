"""Direct invocation (``direct:``): calibration on the SQL worlds of every style, a scripted model whose plans pass
earlier outputs on by reference, and the faults a plan can make."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from judges.calls.arg_match import ArgMatcher
from judges.calls.call_f1 import CallF1
from personas.scripted import ScriptedUser
from sim.agents.direct_agent import DirectAgent
from sim.agents.direct_plan import PlannedCall, render_plan
from sim.agents.factory import AgentSpec, parse_agent_spec
from sim.config.run_config import RunConfig
from sim.core import EpisodeResult, ModelRequest, ModelResponse, Task, ToolCall, WorldContext, WorldPack, shared_agent
from sim.episode.env import EpisodeEnv, EpisodeSpec
from sim.episode.loop import run_episode
from sim.llm.gateway import Gateway
from sim.llm.transports.base import Reply
from sim.run.runner import execute
from worlds.registry import load_world
from worlds.sql.ingest.folder import write_world
from worlds.sql.ingest.importer import ImportOptions
from worlds.sql.sample import import_sample

STYLES = ("per_question", "sel", "slot")


def sample_world(tmp_path: Path, style: str) -> Path:
    return write_world(import_sample(ImportOptions(world="s", style=style)), tmp_path / style)


@pytest.mark.parametrize("style", STYLES)
async def test_direct_oracle_scores_one_and_direct_null_zero(tmp_path: Path, style: str) -> None:
    folder = sample_world(tmp_path, style)
    values: dict[str, dict[str, Any]] = {}
    for agent in ("direct:oracle", "direct:null"):
        config = RunConfig.model_validate(
            {"out": tmp_path, "run_id": agent.replace(":", "-"), "world": str(folder), "agent": agent}
        )
        store, summary = await execute(config)
        assert summary["failed_episodes"] == 0 and summary["judge_faults"] == 0
        values[agent] = summary
        calls = [e for ep in store.episodes() for e in ep.events if e.kind == "tool_call"]
        assert bool(calls) == (agent == "direct:oracle")
        assert all(e.step == 1 for e in calls)  # one reply per turn: every call is of its first step
    oracle, null = values["direct:oracle"], values["direct:null"]
    assert oracle["call_f1"]["intent"]["f1"] == oracle["call_f1"]["slot"]["f1"] == 1.0
    assert oracle["completion"] == oracle["core_api_accuracy"] == 1.0
    assert null["call_f1"]["intent"]["f1"] == null["call_f1"]["slot"]["f1"] == 0.0
    assert null["completion"] == null["core_api_accuracy"] == 0.0


class ScriptedTransport:
    """Plays replies in order and keeps every request it was sent."""

    def __init__(self, replies: Sequence[str]) -> None:
        self.replies = list(replies)
        self.requests: list[ModelRequest] = []

    async def send(self, request: ModelRequest) -> Reply:
        self.requests.append(request)
        return Reply(ModelResponse(text=self.replies[len(self.requests) - 1]))

    async def aclose(self) -> None:
        return None


async def referenced_plan(pack: WorldPack, task: Task) -> tuple[str, int]:
    """The task's gold as a plan a model would write blind: every argument an earlier call's output gives is a
    reference to it (keys, values, SLOT labels); how many references it holds."""
    world = pack.new_world(0, WorldContext(task=task))
    contents = [(await world.call(ToolCall(id="", name=g.name, arguments=dict(g.arguments)))).content for g in
                task.goals[0].gold]  # fmt: skip
    calls: list[PlannedCall] = []
    made = 0
    for n, gold in enumerate(task.goals[0].gold):
        arguments: dict[str, Any] = {}
        for name, value in gold.arguments.items():
            arguments[name] = value
            for earlier in range(n - 1, -1, -1):
                reference = _reference(contents[earlier], value, f"out{earlier}")
                if reference is not None:
                    arguments[name] = reference
                    made += 1
                    break
        calls.append(PlannedCall(gold.name, arguments, f"out{n}"))
    return render_plan(calls), made


def _reference(content: Any, value: Any, label: str) -> str | None:
    if isinstance(content, dict) and content.get("ref") == value:
        return f"${label}.ref$"
    if not isinstance(content, list) or not content or not isinstance(value, list):
        return None
    for field in content[0]:
        if [record[field] for record in content] == value:
            return f"${label}$" if len(content[0]) == 1 else f"${label}.{field}$"
    return None


async def play(pack: WorldPack, task: Task, replies: list[str]) -> tuple[EpisodeResult, ScriptedTransport]:
    transport = ScriptedTransport(replies)
    gateway = Gateway()
    gateway.register("scripted", transport)
    agent = DirectAgent("direct:scripted", "scripted")
    env = EpisodeEnv(pack, shared_agent(agent), ScriptedUser(), gateway, ("direct:scripted", "scripted"))
    return await run_episode(EpisodeSpec(task=task, trial=0, seed=1), env), transport


@pytest.mark.parametrize("style", ["sel", "slot"])
async def test_a_model_s_plan_passes_outputs_on_by_reference(tmp_path: Path, style: str) -> None:
    pack = load_world(str(sample_world(tmp_path, style)))
    references = 0
    for task in pack.tasks():
        plan, made = await referenced_plan(pack, task)
        references += made
        result, transport = await play(pack, task, [plan])
        assert [e.code for e in result.events if e.kind == "error"] == [], task.id
        called = [e.call.name for e in result.events if e.kind == "tool_call" and e.call]
        assert called == [g.name for g in task.goals[0].gold], task.id
        f1 = await CallF1(ArgMatcher()).score(result)
        assert f1.value == f1.details["intent"]["f1"] == 1.0, (task.id, f1.details)
        assert len(transport.requests) == 1  # the whole sequence in one reply
        prompt = transport.requests[0].messages[0].content or ""
        assert "$LABEL$" in prompt and task.goals[0].gold[0].name in prompt
    assert references >= len(pack.tasks())  # every chain hands at least one output on


async def test_a_reference_to_no_output_and_a_broken_plan_are_agent_faults(tmp_path: Path) -> None:
    pack = load_world(str(sample_world(tmp_path, "sel")))
    task = next(t for t in pack.tasks() if len(t.goals[0].gold) >= 2)
    first, second = task.goals[0].gold[:2]
    dangling = {k: "$NOWHERE$" if isinstance(v, list) else v for k, v in second.arguments.items()}
    plan = render_plan([PlannedCall(first.name, dict(first.arguments)), PlannedCall(second.name, dangling)])
    result, _ = await play(pack, task, [plan])
    assert [e.code for e in result.events if e.kind == "error"] == ["agent:unresolved_reference"]
    refused = [e for e in result.events if e.kind == "tool_result" and e.result and not e.result.ok]
    assert len(refused) == 1 and refused[0].call is not None and refused[0].call.name == second.name
    result, _ = await play(pack, task, ['[{"name": "list_book_keys", "arguments": {]'])
    assert [e.code for e in result.events if e.kind == "error"] == ["agent:parse_error:plan"]
    assert not any(e.kind == "tool_call" for e in result.events)


def test_direct_agent_specs() -> None:
    assert parse_agent_spec("direct:oracle") == AgentSpec("direct", "oracle")
    assert parse_agent_spec("direct:null").label == "direct:null"
    assert parse_agent_spec("direct:openai:gpt-4o") == AgentSpec("direct", "openai:gpt-4o")
    with pytest.raises(ValueError, match="missing model"):
        parse_agent_spec("direct:")


def test_the_plan_the_oracle_writes_is_json_a_model_could_write() -> None:
    plan = json.loads(render_plan([PlannedCall("f", {"a": 1}, "out0")]))
    assert plan == [{"name": "f", "arguments": {"a": 1}, "label": "out0"}]
