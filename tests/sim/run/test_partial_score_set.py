"""Issue 25, item 4: ``squall score`` interrupted with 21 of 300 episodes re-judged. The report and the summary say
"21 of 300", never numbers presented as complete; ``squall score --resume`` completes that set (no new set), and
the completed set's numbers are a fresh full score's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sim.cli.app import run_cli
from sim.report.sections import headline_rows
from sim.run.rescore import summary_of
from sim.store.run_store import RunStore

pytestmark = pytest.mark.reliability

EPISODES, JUDGED = 300, 21


def _interrupt_after(run: Path, score_set: str, episodes: int) -> None:
    """The store as a kill -9 leaves it ``episodes`` episodes into re-judging ``score_set``: one writer appends whole
    lines, so what stays is a prefix of the set's lines, and at worst a torn last line."""
    kept: list[str] = []
    seen: list[str] = []
    for line in (run / "scores.jsonl").read_text(encoding="utf-8").splitlines(keepends=True):
        score = json.loads(line)
        if score["judge_config"] == score_set and score["episode_id"] not in seen:
            if len(seen) == episodes:
                break
            seen.append(score["episode_id"])
        kept.append(line)
    (run / "scores.jsonl").write_text("".join(kept) + '{"episode_id": "sh-0', encoding="utf-8")


def _report(run: Path, capsys: pytest.CaptureFixture[str], *options: str) -> str:
    capsys.readouterr()
    assert run_cli(["report", str(run), "--no-html", *options]) == 0
    return capsys.readouterr().out


@pytest.mark.slow
def test_an_interrupted_score_says_n_of_n_and_resume_completes_it_to_a_fresh_full_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "r"
    assert run_cli(["run", "--agent", "oracle", "--world", "smart_home", "--trials", "30", "--error-judge", "off",
                    "--out", str(tmp_path), "--run-id", "r", "-q"]) == 0  # fmt: skip
    rescore = ["score", str(run), "--arg-match", "normalised"]
    assert run_cli(rescore) == 0
    full = json.loads(_report(run, capsys, "--json"))
    score_set = full["score_set"]
    assert full["episodes"] == EPISODES and "judged_episodes" not in full

    _interrupt_after(run, score_set, JUDGED)
    partial = json.loads(_report(run, capsys, "--json"))
    assert partial["score_set"] == score_set
    assert (partial["judged_episodes"], partial["episodes"]) == (JUDGED, EPISODES)
    text = " ".join(_report(run, capsys).split())
    assert f"INCOMPLETE score set: {JUDGED} of {EPISODES} episodes judged" in text
    assert "squall score RUN_DIR --resume" in text
    assert f"{JUDGED} / {EPISODES}" in text  # the headline's judged / finished row
    rows = headline_rows(summary_of(run, None))
    overs = {row[0]: row[3] for row in rows}
    assert overs["conversation success"] == f"{JUDGED} episodes"
    assert not [row for row in rows if str(EPISODES) in row[3]]  # no number claims to cover all 300
    markdown = (run / "summary.md").read_text(encoding="utf-8")  # the run's own, complete set: no warning
    assert "INCOMPLETE" not in markdown

    capsys.readouterr()
    assert run_cli([*rescore, "--resume"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"judged the {EPISODES - JUDGED} episode(s) it lacked: {EPISODES} of {EPISODES}" in out
    store = RunStore.open_existing(run)
    assert [s["judge_config"] for s in store.score_sets()].count(score_set) == 1  # completed, not started again
    per_episode = [s.episode_id for s in store.iter_scores(score_set) if s.judge == "core_api_accuracy"]
    assert len(per_episode) == len(set(per_episode)) == EPISODES  # only the missing ones were judged
    completed = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    assert completed == full  # every number and key of the fresh full score
    assert "INCOMPLETE" not in _report(run, capsys)

    capsys.readouterr()
    assert run_cli(["score", str(run), "--resume"]) == 0
    assert "every score set is complete: nothing to judge" in " ".join(capsys.readouterr().out.split())


def test_score_resume_without_options_completes_the_newest_incomplete_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "r"
    assert run_cli(["run", "--agent", "null", "--world", "smart_home", "--trials", "3", "--error-judge", "off",
                    "--out", str(tmp_path), "--run-id", "r", "-q"]) == 0  # fmt: skip
    assert run_cli(["score", str(run), "--arg-match", "normalised"]) == 0
    full = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    _interrupt_after(run, full["score_set"], 4)
    assert run_cli(["score", str(run), "--resume"]) == 0  # the set's judges rebuilt from score_sets.jsonl
    assert json.loads((run / "summary.json").read_text(encoding="utf-8")) == full


def test_score_resume_of_a_set_never_computed_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["run", "--agent", "oracle", "--world", "smart_home", "--limit", "2", "--error-judge", "off",
                    "--out", str(tmp_path), "--run-id", "r", "-q"]) == 0  # fmt: skip
    capsys.readouterr()
    assert run_cli(["score", str(tmp_path / "r"), "--arg-match", "normalised", "--resume"]) == 2
    assert "no score set" in capsys.readouterr().err
