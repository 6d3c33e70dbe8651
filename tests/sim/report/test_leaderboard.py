"""The leaderboard over many runs: ranked on the episodes every group shares, goals counted as the headline counts
them, paired intervals against the leader, runs of one agent pooled."""

from __future__ import annotations

from pathlib import Path

import pytest

from judges.common.stats import paired_ratio_difference
from sim.core import Score
from sim.report.leaderboard import leaderboard, leaderboard_of_dirs, load_run_scores
from sim.report.run_index import iter_runs, read_run_info
from sim.store.run_store import RunStore, StoreError

SET = "set1"


def make_run(root: Path, agent: str, verdicts: dict[str, list[float | None]], label: str = "") -> Path:
    """A run of ``agent`` on smart_home whose core_api_accuracy per goal is ``verdicts[task]`` (one trial)."""
    config = {"agent": agent, "world": "smart_home", "seed": 0, "trials": 1, "stressors": [], "user": "scripted"}
    manifest = {"config_hash": "h", "config": config, "created_at": f"2026-01-01T00:00:0{len(agent) % 10}+00:00"}
    if label:
        manifest["label"] = label
    store = RunStore.create(root, manifest)
    store.add_score_set(SET, {"version": "test"}, "test")
    for task, per_goal in verdicts.items():
        known = [v for v in per_goal if v is not None]
        value = sum(known) / len(known) if known else None
        store.append_scores(
            [
                Score(
                    episode_id=f"{task}#0",
                    task_id=task,
                    trial=0,
                    judge="core_api_accuracy",
                    value=value,
                    per_goal=per_goal,
                    judge_config=SET,
                )
            ]
        )
    store.close()
    return root


def test_rows_rank_on_shared_episodes_and_count_goals_as_the_headline(tmp_path: Path) -> None:
    good = make_run(tmp_path / "a", "good", {"t1": [1.0, 1.0, 1.0], "t2": [1.0, 0.0], "t3": [1.0], "only": [1.0]})
    bad = make_run(tmp_path / "b", "bad", {"t1": [0.0, 0.0, 1.0], "t2": [0.0, None], "t3": [0.0]})
    board = leaderboard_of_dirs([bad, good])
    assert board.shared_episodes == 3 and board.shared_tasks == 3  # "only" is not held by bad
    first, second = board.rows
    assert (first.name, first.rank, second.name) == ("good", 1, "bad")
    assert first.score == round(5 / 6, 4)  # goals: 5 of 6, not the mean of episode means (0.833 vs 0.833...)
    assert second.score == round(1 / 5, 4)  # t2's second goal has no verdict: 5 goals, not 6
    assert first.own_score == round(6 / 7, 4) and first.own_episodes == 4
    assert first.delta is None and second.delta == round(1 / 5 - 5 / 6, 4)
    assert second.delta_ci95 is not None and second.delta_ci95[0] <= second.delta <= second.delta_ci95[1]
    assert first.ci95 is not None and "bootstrap over tasks" in board.note and board.reference == "good"


def test_runs_of_one_agent_pool_and_a_named_reference_is_used(tmp_path: Path) -> None:
    one = make_run(tmp_path / "a1", "good", {"t1": [1.0], "t2": [1.0]})
    two = make_run(tmp_path / "a2", "good", {"t1": [0.0], "t2": [1.0]})
    other = make_run(tmp_path / "b", "bad", {"t1": [0.0], "t2": [0.0]})
    runs = [load_run_scores(d) for d in (one, two, other)]
    board = leaderboard(runs, by="agent", reference="bad")
    rows = {r.name: r for r in board.rows}
    assert rows["good"].runs == ["a1", "a2"] and rows["good"].score == 0.75  # t1 averaged over the two runs
    assert rows["good"].delta == 0.75 and rows["bad"].delta is None
    by_run = leaderboard(runs, by="run")
    assert [r.name for r in by_run.rows] == ["a1", "a2", "b"]
    with pytest.raises(ValueError, match="--by"):
        leaderboard(runs, by="colour")
    with pytest.raises(ValueError, match="reference"):
        leaderboard(runs, reference="nobody")


def test_no_shared_episode_is_said(tmp_path: Path) -> None:
    a = make_run(tmp_path / "a", "x", {"t1": [1.0]})
    b = make_run(tmp_path / "b", "y", {"t2": [1.0]})
    board = leaderboard_of_dirs([a, b])
    assert board.shared_episodes == 0 and any("no episode" in w for w in board.warnings)
    assert all(r.score is None for r in board.rows)


def test_run_index_lists_runs_with_their_identity_and_skips_links(tmp_path: Path) -> None:
    make_run(tmp_path / "r1", "oracle", {"t1": [1.0]}, label="baseline")
    make_run(tmp_path / "r2", "null", {"t1": [0.0]})
    (tmp_path / "latest").symlink_to(tmp_path / "r2")
    (tmp_path / "notes").mkdir()
    listed = list(iter_runs(tmp_path))
    assert [r.run_id for r in listed] == ["r2", "r1"]  # by date: "null" sorts first by its made-up time
    assert read_run_info(tmp_path / "latest").run_id == "r2"  # latest names the real run
    r1 = read_run_info(tmp_path / "r1")
    assert (r1.name, r1.agent, r1.world, r1.stressors) == ("baseline", "oracle", "smart_home", "")
    with pytest.raises(StoreError, match="not a run directory"):
        read_run_info(tmp_path / "notes")


def test_paired_ratio_difference_uses_each_runs_own_denominators() -> None:
    # Run A counts 2 goals in task 1 where run B counts 1: each rate is its own ratio of sums.
    out = paired_ratio_difference([(1.0, 2.0, 1.0, 1.0), (0.0, 1.0, 0.0, 1.0)])
    assert (out["a"], out["b"], out["diff"]) == (round(1 / 3, 4), 0.5, round(0.5 - 1 / 3, 4))
    assert out["ci95"] is not None and out["clusters"] == 2


def test_run_index_hides_credentials_and_prefers_the_summarys_identity(tmp_path: Path) -> None:
    make_run(tmp_path / "r", "openai-chat:m@http://me:sk-secret@127.0.0.1:9/v1?key=k2", {"t1": [1.0]})
    info = read_run_info(tmp_path / "r")
    assert info.agent == "openai-chat:m@http://127.0.0.1:9/v1" and "secret" not in str(info.as_dict())
    (tmp_path / "r" / "summary.json").write_text('{"identity": {"label": "mine", "agent": "openai-chat:m"}}')
    info = read_run_info(tmp_path / "r")
    assert (info.label, info.agent, info.world) == ("mine", "openai-chat:m", "smart_home")
