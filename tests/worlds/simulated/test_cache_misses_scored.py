"""Every episode accounted for on the shipped ticket desk under a read-only cache: a valid call off the recorded
path (an extra optional argument) is a 503 the agent reads, counted as a cache miss, and its episode is scored; a
call the world could not produce (a cached simulation failure) leaves its episode unscored, named by cause in the
headline with the world's advice (not a provider's)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import squall
from tests.support.mockllm_server import mock_llm_server
from tests.worlds.simulated.world_copy import desk_copy


def call_step(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


POLICY = {
    "kind": "script",
    "steps": [{"text": "done"}],
    "by_user": {
        # td-19, off the gold: a limit the drafted call did not have
        "Which tickets are pending": [call_step("listTickets", {"status": "pending", "limit": 10}), {"text": "?"}],
        # td-03, off the gold, where this copy's cache holds a simulation failure
        "first-response and resolution targets": [call_step("getSla", {"priority": "high"}), {"text": "?"}],
        # td-05, on the gold, cached
        "Which plan is the customer": [call_step("getCustomer", {"email": "li.wei@example.com"}), {"text": "team"}],
    },
}


@pytest.mark.slow
def test_off_path_calls_are_scored_misses_and_unscored_episodes_are_named_by_cause(tmp_path: Path) -> None:
    with mock_llm_server({"policy": POLICY}) as server:
        world = desk_copy(tmp_path, None, tasks=["td-03", "td-05", "td-19"])
        sla = world / "cache" / "getSla.json"
        cached = json.loads(sla.read_text())
        failed = {"arguments": {"priority": "high"}, "state": "", "response": {"simulation_failed": "no JSON"}}
        sla.write_text(json.dumps({**cached, "entries": [*cached["entries"], {**failed, "model": "m"}]}))
        code, out, err = squall(
            "run", "--world", str(world), "--agent", f"openai-chat:mock-model@{server.url}", "--cache", "read-only",
            "--cache-dir", str(tmp_path / "gateway"), "--out", str(tmp_path), "--run-id", "r", "--no-preflight",
        )  # fmt: skip
    assert code == 0, err
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert (summary["episodes"], summary["scored_episodes"]) == (3, 2)
    assert summary["failed_by_code"] == {"world:simulation_failed": 1} and summary["cache_misses"] == 1
    episodes = [json.loads(line) for line in (tmp_path / "r" / "episodes.jsonl").read_text().splitlines()]
    (missed,) = [
        ev["result"] for e in episodes for ev in e["events"] if ev["kind"] == "tool_result" and e["task_id"] == "td-19"
    ]
    assert missed["status"] == "unavailable" and "recorded responses" in missed["content"]["error"]
    markdown = (tmp_path / "r" / "summary.md").read_text()
    for shown in (" ".join(out.split()), " ".join(markdown.split())):
        assert "1 of 3 episodes not scored: world:simulation_failed 1" in shown
        assert "squall worlds warm" in shown and "endpoint is back" not in shown
        assert "cache misses" in shown
