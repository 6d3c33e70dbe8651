"""The pydantic-ai agent and the text-protocol agent over real HTTP against the mock server.

The mock replays a task's gold calls (native tool calls, or ReAct text), with 429 + Retry-After and
malformed bodies injected; episodes must end with the right categories.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sim.config.run_config import RunConfig
from sim.core import Task
from sim.run.runner import execute
from tests.support.mockllm_server import mock_llm_server
from worlds.registry import load_world

TASK_ID = "sh-001"


def task() -> Task:
    return next(t for t in load_world("smart_home").tasks() if t.id == TASK_ID)


def native_script(t: Task) -> list[dict[str, Any]]:
    """One tool call per step along each turn's gold path, then a text reply."""
    steps: list[dict[str, Any]] = []
    for turn in t.goals:
        steps += [{"tool_calls": [{"name": c.name, "arguments": c.arguments}]} for c in turn.gold]
        steps.append({"text": turn.gold_answer or "Done."})
    return steps


def react_script(t: Task, garble_last_turn: bool) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = []
    for i, turn in enumerate(t.goals):
        if garble_last_turn and i == len(t.goals) - 1:
            # Unparseable: fed back to the model and recorded as an agent fault. Failed parses are left out of
            # later turns' history, so it goes in the last turn, where no later script position depends on it.
            steps.append({"text": "Sure! I will take care of the lights for you. Action: ???"})
        for c in turn.gold:
            steps.append({"text": f"Thought: next.\nAction: {c.name}\nAction Input: {json.dumps(c.arguments)}"})
        steps.append({"text": f"Thought: done.\nFinal Answer: {turn.gold_answer or 'Done.'}"})
    return steps


async def run(tmp_path: Path, url: str, agent: str) -> tuple[Any, dict[str, Any]]:
    cfg = RunConfig(agent=f"{agent}openai-chat:mock-model@{url}", tasks=[TASK_ID], out=tmp_path, run_id="r")
    store, summary = await execute(cfg)
    return store.episodes()[0], summary


def codes(ep: Any) -> list[tuple[str | None, str | None]]:
    return [(e.fault, e.code) for e in ep.events if e.kind == "error"]


FAULTS = [
    {"kind": "rate_limit", "at": [1], "retry_after_s": 1.0, "retry_after_ms_header": False},
    {"kind": "malformed", "at": [3], "variant": "invalid_json"},
]


async def test_native_agent_recovers_from_429_and_malformed_body(tmp_path: Path) -> None:
    config = {"policy": {"kind": "script", "steps": native_script(task())}, "faults": FAULTS}
    with mock_llm_server(config) as srv:
        ep, summary = await run(tmp_path, srv.url, "")
        stats = srv.stats()
    assert ep.termination == "completed"
    assert ("provider", "provider:rate_limited") in codes(ep)
    assert ("provider", "provider:malformed_response") in codes(ep)
    assert ep.usage.retries == 2 and ep.usage.waiting_s >= 1.0  # Retry-After was honoured
    assert summary["core_api_accuracy"] == 1.0 and summary["failed_episodes"] == 0
    assert stats["completions"] == ep.usage.requests + 2, stats  # every retry reached the server once


async def test_native_agent_gives_up_on_persistent_malformed_bodies(tmp_path: Path) -> None:
    config = {
        "policy": {"kind": "script", "steps": native_script(task())},
        "faults": [{"kind": "malformed", "every": 1, "variant": "missing_choices"}],
    }
    with mock_llm_server(config) as srv:
        ep, summary = await run(tmp_path, srv.url, "")
    assert ep.termination == "provider_error"
    assert codes(ep)[-1] == ("provider", "provider:malformed_response")
    assert summary["failed_episodes"] == 1 and summary["core_api_accuracy"] is None


async def test_text_agent_over_http_with_parse_failure_and_429(tmp_path: Path) -> None:
    config = {"policy": {"kind": "script", "steps": react_script(task(), garble_last_turn=True)}, "faults": FAULTS[:1]}
    with mock_llm_server(config) as srv:
        ep, summary = await run(tmp_path, srv.url, "text:")
    assert ep.termination == "completed"
    faults = codes(ep)
    assert ("provider", "provider:rate_limited") in faults
    assert any(f == "agent" and c and c.startswith("agent:parse_error") for f, c in faults)
    assert summary["core_api_accuracy"] == 1.0


async def test_unreachable_endpoint_is_a_provider_failure(tmp_path: Path) -> None:
    cfg = RunConfig(
        agent="openai-chat:m@http://127.0.0.1:9/v1",
        tasks=[TASK_ID],
        out=tmp_path,
        run_id="r",
        retry={"max_attempts": 2, "base_delay_s": 0.01},
    )
    store, summary = await execute(cfg)
    assert store.episodes()[0].termination == "provider_error"
    assert summary["failed_episodes"] == 1


@pytest.mark.parametrize("agent", ["", "text:"])
async def test_step_limit_is_an_agent_fault_not_a_failure(tmp_path: Path, agent: str) -> None:
    # A model that never stops calling tools: every turn ends at the step limit, the episode still completes.
    loop = (
        [{"tool_calls": [{"name": "list_rooms", "arguments": {}}]}]
        if not agent
        else [{"text": "Action: list_rooms\nAction Input: {}"}]
    )
    with mock_llm_server({"policy": {"kind": "script", "steps": loop}}) as srv:
        cfg = RunConfig(
            agent=f"{agent}openai-chat:mock-model@{srv.url}", tasks=[TASK_ID], out=tmp_path, run_id="r", max_steps=3
        )
        store, summary = await execute(cfg)
    ep = store.episodes()[0]
    assert ep.termination == "completed"
    assert [c for _, c in codes(ep)].count("agent:step_limit") == len(task().goals)
    assert summary["core_api_accuracy"] == 0.0 and summary["failed_episodes"] == 0
