"""`squall worlds draft-tasks` on a generated 250-operation spec against the mock endpoint: every prompt under
``--max-prompt-tokens`` with the operations it offered printed; a repeated draft kept once and counted; a lookup
with no answer and an answer no response holds dropped; the kept goal carries ``answer`` and ``gold_answer`` and
leaves free the optional arguments its request does not state. Then a run of the drafted task: the oracle 1.0, the
null agent 0.0, an agent adding ``limit: 10`` passes, one with a wrong status fails."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import squall
from tests.support.mockllm_server import mock_llm_server
from tests.worlds.simulated.many_operations import many_operations_spec

BODY = {"items": [{"id": "a1", "name": "Alpha", "status": "active"}]}
LIST_ACTIVE = {"name": "list_r00", "arguments": {"status": "active"}}
GET_A1 = {"name": "get_r00", "arguments": {"id": "a1"}}
DRAFT = {"request": "Which r00 items are active?", "calls": [LIST_ACTIVE], "answer": ["Alpha"]}
BOUND = 3_000


def reply(value: Any) -> list[dict[str, Any]]:
    return [{"text": json.dumps(value)}]


def agent(arguments: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"tool_calls": [{"name": "list_r00", "arguments": arguments}]}, {"text": "Alpha"}]


def policy(agent_arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": "script",
        "steps": [{"text": "done"}],
        "by_user": {
            "Write task 1 of 4": reply(DRAFT),
            "Write task 2 of 4": reply(DRAFT),  # byte for byte the first: kept once
            "Write task 3 of 4": reply({"request": "Show item a1", "calls": [GET_A1]}),
            "Write task 4 of 4": reply({"request": "Any archived r00?", "calls": [LIST_ACTIVE], "answer": 7}),
            '"path": "/r00"': reply({"status": 200, "body": BODY}),  # the simulator, for list_r00 whatever its query
            '"path": "/r00/a1"': reply({"status": 200, "body": BODY["items"][0]}),
            "Which r00 items are active?": agent(agent_arguments),  # the agent under test, on the drafted request
        },
    }  # fmt: skip


def run(world: Path, out: Path, run_id: str, agent_spec: str, *more: str) -> dict[str, Any]:
    code, _, err = squall("run", "--world", str(world), "--agent", agent_spec, "--out", str(out), *more,
                          "--cache-dir", str(out / "gateway"), "--run-id", run_id, "-q", "--no-preflight")  # fmt: skip
    assert code == 0, err
    summary: dict[str, Any] = json.loads((out / run_id / "summary.json").read_text())
    return summary


@pytest.mark.slow
def test_bounded_drafts_deduplicated_answered_and_scored_with_free_arguments(tmp_path: Path) -> None:
    spec = tmp_path / "many.json"
    spec.write_text(json.dumps(many_operations_spec()), encoding="utf-8")
    world, drafts = tmp_path / "many", tmp_path / "many" / "drafts.jsonl"
    with mock_llm_server({"policy": policy({"status": "active", "limit": 10})}) as server:
        model = f"openai-chat:mock-model@{server.url}"
        code, _, err = squall("import", "openapi", str(spec), "--out", str(world), "--model", model)
        assert code == 0, err
        code, _, err = squall("worlds", "draft-tasks", str(world), "--out", str(drafts), "--group", "nope")
        assert code == 2 and "--group: 'nope' is not one of search, tag, spec" in err and not drafts.exists()
        code, out, err = squall("worlds", "draft-tasks", str(world), "--n", "4", "--out", str(drafts),
                                "--max-prompt-tokens", str(BOUND))  # fmt: skip
        assert code == 0, err
        offered = [(int(m[1]), int(m[2])) for m in re.finditer(r"(\d+) of 250 operations offered, (\d+) prompt", out)]
        assert len(offered) == 4 and all(1 < ops < 250 and tokens <= BOUND for ops, tokens in offered), out
        assert "1 of 4 drafts kept; 1 repeat dropped" in out
        assert "repeat: draft 2 has the same request and calls as draft-000" in out
        assert "dropped draft 3: a lookup with no answer" in out
        assert "dropped draft 4: answer '7' is no value of the gold calls' responses" in out
        (task,) = [json.loads(line) for line in drafts.read_text().splitlines()]
        goal = task["goals"][0]
        assert goal["answer"] == ["Alpha"] and goal["gold_answer"] == "Alpha"
        assert "list_r00.limit" in goal["free_arguments"] and "list_r00.status" not in goal["free_arguments"]
        (world / "tasks.jsonl").write_text(drafts.read_text(), encoding="utf-8")
        added = run(world, tmp_path, "added", model, "--cache", "read-write")  # the extra limit: simulated, scored
    assert (added["core_api_accuracy"], added["completion"]) == (1.0, 1.0)
    assert run(world, tmp_path, "oracle", "oracle", "--cache", "read-only")["core_api_accuracy"] == 1.0
    assert run(world, tmp_path, "null", "null", "--cache", "read-only")["core_api_accuracy"] == 0.0
    with mock_llm_server({"policy": policy({"status": "archived", "limit": 10})}) as server:
        model = f"openai-chat:mock-model@{server.url}"
        wrong = run(world, tmp_path, "wrong", model, "--cache", "read-write", "--world-model", model)
    assert wrong["core_api_accuracy"] == 0.0
