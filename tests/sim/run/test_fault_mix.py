"""A fault mix at the endpoint — 5% 429, 5% 5xx, 2% hangs past the request timeout, 2% malformed bodies — over
real HTTP: every episode completes or fails with the right category, and the harness never crashes."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tests.support.cli import squall
from tests.support.mockllm_server import mock_llm_server

MIX = {
    "policy": {"kind": "first_tool"},
    "seed": 7,
    "faults": [
        {"kind": "rate_limit", "probability": 0.05, "retry_after_s": 0.2},
        {"kind": "server_error", "probability": 0.05, "status": 503},
        {"kind": "timeout", "probability": 0.02, "hang_s": 5.0},  # past the 1 s request timeout below
        {"kind": "malformed", "probability": 0.02},
    ],
}
PROVIDER_CODES = {
    "provider:rate_limited",
    "provider:http_503",
    "provider:timeout",
    "provider:malformed_response",
}


@pytest.mark.slow
def test_a_fault_mix_ends_every_episode_in_its_right_category(tmp_path: Path) -> None:
    config = tmp_path / "run.toml"
    config.write_text("[retry]\nmax_attempts = 4\nbase_delay_s = 0.05\nmax_delay_s = 0.2\nmax_malformed = 2\n")
    with mock_llm_server(MIX) as server:
        code, _, err = squall(
            "run", "--config", str(config), "--agent", f"openai-chat:mock-model@{server.url}", "--trials", "6",
            "--concurrency", "20", "--request-timeout", "1", "--out", str(tmp_path), "--run-id", "r", "-q",
        )  # fmt: skip
        stats = server.stats()
    assert code == 0, err
    assert sum(stats["faults"].values()) >= 10  # the mix really fired
    episodes = [json.loads(line) for line in (tmp_path / "r" / "episodes.jsonl").read_text().splitlines()]
    assert len(episodes) == 60
    terminations = Counter(e["termination"] for e in episodes)
    assert set(terminations) <= {"completed", "provider_error"}, terminations
    assert terminations["completed"] >= 50
    codes = Counter(
        ev["code"] for e in episodes for ev in e["events"] if ev["kind"] == "error" and ev["fault"] == "provider"
    )
    assert set(codes) <= PROVIDER_CODES and len(codes) >= 3, codes
    for e in episodes:
        faults = {ev["fault"] for ev in e["events"] if ev["kind"] == "error"}
        assert "harness" not in faults
        if e["termination"] == "provider_error":  # gave up: the last event says on what
            assert e["events"][-1]["fault"] == "provider"
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["failed_episodes"] == terminations["provider_error"]
    assert summary["scored_episodes"] == terminations["completed"]
