"""Judge faults are not done (resume and ``squall score`` re-run them); re-judging appends a score set,
``squall report`` shows the newest or a named one; plans are lazy."""

from __future__ import annotations

import itertools
import json
import tracemalloc
from pathlib import Path

import pytest

import sim.judging.judge_set
import sim.run.runner
from sim.config.run_config import ConfigError, RunConfig
from sim.core import EpisodeResult, Score
from sim.judging.judge_set import judge_names
from sim.run.plan import make_plan
from tests.support.cli import squall
from worlds.registry import load_world


class CrashingJudge:
    name = "core_api_accuracy"

    async def score(self, result: EpisodeResult) -> Score:
        raise RuntimeError("judge blew up")


def crash_core_judge(monkeypatch: pytest.MonkeyPatch) -> None:
    real = sim.judging.judge_set.build_judges
    monkeypatch.setattr(
        sim.judging.judge_set, "build_judges", lambda cfg, rater=None: [CrashingJudge(), *real(cfg)[1:]]
    )


def summary(run_dir: Path) -> dict[str, object]:
    return dict(json.loads((run_dir / "summary.json").read_text()))


def score_lines(run_dir: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (run_dir / "scores.jsonl").read_text().splitlines()]


ORACLE = ["run", "--agent", "oracle", "--limit", "2", "--run-id", "r", "-q"]


def test_resume_reruns_judge_faults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    crash_core_judge(monkeypatch)
    assert squall(*ORACLE, "--out", str(tmp_path))[0] == 0
    run_dir = tmp_path / "r"
    assert summary(run_dir)["judge_faults"] == 2 and summary(run_dir)["core_api_accuracy"] is None
    monkeypatch.undo()
    code, _, err = squall("run", "--resume", "--run-id", "r", "--out", str(tmp_path), "-q")
    assert code == 0, err
    assert summary(run_dir)["judge_faults"] == 0 and summary(run_dir)["core_api_accuracy"] == 1.0
    lines = score_lines(run_dir)
    # Per episode: the fault and every other judge's verdict kept as written, and the re-run verdict appended.
    assert len(lines) == 2 * (len(judge_names()) + 1)
    assert [line["value"] for line in lines if line["judge"] == "core_api_accuracy"] == [None, None, 1.0, 1.0]
    # Nothing left to do: a second resume judges nothing more.
    assert squall("run", "--resume", "--run-id", "r", "--out", str(tmp_path), "-q")[0] == 0
    assert len(score_lines(run_dir)) == 2 * (len(judge_names()) + 1)


def test_score_reruns_judge_faults_and_appends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    crash_core_judge(monkeypatch)
    assert squall(*ORACLE, "--out", str(tmp_path))[0] == 0
    monkeypatch.undo()
    run_dir = tmp_path / "r"
    before = (run_dir / "scores.jsonl").read_text()
    code, out, err = squall("score", str(run_dir))
    assert code == 0, err
    assert (run_dir / "scores.jsonl").read_text().startswith(before)
    assert summary(run_dir)["judge_faults"] == 0 and summary(run_dir)["core_api_accuracy"] == 1.0
    code, out, _ = squall("report", str(run_dir), "--json")
    assert json.loads(out)["core_api_accuracy"] == 1.0


def test_report_names_an_unknown_score_set(tmp_path: Path) -> None:
    assert squall(*ORACLE, "--out", str(tmp_path))[0] == 0
    code, _, err = squall("report", str(tmp_path / "r"), "--score-set", "ffff")
    assert code == 2 and "no score set matches 'ffff'" in " ".join(err.split())


@pytest.mark.embedding
@pytest.mark.slow
def test_score_with_other_judge_settings_is_a_new_set_and_the_old_stays_readable(tmp_path: Path) -> None:
    pytest.importorskip("sentence_transformers")
    assert squall(*ORACLE, "--out", str(tmp_path))[0] == 0
    run_dir = tmp_path / "r"
    first = json.loads(squall("report", str(run_dir), "--json")[1])
    code, _, err = squall("score", str(run_dir), "--arg-match", "embedding")
    assert code == 0, err
    newest = json.loads(squall("report", str(run_dir), "--json")[1])
    assert newest["score_set"] != first["score_set"]
    assert newest["score_set_config"]["arg_match"] == "embedding"
    assert newest["score_sets"] == [first["score_set"], newest["score_set"]]
    older = json.loads(squall("report", str(run_dir), "--json", "--score-set", first["score_set"][:6])[1])
    assert older["score_set"] == first["score_set"] and older["core_api_accuracy"] == first["core_api_accuracy"]


def test_plans_are_lazy_and_absurd_ones_refused() -> None:
    pack = load_world("smart_home")
    tracemalloc.start()
    plan = make_plan(RunConfig(agent="oracle", trials=100_000), pack)
    first = list(itertools.islice(plan, 25))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(plan) == 1_000_000 and peak < 2_000_000  # the plan costs its task list, not a million specs
    # Trial-major: any prefix covers every task.
    assert [s.trial for s in first[:10]] == [0] * 10 and len({s.task.id for s in first[:10]}) == 10
    with pytest.raises(ConfigError, match="split it into several runs"):
        make_plan(RunConfig(agent="oracle", trials=100_001), pack)
