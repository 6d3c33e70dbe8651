"""Three real runs of smart_home for the viewer's tests: a model agent (the mock OpenAI-compatible server) under
isolated stressors, the oracle and the null agent."""

from __future__ import annotations

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
