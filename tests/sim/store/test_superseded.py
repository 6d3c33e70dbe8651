"""A provider-failed episode played again by --resume: the newest record counts, everywhere the store is read."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.judging.judge_set import run_summary
from sim.store.run_store import RunStore
from sim.store.superseded import EpisodeStatus, superseded_lines
from tests.support.episodes import result

pytestmark = pytest.mark.reliability


def _status(episode_id: str, termination: str) -> EpisodeStatus:
    return EpisodeStatus(episode_id=episode_id, termination=termination)


def test_only_a_failed_record_with_a_later_one_is_superseded() -> None:
    lines = [
        (1, _status("a#0", "provider_error")),
        (2, _status("b#0", "completed")),
        (3, _status("c#0", "provider_error")),  # failed again at 5: the newest failure stands
        (4, _status("a#0", "completed")),
        (5, _status("c#0", "provider_error")),
        (6, _status("b#0", "completed")),  # a duplicate of a completed record: not this module's to drop
    ]
    assert superseded_lines(lines) == {1, 3}


def test_the_summary_counts_the_newest_record_of_an_episode_played_again(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "r", {"config_hash": "h", "config": {}})
    store.append_episode(result(0).model_copy(update={"termination": "provider_error"}))
    store.append_episode(result(1))
    store.append_episode(result(0))  # the resume played it again: completed
    assert [(r.episode_id, r.termination) for r in store.episodes()] == [("t1#0", "completed"), ("t0#0", "completed")]
    summary = run_summary(store, "", planned=2)
    assert (summary.episodes, summary.failed_episodes, summary.terminations) == (2, 0, {"completed": 2})
    assert store.superseded() == {1}
    store.append_episode(result(1).model_copy(update={"termination": "provider_error"}))  # failed after a completed one
    store.append_episode(result(1))
    assert store.superseded() == {1, 4}  # read again: the file changed
    assert RunStore.open_existing(tmp_path / "r").superseded() == {1, 4}
