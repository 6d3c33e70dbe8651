"""``--agent sql:MODEL``, the SQL-writing baseline, through a whole run over real HTTP (a canned provider): a scripted
model that writes each question's gold SQL and answers with the rows scores 1.0 on the answer judges, the null agent
0.0; core API accuracy is n/a (the agent calls no world function), never 0; any other world is refused by name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sim.store.run_store import RunStore
from tests.support.canned_provider import Canned, canned_provider
from tests.support.cli import squall
from worlds.sql.sample import SAMPLE_DIR

GOLD_SQL = {q["question"]: q["query"] for q in json.loads((SAMPLE_DIR / "questions.json").read_text())}
COMMON = ("--world", "sql_sample", "--max-turns", "1", "--error-judge", "off", "--no-preflight", "--run-id", "r")


def _reply(message: dict[str, Any], finish: str) -> Canned:
    usage = {"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55}
    choice = {"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}
    return Canned({"id": "x", "object": "chat.completion", "model": "m", "choices": [choice], "usage": usage})


def gold_sql_writer(request: dict[str, Any]) -> Canned:
    """Writes the question's gold SQL, then answers with the rows it got back, as JSON."""
    messages = request["messages"]
    assert [t["function"]["name"] for t in request["tools"]] == ["execute_sql"]
    assert "CREATE TABLE" in messages[0]["content"]
    if messages[-1]["role"] == "tool":
        return _reply({"content": messages[-1]["content"]}, "stop")
    question = next(m["content"] for m in reversed(messages) if m["role"] == "user")
    call = {"id": "c1", "type": "function", "function": {"name": "execute_sql", "arguments": ""}}
    call["function"]["arguments"] = json.dumps({"query": GOLD_SQL[question]})
    return _reply({"content": None, "tool_calls": [call]}, "tool_calls")


def test_a_gold_sql_writer_scores_one_on_answers_and_core_api_is_na(tmp_path: Path) -> None:
    with canned_provider(gold_sql_writer) as server:
        code, _, err = squall("run", *COMMON, "--out", str(tmp_path), "--agent", f"sql:openai-chat:m@{server.url}")
    assert code == 0, err
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    tasks = len(GOLD_SQL)
    assert summary["scored_episodes"] == tasks
    assert summary["completion"] == 1.0 and summary["answer_facts"] == 1.0
    assert summary["core_api_accuracy"] is None and summary["scored_turns"] == 0
    loops = summary["agent_loops"]  # one request writes the SQL, one answers: 2 per question
    assert (loops["mean"], loops["goals"], loops["counted_from"]) == (2.0, tasks, "model requests")
    assert "n/a: the agent writes SQL (sql:), it calls no world function" in (tmp_path / "r" / "summary.md").read_text()
    episode = RunStore.open_existing(tmp_path / "r").episodes()[0]
    assert [t.name for t in episode.tools] == ["execute_sql"]
    assert "CREATE TABLE" in episode.instructions


def test_the_null_agent_scores_zero_on_the_same_answers(tmp_path: Path) -> None:
    code, _, err = squall("run", *COMMON, "--out", str(tmp_path), "--agent", "null")
    assert code == 0, err
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["completion"] == 0.0 and summary["answer_facts"] == 0.0
    assert summary["agent_loops"]["mean"] == 1.0  # it declines at once


def test_another_world_is_refused_before_the_run(tmp_path: Path) -> None:
    args = ("--world", "smart_home", "--agent", "sql:openai-chat:m@http://127.0.0.1:9/v1", "--no-preflight")
    code, _, err = squall("run", *args, "--out", str(tmp_path), "--run-id", "r")
    assert code == 2 and "--agent: world 'smart_home' is not a SQL world" in err
    assert not (tmp_path / "r").exists()
