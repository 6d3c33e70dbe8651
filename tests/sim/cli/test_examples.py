"""The shipped example configs run: examples/mock.toml serves, examples/run.toml runs against it, and
examples/sweep.toml runs each of its agents over the same plan and seeds, then ranks them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sim.cli.sweep import plan_sweep, split_agents
from sim.mockllm.config import load_mock_config
from tests.support.cli import squall
from tests.support.mockllm_server import REPO_ROOT, mock_llm_server

EXAMPLES = REPO_ROOT / "examples"


@pytest.fixture(autouse=True)
def eighty_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")


def test_run_toml_against_the_mock_toml_endpoint(tmp_path: Path) -> None:
    cfg = load_mock_config(EXAMPLES / "mock.toml")
    assert cfg.policy.kind == "first_tool" and cfg.faults  # the example shows faults, not only a happy path
    with mock_llm_server(EXAMPLES / "mock.toml") as srv:
        agent = f"openai-chat:mock-model@{srv.url}"  # the example's URL names port 8765; the test's mock is elsewhere
        code, out, err = squall("run", "-c", str(EXAMPLES / "run.toml"), "--agent", agent, "--out", str(tmp_path),
                                "--run-id", "example", "-q")  # fmt: skip
        served = srv.stats()
    assert code == 0, out + err
    summary = json.loads((tmp_path / "example" / "summary.json").read_text())
    assert summary["episodes"] == 6 and summary["scored_episodes"] == 6  # 3 tasks x 2 trials, faults retried
    assert served["rate_limited"] >= 1 and served["faults"].get("server_error", 0) >= 1  # the faults fired


def test_sweep_toml_runs_each_agent_in_one_family_and_ranks_them(tmp_path: Path) -> None:
    code, out, err = squall("run", "-c", str(EXAMPLES / "sweep.toml"), "--limit", "2", "--out", str(tmp_path),
                            "--run-id", "sw", "-q")  # fmt: skip
    assert code == 0, out + err
    family = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("sw-"))
    assert family == ["sw-naive", "sw-null", "sw-oracle"]
    seeds = {json.loads((tmp_path / f / "manifest.json").read_text())["config"]["seed"] for f in family}
    assert len(seeds) == 1
    assert "leaderboard: core_api_accuracy by agent" in out and max(len(x) for x in out.splitlines()) <= 80
    code, listed, _ = squall("runs", "list", str(tmp_path), "--json")
    assert code == 0 and {r["sweep"] for r in json.loads(listed)} == {"sw"}
    code, board, _ = squall("leaderboard", *(str(tmp_path / f) for f in family), "--by", "sweep", "--json")
    (pooled,) = json.loads(board)["boards"]
    assert code == 0 and [r["name"] for r in pooled["rows"]] == ["sw"]  # one sweep, three runs pooled


def test_which_agent_values_make_a_sweep() -> None:
    assert split_agents("oracle,null") == ["oracle", "null"]
    assert split_agents(["a", "b"]) == ["a", "b"]
    assert split_agents("oracle") is None and split_agents("oracle,") is None
    assert split_agents("command:'prog --x a,b'") is None  # a program's arguments may hold commas
    plan = plan_sweep(["run", "--agent=oracle,text:openai-chat:m@http://h/v1", "--run-id", "b", "--out", "o"])
    assert plan is not None
    base, out, members = plan
    assert (base, out) == ("b", Path("o"))
    assert [m[0] for m in members] == ["b-oracle", "b-text_openai-chat_m_http_h_v1"]
    assert members[0][1] == ["run", "--out", "o", "--agent", "oracle", "--run-id", "b-oracle"]
    assert plan_sweep(["run", "--agent", "a,b", "--resume"]) is None and plan_sweep(["score", "x"]) is None
