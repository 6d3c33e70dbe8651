"""Leaderboards over a folder of mixed runs: one per world and plan, and the runs none can rank listed with why,
instead of one board of n/a rows."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sim.report.comparable import load_boards
from sim.store.run_store import StoreError
from tests.support.many_runs import write_run

TASKS = {"t1": 1.0, "t2": 0.0, "t3": 1.0}


def test_runs_are_ranked_per_world_and_plan_and_the_rest_say_why(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_run(runs / "h-good", "good", "smart_home", TASKS)
    write_run(runs / "h-bad", "bad", "smart_home", {"t1": 0.0, "t2": 0.0, "t3": 1.0})
    write_run(runs / "h-small", "bad", "smart_home", {"t1": 0.0}, limit=1)  # another plan, alone in it
    write_run(runs / "h-other", "other", "smart_home", {"x9": 1.0})  # same plan, no shared episode
    write_run(runs / "b-one", "good", "bank", TASKS)
    write_run(runs / "b-two", "bad", "bank", {"t1": 0.0, "t2": None})
    write_run(runs / "m-only", "good", "mail", TASKS)
    write_run(runs / "h-none", "none", "smart_home", {"t1": None})
    (runs / "imported-world").mkdir()  # not a run: skipped
    os.symlink("h-good", runs / "latest")  # the same run again: skipped
    boards = load_boards([runs])
    got = {(b.world, b.plan): [r.name for r in b.board.rows] for b in boards.boards}
    assert got == {("bank", "all tasks"): ["good", "bad"], ("smart_home", "all tasks"): ["good", "bad"]}
    assert all(r.score is not None for b in boards.boards for r in b.board.rows)
    assert [b.board.shared_episodes for b in boards.boards] == [1, 3]  # bank: t2 has no verdict in b-two
    why = {n.run_id: n.reason for n in boards.not_comparable}
    assert why["h-none"] == "no verdicts on core_api_accuracy"
    assert why["h-other"].startswith("no episode with a verdict shared")
    assert (
        why["h-small"] == "no other run of smart_home plans first 1 task"
        and why["m-only"] == "the only run of world mail"
    )
    assert len(why) == 4 and boards.notes == []
    assert boards.as_dict()["boards"][0]["world"] == "bank"
    glob = load_boards(sorted(runs.iterdir()))  # runs/*: the link counted once, the world folder noted
    assert len(glob.boards) == 2 and len(glob.notes) == 2 and "not a run directory" in " ".join(glob.notes)


def test_a_reference_must_be_in_some_board_and_an_empty_folder_fails(tmp_path: Path) -> None:
    write_run(tmp_path / "runs" / "a", "good", "smart_home", TASKS)
    write_run(tmp_path / "runs" / "b", "bad", "smart_home", TASKS)
    assert load_boards([tmp_path / "runs"], reference="bad").boards[0].board.reference == "bad"
    with pytest.raises(ValueError, match="in no leaderboard"):
        load_boards([tmp_path / "runs"], reference="nobody")
    (tmp_path / "empty").mkdir()
    with pytest.raises(StoreError, match="not a run directory"):
        load_boards([tmp_path / "empty"])
