"""Three real runs of smart_home for the viewer's tests: a model agent (the mock OpenAI-compatible server) under
isolated stressors, the oracle and the null agent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import squall
from tests.support.mockllm_server import mock_llm_server

COMMON = ("--world", "smart_home", "--limit", "3", "--trials", "2", "--error-judge", "off", "-q")


@pytest.fixture(scope="package")
def view_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("view-runs")
    with mock_llm_server({"policy": {"kind": "first_tool"}}) as server:
        agent = f"openai-chat:mock-model@{server.url}"
        stress = ("--stressors", "outage,failure", "--stressor-mode", "isolated")
        code, _, err = squall("run", "--agent", agent, *stress, *COMMON, "--out", str(out), "--run-id", "mock-stress")
        assert code == 0, err
    for agent in ("oracle", "null"):
        code, _, err = squall("run", "--agent", agent, *COMMON, "--out", str(out), "--run-id", agent)
        assert code == 0, err
    return out


def fired_episode(run: Path) -> tuple[str, str]:
    """(episode id, scenario) of the first stored episode where a stressor fired on a tool result."""
    for line in (run / "episodes.jsonl").read_text().splitlines():
        episode = json.loads(line)
        fired = [s for ev in episode["events"] for s in ev["scenarios"]]
        if fired:
            return episode["episode_id"], fired[0]
    raise AssertionError(f"no stressor fired in {run}")
