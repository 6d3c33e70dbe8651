"""`squall worlds draft-gold` on an imported ToolBench world, the mock endpoint as drafting model, world model and
solvable_pass judge, over real HTTP: a query whose drafted calls execute gets gold (the queries kept as they were,
its provenance marked, the unstated optional argument left free, the other order accepted), one the simulator
answers 404 and one not answered with calls are dropped with their reasons; `worlds validate` counts the rest;
`worlds warm` fills an emptied cache from the drafted gold; then the oracle scores core API accuracy 1.0 with
`--cache read-only` and no world model request, the null agent 0.0, and the judge model gives solvable_pass."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import assert_clean_failure, squall
from tests.support.mockllm_server import mock_llm_server
from tests.worlds.simulated.world_copy import desk_copy
from tests.worlds.simulated_import.test_toolbench_import import YOUTUBE, query

SEARCH, VIDEO = "search_for_simple_youtube_search", "video_for_simple_youtube_search"
TOOL = "Simple YouTube Search"
CATS, MISSING, JOKE = "Find cat videos, then show the first.", "Show me video zz9.", "Tell me a joke about videos."
DRAFT = [{"name": SEARCH, "arguments": {"query": "cats", "limit": 5}}, {"name": VIDEO, "arguments": {"is_id": "v1"}}]
VERDICT = {"verdict": "solved", "reasons": "answers from the calls' results"}


def text(value: Any) -> list[dict[str, Any]]:
    return [{"text": value if isinstance(value, str) else json.dumps(value)}]


POLICY = {
    "kind": "script",
    "steps": [{"text": "done"}],
    "by_user": {  # first match wins: the drafting requests start "Request: <the query>"
        f"Request: {CATS}": text(f"```json\n{json.dumps(DRAFT)}\n```"),
        f"Request: {MISSING}": text([{"name": VIDEO, "arguments": {"is_id": "zz9"}}]),
        f"Request: {JOKE}": text("Why did the video stop? It needed a break."),
        f"Operation: {SEARCH}": text({"status": 200, "body": {"results": [{"id": "v1"}], "next": None}}),
        '/video/v1"': text({"status": 200, "body": {"id": "v1", "title": "Cat"}}),
        '/video/zz9"': text({"status": 404, "body": {"message": "no video zz9"}}),
        "Tool calls and results:": text(VERDICT),  # the solvable_pass judge
    },
}


@pytest.fixture
def world(tmp_path: Path) -> Path:
    tools = tmp_path / "tools" / "Data"
    tools.mkdir(parents=True)
    (tools / "simple_youtube_search.json").write_text(json.dumps(YOUTUBE), encoding="utf-8")
    queries = [query(7, CATS, [[TOOL, "Search"], [TOOL, "Video"]]), query(8, MISSING, [[TOOL, "Video"]]),
               query(9, JOKE, [[TOOL, "Search"]])]  # fmt: skip
    (tmp_path / "G1_instruction.json").write_text(json.dumps(queries), encoding="utf-8")
    out = tmp_path / "tb"
    code, _, err = squall("import", "toolbench", str(tools.parent), "--out", str(out),
                          "--queries", str(tmp_path / "G1_instruction.json"))  # fmt: skip
    assert code == 0, err
    return out


def run(world: Path, out: Path, run_id: str, agent: str, *more: str) -> dict[str, Any]:
    code, _, err = squall("run", "--world", str(world), "--agent", agent, "--cache", "read-only", "--out",
                          str(out), "--cache-dir", str(out / "gw"), "--run-id", run_id, "-q", "--no-preflight",
                          *more)  # fmt: skip
    assert code == 0, err
    summary: dict[str, Any] = json.loads((out / run_id / "summary.json").read_text())
    return summary


@pytest.mark.slow
def test_drafted_gold_calibrates_the_oracle_and_fills_the_cache(world: Path, tmp_path: Path) -> None:
    before = (world / "tasks.jsonl").read_text().splitlines()
    code, _, err = squall("worlds", "validate", str(world))
    assert code == 0 and "3 of 3 tasks have no executable gold" in " ".join(err.split())
    with mock_llm_server({"policy": POLICY}) as server:
        model = f"openai-chat:mock-model@{server.url}"
        code, out, err = squall("worlds", "draft-gold", str(world), "--model", model)
        assert code == 0, err
        assert "kept 1 / dropped 2 (does not execute 1, not a list of calls 1) of 3 tasks" in out, out
        assert f"dropped: task 8: does not execute: goals.0 path 0 call 0 ({VIDEO}): not_found" in out
        assert "2 of 3 tasks still have no executable gold" in out
        after = (world / "tasks.jsonl").read_text().splitlines()
        assert after[1:] == before[1:]  # the dropped ones as imported
        task = json.loads(after[0])
        goal = task["goals"][0]
        assert goal["user"] == json.loads(before[0])["goals"][0]["user"]  # the query as it was
        assert task["gold_source"] == f"drafted:{model}" and "gold-arguments-unknown" not in task["tags"]
        assert [c["arguments"] for c in goal["gold"]] == [{"query": "cats", "limit": 5}, {"is_id": "v1"}]
        assert [[c["name"] for c in path] for path in goal["alternatives"]] == [[VIDEO, SEARCH]]
        assert goal["free_arguments"] == [f"{SEARCH}.limit", f"{SEARCH}.safe"]  # optional, and the query says neither
        report = json.loads((world / "draft_gold_report.json").read_text())
        assert report["kept"] == ["7"] and [d["reason"] for d in report["dropped"]] == [
            "does not execute",
            "not a list of calls",
        ]
        code, out, err = squall("worlds", "validate", str(world))
        assert code == 0 and "4 gold calls executed" in out, out + err  # two orders of two calls
        assert "2 of 3 tasks have no executable gold" in " ".join(err.split())
        for cached in (world / "cache").glob("*.json"):
            cached.unlink()
        code, out, err = squall("worlds", "warm", str(world), "--model", model)
        assert code == 0 and "2 answers added" in out, out + err
        served = server.stats()["completions"]
        oracle = run(world, tmp_path, "oracle", "oracle")
        assert server.stats()["completions"] == served  # a read-only rerun asks no model at all
        judged = run(world, tmp_path, "judged", "oracle", "--judge-model", model)
        assert server.stats()["completions"] - served == judged["usage_by_role"]["judge"]["requests"] == 3
    for summary in (oracle, judged):
        assert summary["core_api_accuracy"] == 1.0 and summary["tasks_without_executable_gold"] == 2
        assert "world" not in summary["usage_by_role"]
    assert judged["solvable_pass_verdicts"]["solved"] == 3 and oracle["solvable_pass_not_judged"] == 3
    assert run(world, tmp_path, "null", "null")["core_api_accuracy"] == 0.0


def test_draft_gold_refuses_unknown_or_authored_tasks_and_built_in_worlds(world: Path, tmp_path: Path) -> None:
    model = "openai-chat:mock-model@http://127.0.0.1:9/v1"
    code, _, err = squall("worlds", "draft-gold", str(world), "--model", model, "--tasks", "7,70")
    assert_clean_failure(code, err, "--tasks: no task '70' in this world")
    code, _, err = squall("worlds", "draft-gold", "ticket_desk", "--model", model)
    assert_clean_failure(code, err, "ticket_desk: a built-in world")
    authored = desk_copy(tmp_path, None, ["td-01"])
    code, _, err = squall("worlds", "draft-gold", str(authored), "--model", model, "--tasks", "td-01")
    assert_clean_failure(code, err, "--tasks: task 'td-01' has its author's gold (never replaced)")
    code, out, err = squall("worlds", "draft-gold", str(authored), "--model", model)
    assert code == 0 and "nothing to draft" in out, err


@pytest.mark.slow
def test_a_provider_failure_keeps_what_was_drafted_and_exits_1(world: Path) -> None:
    """Request 1 drafts task 7, 2-3 simulate its calls; every attempt at task 8's draft fails (a 500, retried)."""
    failing = {"policy": POLICY, "faults": [{"kind": "server_error", "at": list(range(4, 20))}]}
    with mock_llm_server(failing) as server:
        code, out, _ = squall("worlds", "draft-gold", str(world), "--model", f"openai-chat:mock-model@{server.url}")
    assert code == 1 and "kept 1 / dropped 0 of 3 tasks" in out, out
    assert "stopped: the model failed for good (provider:http_500" in out and "--only-missing to carry on" in out
    task, *rest = (json.loads(line) for line in (world / "tasks.jsonl").read_text().splitlines())
    assert task["gold_source"].startswith("drafted:") and all("gold_source" not in t for t in rest)
    code, _, err = squall("worlds", "validate", str(world))
    assert code == 0 and "2 of 3 tasks have no executable gold" in " ".join(err.split())
