"""A ToolBench-style world end to end with the mock endpoint as agent and as judge: the solvable pass rate comes from
the judge model's verdict (in summary.json and the table), the judge's requests show as a role of their own, its
reasons are kept with the score; without a judge model the rate is "not judged", never a pass or a 0."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import squall
from tests.support.mockllm_server import mock_llm_server
from tests.worlds.simulated.test_no_executable_gold import POLICY, world

__all__ = ["world"]  # the imported ToolBench world fixture

VERDICT = {"verdict": "solved", "reasons": "names the first cat video the search returned"}
MOCK = {"policy": {**POLICY, "by_user": {"Tool calls and results:": [{"text": json.dumps(VERDICT)}]}}}


def run(world: Path, out: Path, run_id: str, *judging: str) -> tuple[dict[str, object], str]:
    with mock_llm_server(MOCK) as server:
        model = f"openai-chat:mock-model@{server.url}"
        code, shown, err = squall(
            "run", "--world", str(world), "--agent", model, "--cache", "read-only", "--cache-dir", str(out / "gw"),
            "--out", str(out), "--run-id", run_id, "--no-preflight", *(a.replace("MOCK", model) for a in judging),
        )  # fmt: skip
    assert code == 0, err
    return json.loads((out / run_id / "summary.json").read_text()), " ".join(shown.split())


@pytest.mark.slow
def test_the_judge_model_gives_the_solvable_pass_rate(world: Path, tmp_path: Path) -> None:
    summary, shown = run(world, tmp_path, "judged", "--judge-model", "MOCK")
    assert summary["solvable_pass"] == 1.0 and summary["solvable_pass_goals"] == 1
    assert summary["solvable_pass_verdicts"] == {"solved": 1, "unsure": 0, "unsolved": 0}
    assert summary["core_api_accuracy"] is None and summary["tasks_without_executable_gold"] == 1  # n/a, not 0
    assert summary["usage_by_role"]["judge"]["requests"] >= 1
    scores = [json.loads(line) for line in (tmp_path / "judged" / "scores.jsonl").read_text().splitlines()]
    (solvable,) = [s for s in scores if s["judge"] == "solvable_pass"]
    assert solvable["details"]["reasons"] == {"0": VERDICT["reasons"]}
    assert solvable["details"]["judge_usage"]["requests"] == 1
    assert "│ solvable pass rate │ 100.0% │ [20.6, 100.0] │ 1 goals (1 solved, 0 │" in shown  # the row, wrapped
    assert "usage per role" in shown and "judge" in shown
    assert "solvable pass rate │ n/a" not in shown  # the gold-based row of that name has nothing to say here


@pytest.mark.slow
def test_without_a_judge_model_the_rate_is_not_judged(world: Path, tmp_path: Path) -> None:
    summary, shown = run(world, tmp_path, "plain")
    assert summary["solvable_pass"] is None and summary["solvable_pass_not_judged"] == 1
    assert "not judged" in shown and "--judge-model" in shown
