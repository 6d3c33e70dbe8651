"""``squall export --format tau2``: runs on τ²'s domains as one leaderboard submission (pass^1…pass^4 per domain in
percent, None past the run's trials), and every claim checked before anything is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import invoke

pytest.importorskip("worlds.tau2")


def run(tmp_path: Path, run_id: str, *args: str) -> Path:
    code, out = invoke("run", "--agent", "oracle", "--out", str(tmp_path), "--run-id", run_id, "-q", *args)
    assert code == 0, out
    return tmp_path / run_id


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tau2-runs")
    run(folder, "mock", "--world", "tau2:mock", "--trials", "2")
    run(folder, "airline", "--world", "tau2:airline", "--limit", "3", "--trials", "2")
    return folder


def test_two_domains_make_one_submission_with_pass_k_and_cost_printed(runs: Path, tmp_path: Path) -> None:
    code, out = invoke("export", str(runs / "mock"), str(runs / "airline"), "--format", "tau2", "--out", str(tmp_path))
    assert code == 0, out
    submission = json.loads((tmp_path / "submission.json").read_text())
    summary = json.loads((runs / "airline" / "summary.json").read_text())
    pass_1 = summary["tau2_by_domain"]["airline"]["pass_hat_k"]["1"]
    assert submission["results"]["airline"] == {"pass_1": round(100 * pass_1, 1), "pass_2": 100.0, "pass_3": None,
                                                "pass_4": None}  # fmt: skip
    assert set(submission["results"]) == {"mock", "airline"} and submission["model_name"] == "oracle"
    assert submission["submission_type"] == "custom" and submission["methodology"]["user_simulator"] == "scripted"
    assert submission["methodology"]["verification"]["omitted_questions"] is True  # airline played 3 of 50 tasks
    assert "airline: pass^1 100.0 pass^2 100.0 pass^3 — pass^4 —" in " ".join(out.split())
    assert "cost per task" in out


@pytest.mark.parametrize(
    ("which", "says"),
    [
        (["mock", "mock"], "two runs of one domain"),
        (["plain"], "is not one of τ²'s"),
        (["stressed"], "a τ² submission is of unstressed runs only"),
    ],
)
def test_what_a_submission_cannot_claim_is_refused_and_nothing_written(
    runs: Path, tmp_path: Path, which: list[str], says: str
) -> None:
    if "plain" in which:
        run(runs, "plain", "--world", "smart_home", "--limit", "1")
    if "stressed" in which:
        run(runs, "stressed", "--world", "tau2:mock", "--stressors", "outage")
    code, out = invoke("export", *(str(runs / w) for w in which), "--format", "tau2", "--out", str(tmp_path / "x"))
    assert code == 2 and says in " ".join(out.split()), out
    assert not (tmp_path / "x").exists()


def test_several_runs_need_the_tau2_format(runs: Path) -> None:
    code, out = invoke("export", str(runs / "mock"), str(runs / "airline"))
    assert code == 2 and "several only with --format tau2" in out
