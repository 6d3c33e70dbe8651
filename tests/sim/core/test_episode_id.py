"""EpisodeId: the one place an episode id is built and read; every id squall stored parses back to itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sim.core import EpisodeId
from sim.episode.env import EpisodeSpec
from sim.run.plan import Unit
from worlds.registry import load_world

STORED_RUNS = Path(__file__).parents[2] / "data" / "runs"

plain = st.text(alphabet=st.characters(exclude_characters="~#@", exclude_categories=["Cs"]), min_size=1)


def _stored_ids() -> list[str]:
    ids = []
    for name in ("episodes.jsonl", "scores.jsonl"):
        for path in sorted(STORED_RUNS.glob(f"*/{name}")):
            ids += [json.loads(line)["episode_id"] for line in path.read_text().splitlines() if line.strip()]
    return ids


def test_every_stored_id_parses_back_to_itself() -> None:
    ids = _stored_ids()
    assert len(ids) > 20
    for text in ids:
        assert str(EpisodeId.parse(text)) == text


@given(
    task=plain,
    variant=st.one_of(st.just(""), plain),
    user=st.one_of(st.just(""), st.text(min_size=1)),
    trial=st.integers(min_value=0, max_value=10**6),
)
def test_the_parts_round_trip(task: str, variant: str, user: str, trial: int) -> None:
    episode = EpisodeId(task, trial, variant, user)
    assert EpisodeId.parse(str(episode)) == episode
    assert str(episode).startswith(episode.unit) and str(episode).endswith(f"#{trial}")


def test_the_old_forms() -> None:
    assert str(EpisodeId("sh-001", 0)) == "sh-001#0"
    assert str(EpisodeId("sh-001", 2, "outage.backup")) == "sh-001@outage.backup#2"
    assert str(EpisodeId("sh-001", 1, user="scripted:terse")) == "sh-001~scripted:terse#1"
    assert str(EpisodeId("sh-001", 1, "adhoc.x", "llm@nervous")) == "sh-001@adhoc.x~llm@nervous#1"
    assert EpisodeId.parse("sh-001@adhoc.x~llm@nervous#1") == EpisodeId("sh-001", 1, "adhoc.x", "llm@nervous")


@pytest.mark.parametrize("text", ["sh-001", "sh-001#", "#3", "sh-001#x", "sh-001#²"])
def test_text_that_is_no_episode_id_is_refused_by_name(text: str) -> None:
    assert EpisodeId.find(text) is None
    with pytest.raises(ValueError, match="is not an episode id"):
        EpisodeId.parse(text)


def test_the_plan_and_the_episode_build_their_ids_here() -> None:
    task = load_world("smart_home").tasks()[0]
    spec = EpisodeSpec(task=task, trial=3, seed=0, variant="adhoc.x", user="scripted:terse")
    assert EpisodeId.parse(spec.episode_id) == EpisodeId(task.id, 3, "adhoc.x", "scripted:terse")
    assert Unit(task, variant="adhoc.x", user="scripted:terse").id == EpisodeId.parse(spec.episode_id).unit
