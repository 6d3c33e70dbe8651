"""Against the mock endpoint: `worlds warm` fills a cold cache; a run's own misses are simulated and cached, and a
second run with the same seed is identical with zero requests; invalid simulated answers are retried, then
classified (the episode is excluded, never crashed); `worlds draft-tasks` keeps only drafts whose gold executes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.sim.llm.test_cache_rerun import events_without_timing
from tests.support.cli import squall
from tests.support.mockllm_server import mock_llm_server
from tests.worlds.simulated.world_copy import desk_copy

SLA = {"priority": "urgent", "first_response_hours": 1, "resolution_hours": 8}
LOW = {"priority": "low", "first_response_hours": 24, "resolution_hours": 120}
LI = {"email": "li.wei@example.com", "name": "Li Wei", "company": "Foxglove Labs", "plan": "team"}
LOW_CALL = {"name": "getSla", "arguments": {"priority": "low"}}
BAD_CALL = {"name": "getTicket", "arguments": {"id": 1}}  # no such argument: the draft is dropped
ANA = {"email": "ana@example.com", "name": "Ana Souza", "plan": "enterprise"}


def answer(body: Any, status: int = 200) -> dict[str, str]:
    return {"text": json.dumps({"status": status, "body": body})}


def call_step(*calls: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments} for name, arguments in calls]}


# The world's prompt names the request it simulates ("path": ...); the agent's first message is the task's request.
POLICY = {
    "kind": "script",
    "steps": [{"text": "done"}],
    "by_user": {
        '"path": "/sla/urgent"': [answer(SLA)],
        '"path": "/sla/low"': [answer(LOW)],
        '"path": "/sla/high"': [{"text": "not json"}, answer({"priority": "high"}), {"text": "still not"}],
        '"path": "/customers/li.wei@example.com"': [answer(LI)],
        '"path": "/customers/ana@example.com"': [{"text": "{oops"}, answer(ANA)],
        "first-response and resolution targets": [call_step(("getSla", {"priority": "low"})), {"text": "1 and 8."}],
        "Which plan is the customer": [
            call_step(("getCustomer", {"email": "ana@example.com"})),  # one call a step: events in a fixed order
            call_step(("getSla", {"priority": "high"})),
            {"text": "team"},
        ],
        "Write task 1 of 2": [{"text": json.dumps({"request": "SLA for low?", "calls": [LOW_CALL], "answer": [24]})}],
        "Write task 2 of 2": [{"text": json.dumps({"request": "x", "calls": [BAD_CALL]})}],
    },
}  # fmt: skip


@pytest.mark.slow
def test_cold_cache_warm_then_runs_fill_it_and_a_rerun_is_identical_with_no_requests(tmp_path: Path) -> None:
    with mock_llm_server({"policy": POLICY}) as server:
        model = f"openai-chat:mock-model@{server.url}"
        world = desk_copy(tmp_path, model, tasks=["td-03", "td-05"], cache=False)
        code, out, err = squall("worlds", "warm", str(world))
        assert code == 0, err
        assert server.stats()["completions"] == 2 and "2 answers added" in out
        assert sorted(p.name for p in (world / "cache").glob("*.json")) == ["getCustomer.json", "getSla.json"]
        args = ["run", "--world", str(world), "--agent", model, "--cache", "read-write", "--out", str(tmp_path)]
        args += ["--cache-dir", str(tmp_path / "gateway"), "-q", "--run-id"]
        code, _, err = squall(*args, "first")
        assert code == 0, err
        served = server.stats()["completions"]
        # warm's 2; the agent's 2 + 3 steps; getSla(low) once, getCustomer(ana) twice (a retry), getSla(high) 3 times
        assert served == 2 + 5 + 1 + 2 + 3
        code, _, err = squall(*args, "second")
        assert code == 0, err
        assert server.stats()["completions"] == served
    assert events_without_timing(tmp_path / "first") == events_without_timing(tmp_path / "second")
    cached = {
        e["arguments"]["priority"]: e["response"]
        for e in json.loads((world / "cache" / "getSla.json").read_text())["entries"]
    }
    assert cached["low"] == {"status": 200, "body": LOW}  # the run's own miss, simulated and cached
    assert list(cached["high"]) == ["simulation_failed"]  # the failure is kept: the re-run replays it
    summary = json.loads((tmp_path / "first" / "summary.json").read_text())
    assert summary["failed_episode_ids"] == ["td-05#0"]  # the world failed it: excluded, not the agent's fault
    results = {
        json.dumps(e["call"]["arguments"]): e["result"]
        for line in (tmp_path / "first" / "episodes.jsonl").read_text().splitlines()
        for e in json.loads(line)["events"]
        if e["kind"] == "tool_result"
    }
    assert results['{"priority": "high"}']["error_code"] == "world:simulation_failed"
    assert results['{"email": "ana@example.com"}']["status"] == "success"  # valid at the second attempt


@pytest.mark.slow
def test_draft_tasks_keeps_only_drafts_whose_gold_executes(tmp_path: Path) -> None:
    with mock_llm_server({"policy": POLICY}) as server:
        world = desk_copy(tmp_path, f"openai-chat:mock-model@{server.url}")
        code, _, err = squall("worlds", "draft-tasks", str(world), "--n", "2")
        assert code == 2 and "already holds tasks" in err  # the shipped tasks are never overwritten unasked
        drafts = world / "drafted_tasks.jsonl"
        code, out, err = squall("worlds", "draft-tasks", str(world), "--n", "2", "--out", str(drafts))
        assert code == 0, err
        assert "1 of 2 drafts kept" in out and "dropped draft 2" in out
    drafted = [json.loads(line) for line in (world / "drafted_tasks.jsonl").read_text().splitlines()]
    assert len(drafted) == 1 and drafted[0]["goals"][0]["gold"] == [
        {"name": "getSla", "arguments": {"priority": "low"}}
    ]
    (world / "tasks.jsonl").write_text((world / "drafted_tasks.jsonl").read_text())
    code, out, err = squall("worlds", "validate", str(world))  # the kept draft's gold runs from the cache alone
    assert code == 0, err


def test_warm_refuses_a_world_that_is_not_simulated_and_one_with_no_model(tmp_path: Path) -> None:
    code, _, err = squall("worlds", "warm", "smart_home", "--model", "openai-chat:x@http://127.0.0.1:9")
    assert code == 2 and "not a simulated world" in err
    code, _, err = squall("worlds", "warm", str(desk_copy(tmp_path, None)))
    assert code == 2 and "no simulator model" in err
