"""Run store: append-only lines, crash tails, resume checks, atomic small files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sim.core import Score
from sim.store.run_store import EPISODES, SCORES, RunStore, StoreError
from tests.support.episodes import result


def test_append_and_read_back(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "r", {"config_hash": "h"})
    for i in range(3):
        store.append_episode(result(i))
        store.append_scores([Score(episode_id=f"t{i}#0", task_id=f"t{i}", trial=0, judge="j", value=1.0)])
    assert [r.episode_id for r in store.episodes()] == ["t0#0", "t1#0", "t2#0"]
    assert len(store.scores()) == 3
    assert store.done_ids() == {"t0#0", "t1#0", "t2#0"}


def test_create_refuses_existing_run(tmp_path: Path) -> None:
    RunStore.create(tmp_path / "r", {"config_hash": "h"})
    with pytest.raises(StoreError, match="--resume"):
        RunStore.create(tmp_path / "r", {"config_hash": "h"})


def test_partial_tail_is_skipped_then_cut_on_resume(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "r", {"config_hash": "h"})
    store.append_episode(result(0))
    with (tmp_path / "r" / EPISODES).open("a") as f:
        f.write(result(1).model_dump_json()[:40])  # what a kill -9 mid-write leaves
    assert store.done_ids() == {"t0#0"}
    store.close()  # the writer is gone (as after the kill)
    resumed = RunStore.resume(tmp_path / "r", "h")
    resumed.append_episode(result(2))
    lines = (tmp_path / "r" / EPISODES).read_text().splitlines()
    assert [json.loads(line)["episode_id"] for line in lines] == ["t0#0", "t2#0"]


def test_resume_rejects_a_different_config(tmp_path: Path) -> None:
    RunStore.create(tmp_path / "r", {"config_hash": "h"})
    with pytest.raises(StoreError, match="config_hash"):
        RunStore.resume(tmp_path / "r", "other")
    with pytest.raises(StoreError, match="nothing to resume"):
        RunStore.resume(tmp_path / "missing", "h")


def test_corrupt_complete_line_names_file_and_line(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "r", {"config_hash": "h"})
    store.append_scores([Score(episode_id="e", task_id="t", trial=0, judge="j", value=0.0)])
    with (tmp_path / "r" / SCORES).open("a") as f:
        f.write('{"not": "a score"}\n')
    with pytest.raises(StoreError, match=r"scores.jsonl:2"):
        store.scores()
