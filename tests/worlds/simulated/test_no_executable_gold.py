"""A ToolBench-style world whose gold names the APIs without their arguments: an agent calling exactly the right
APIs scores intent F1 1.0, and core API accuracy, conversation success and slot F1 are n/a with the reason (never
0); `worlds validate` warns that no gold could be executed (exit 1 only under --strict)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import squall
from tests.support.mockllm_server import mock_llm_server
from tests.worlds.simulated_import.test_toolbench_import import YOUTUBE, query
from worlds.registry import load_world
from worlds.stressors.catalog import builtin_scenarios
from worlds.stressors.types.drift_auto import plan_for

SEARCH, VIDEO = "search_for_simple_youtube_search", "video_for_simple_youtube_search"
REQUEST = "Find cat videos, then show the first."
POLICY = {
    "kind": "script",
    "steps": [
        {"tool_calls": [{"name": SEARCH, "arguments": {"query": "cats"}}]},
        {"tool_calls": [{"name": VIDEO, "arguments": {"is_id": "v1"}}]},
        {"text": "The first cat video is v1."},
    ],
}
RELEVANT = [["Simple YouTube Search", "Search"], ["Simple YouTube Search", "Video"]]


def cached(operation: str, arguments: dict[str, Any], body: Any) -> dict[str, Any]:
    entry = {"arguments": arguments, "state": "", "response": {"status": 200, "body": body}, "model": "hand-written"}
    return {"operation": operation, "entries": [entry]}


@pytest.fixture
def world(tmp_path: Path) -> Path:
    tools = tmp_path / "tools" / "Data"
    tools.mkdir(parents=True)
    (tools / "simple_youtube_search.json").write_text(json.dumps(YOUTUBE), encoding="utf-8")
    queries = tmp_path / "G1_instruction.json"
    queries.write_text(json.dumps([query(7, REQUEST, RELEVANT)]), encoding="utf-8")
    out = tmp_path / "tb"
    code, _, err = squall("import", "toolbench", str(tmp_path / "tools"), "--out", str(out), "--queries", str(queries))
    assert code == 0, err
    # The agent's calls, answered from the cache (ToolBench's defaults are examples: nothing is filled in).
    search = cached(SEARCH, {"query": "cats"}, {"results": [{"id": "v1"}], "next": None})
    for operation, document in ((SEARCH, search), (VIDEO, cached(VIDEO, {"is_id": "v1"}, {"id": "v1"}))):
        (out / "cache" / f"{operation}.json").write_text(json.dumps(document), encoding="utf-8")
    return out


def test_validate_warns_about_tasks_without_executable_gold(world: Path) -> None:
    code, out, err = squall("worlds", "validate", str(world))
    assert code == 0, err
    assert "0 gold calls executed" in out and "ok:" not in out
    assert "1 of 1 tasks have no executable gold: their gold calls lack required arguments" in " ".join(err.split())
    assert squall("worlds", "validate", str(world), "--strict")[0] == 1


@pytest.mark.slow
def test_an_agent_on_the_right_apis_gets_n_a_not_zero(world: Path, tmp_path: Path) -> None:
    with mock_llm_server({"policy": POLICY}) as server:
        code, out, err = squall(
            "run", "--world", str(world), "--agent", f"openai-chat:mock-model@{server.url}", "--cache", "read-only",
            "--cache-dir", str(tmp_path / "gateway"), "--out", str(tmp_path), "--run-id", "r", "--no-preflight",
        )  # fmt: skip
    assert code == 0, err
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["scored_episodes"] == 1 and summary["tasks_without_executable_gold"] == 1
    assert summary["core_api_accuracy"] is None and summary["conversation_success"] is None
    assert summary["call_f1"]["intent"]["f1"] == 1.0 and summary["call_f1"]["slot"]["f1"] is None
    shown = " ".join(out.split())
    assert "1 task has no executable gold: its gold calls lack required arguments" in shown
    assert "core API accuracy │ n/a" in shown


def test_drift_still_renames_an_endpoint_the_gold_only_names(world: Path) -> None:
    """The loaded world's real schemas require arguments this gold does not give: the auto pick reads the gold's
    names instead, so an endpoint rename still fits, and nothing that needs arguments does."""
    (task,) = load_world(str(world)).tasks()
    rows = {s.params["op"]: s for s in builtin_scenarios() if s.type == "drift" and "*" in s.tools}
    plans = {op: plan_for(task, row) for op, row in rows.items()}
    renamed = plans.pop("rename_endpoint")
    assert renamed is not None and renamed.tools <= {SEARCH, VIDEO}
    assert all(plan is None for plan in plans.values()), plans
