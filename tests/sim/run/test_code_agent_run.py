"""``--agent code:MODEL`` through whole runs over real HTTP (a canned provider): a scripted model that writes each
goal's gold calls as one program scores 1.0 on core API accuracy on the multidomain and a SQL world, every call a
traced runtime call; a program that never ends is stopped and recorded; the limits are refused for other agents."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sim.episode.prepare import calls_per_turn
from sim.store.run_store import RunStore
from tests.support.canned_provider import Canned, canned_provider
from tests.support.cli import squall
from tests.support.code_writer import gold_program_writer, gold_programs, reply
from worlds.registry import load_world

COMMON = ("--error-judge", "off", "--no-preflight", "--run-id", "r")


def run(tmp_path: Path, world: str, answer: Any, *more: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    with canned_provider(answer) as server:
        agent = f"code:openai-chat:m@{server.url}"
        code, _, err = squall("run", "--world", world, *COMMON, "--out", str(tmp_path), "--agent", agent, *more)
        requests = list(server.requests)
    assert code == 0, err
    return json.loads((tmp_path / "r" / "summary.json").read_text()), requests


@pytest.mark.parametrize(("world", "limit"), [("multidomain", "3"), ("sql_sample", "4")])
def test_a_gold_program_writer_scores_one_with_every_call_traced(tmp_path: Path, world: str, limit: str) -> None:
    pack = load_world(world)
    writer = gold_program_writer(gold_programs(list(pack.tasks()), list(pack.tool_specs())))
    summary, requests = run(tmp_path, world, writer, "--limit", limit)
    assert summary["failed_episodes"] == 0 and summary["scored_episodes"] == int(limit)
    assert summary["core_api_accuracy"] == 1.0 and summary["conversation_success"] == 1.0
    system = requests[0]["messages"][0]["content"]
    assert all(f"def {spec.name}(" in system for spec in pack.tool_specs())  # the tools, as Python functions
    for episode in RunStore.open_existing(tmp_path / "r").episodes():
        calls = [e for e in episode.events if e.kind == "tool_call"]
        results = [e for e in episode.events if e.kind == "tool_result"]
        assert calls and len(calls) == len(results) and all(e.step >= 1 for e in calls)
        assert not [e for e in episode.events if e.kind == "error"]
    if world == "sql_sample":  # the answer is what the program printed: the rows
        assert summary["completion"] == 1.0 and summary["answer_facts"] == 1.0


@pytest.mark.parametrize(
    ("program", "told", "fault"),
    [
        (
            "print('start')\nwhile True:\n    pass",
            "start\n[stopped: the program ran past its time limit of 1 s]",
            "program_timeout",
        ),
        ("import socket", "PermissionError: sandbox: import socket is not allowed", "sandbox_refused"),
    ],
)
def test_a_stopped_or_refused_program_is_recorded_and_the_model_told(
    tmp_path: Path, program: str, told: str, fault: str
) -> None:
    def answer(request: dict[str, Any]) -> Canned:
        if request["messages"][-1]["content"].startswith("Program output:"):
            return reply("Sorry, that did not work.")
        return reply(f"```python\n{program}\n```")

    summary, requests = run(tmp_path, "smart_home", answer, "--limit", "1", "--max-turns", "1", "--code-timeout", "1")
    assert summary["failed_episodes"] == 0
    assert told in requests[1]["messages"][-1]["content"]
    episode = RunStore.open_existing(tmp_path / "r").episodes()[0]
    assert [e.code for e in episode.events if e.kind == "error"] == [f"agent:{fault}"]
    assert episode.events[-1].content == "Sorry, that did not work."


def test_the_program_limits_are_refused_for_other_agents(tmp_path: Path) -> None:
    args = ("--world", "smart_home", "--agent", "null", "--code-memory", "256", "--out", str(tmp_path))
    code, _, err = squall("run", *args)
    assert code == 2 and "limits what code: agents' programs use; agent 'null' is not one" in err


def test_stressors_reach_the_program_the_docs_it_reads_and_the_errors_it_gets(tmp_path: Path) -> None:
    pack = load_world("multidomain")
    writer = gold_program_writer(gold_programs(list(pack.tasks()), list(pack.tool_specs())))
    stressors = "adhoc.alarm_time_iso,failure.any_tool:rate=1"
    more = ("--limit", "1", "--max-turns", "1", "--stressors", stressors)
    summary, requests = run(tmp_path, "multidomain", writer, *more)
    assert summary["failed_episodes"] == 0
    episode = RunStore.open_existing(tmp_path / "r").episodes()[0]
    alarm = next(t for t in episode.tools if t.name == "create_alarm")  # its docs as the stressor rewrote them
    assert alarm.description != next(t for t in pack.tool_specs() if t.name == "create_alarm").description
    shown = requests[0]["messages"][0]["content"]
    assert all(line.strip() in shown for line in alarm.description.splitlines())
    failed = [e for e in episode.events if e.kind == "tool_result"]
    assert failed and all(not e.result.ok and e.scenarios for e in failed if e.result is not None)
    assert "ToolError: " in requests[1]["messages"][-1]["content"]  # the program's uncaught error, as the model sees


def test_a_program_past_the_turn_s_call_budget_ends_the_turn_as_a_native_agent_s_would(tmp_path: Path) -> None:
    def answer(request: dict[str, Any]) -> Canned:
        return reply("```python\nwhile True:\n    print(list_rooms())\n```")

    more = ("--limit", "1", "--max-turns", "1", "--max-steps", "3")
    summary, _ = run(tmp_path, "smart_home", answer, *more)
    assert summary["failed_episodes"] == 0
    episode = RunStore.open_existing(tmp_path / "r").episodes()[0]
    budget = calls_per_turn(episode.task, 3)  # --max-steps, or the gold's longest path where that is longer
    assert len([e for e in episode.events if e.kind == "tool_call"]) == budget  # the next call is refused, not run
    assert [e.content for e in episode.events if e.kind == "error"] == [f"more than {budget} tool calls in turn 0"]
    assert [e.code for e in episode.events if e.kind == "error"] == ["agent:step_limit"]
