"""The shipped ticket desk runs from its committed cache alone: oracle 1.0, null 0.0, under drift and
outage.backup too, and not one request reaches the simulator's model (the mock server's /stats)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import squall
from tests.support.mockllm_server import mock_llm_server
from tests.worlds.simulated.world_copy import desk_copy

SCORES = ("conversation_success", "core_api_accuracy", "completion")


def run(world: Path, out: Path, agent: str, run_id: str, *extra: str) -> dict[str, object]:
    code, _, err = squall(
        "run", "--world", str(world), "--agent", agent, "--out", str(out), "--run-id", run_id, "-q", *extra
    )
    assert code == 0, err
    summary: dict[str, object] = json.loads((out / run_id / "summary.json").read_text())
    return summary


@pytest.mark.slow
def test_oracle_and_null_from_the_cache_alone_with_drift_and_outage(tmp_path: Path) -> None:
    with mock_llm_server({"policy": {"kind": "echo"}}) as server:
        world = desk_copy(tmp_path, f"openai-chat:mock-model@{server.url}")
        before = sorted(p.read_text() for p in (world / "cache").glob("*.json"))
        oracle = run(world, tmp_path, "oracle", "oracle", "--cache", "read-only")
        null = run(world, tmp_path, "null", "null", "--cache", "read-only")
        drift = run(world, tmp_path, "oracle", "drift", "--stressors", "drift")
        outage = run(world, tmp_path, "oracle", "outage", "--stressors", "outage.backup")
        assert server.stats()["completions"] == 0
    for summary in (oracle, drift, outage):
        assert [summary[k] for k in SCORES] == [1.0, 1.0, 1.0] and summary["failed_episodes"] == 0
        assert summary["episodes"] == 20
    assert [null[k] for k in SCORES] == [0.0, 0.0, 0.0]
    assert sorted(p.read_text() for p in (world / "cache").glob("*.json")) == before
    fired = {
        scenario
        for run_id in ("drift", "outage")
        for line in (tmp_path / run_id / "episodes.jsonl").read_text().splitlines()
        for event in json.loads(line)["events"]
        for scenario in event.get("scenarios", [])
    }
    assert "outage.backup" in fired and any(s.startswith("drift.") for s in fired)
