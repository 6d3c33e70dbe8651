"""``squall score --resume``: complete a score set that an interrupted ``squall score`` left short, judging only
the episodes it lacks verdicts for, instead of starting another set.

Which set: the one the judge options name when any is given, else the newest set that is incomplete; its judges
are rebuilt from the configuration ``score_sets.jsonl`` recorded for it (and must hash to it again).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sim.core import Judge
from sim.judging.judge_set import settings_overrides
from sim.judging.queue import JudgeQueue
from sim.store.run_store import EPISODES, EpisodeKey, RunStore, StoreError, parse_line, read_lines


@dataclass(frozen=True)
class SetToComplete:
    score_set: str
    overrides: dict[str, Any]
    """The judge settings that rebuild the set's judges (over the run's stored config)."""


def judges_present(store: RunStore, score_set: str, names: list[str]) -> dict[str, int]:
    """Per episode id, a bit per judge (in ``names`` order) that has any score of ``score_set`` for it."""
    bit = {name: 1 << i for i, name in enumerate(names)}
    present: dict[str, int] = {}
    for s in store.iter_scores(score_set):
        if (b := bit.get(s.judge)) is not None:
            present[s.episode_id] = present.get(s.episode_id, 0) | b
    return present


def _lacking(store: RunStore, score_set: str, names: list[str]) -> Iterator[tuple[int, bytes, int]]:
    """(line, raw record, judges present as bits) of each stored episode that lacks a judge's score in the set.
    An episode played again after a provider fault counts as lacking every judge: a score does not say which of
    its records it judged."""
    present = judges_present(store, score_set, names)
    every = (1 << len(names)) - 1
    path = store.root / EPISODES
    superseded = store.superseded()
    replayed: set[str] = set()
    for lineno, raw in read_lines(path):
        episode_id = parse_line(path, lineno, raw, EpisodeKey).episode_id
        if lineno in superseded:
            replayed.add(episode_id)
            continue
        marks = 0 if episode_id in replayed else present.get(episode_id, 0)
        replayed.discard(episode_id)
        if marks != every:
            present[episode_id] = every  # a duplicate line is not judged twice
            yield lineno, raw, marks


def _incomplete(store: RunStore, score_set: str, names: list[str]) -> bool:
    """Whether some stored episode has no score of some judge of the set (episodes played again aside: only
    completing the set re-judges them)."""
    present = judges_present(store, score_set, names)
    every = (1 << len(names)) - 1
    return any(present.get(key.episode_id, 0) != every for key in store.iter_episodes(EpisodeKey))


def set_to_complete(store: RunStore, named: str | None) -> SetToComplete | None:
    """The set to complete: ``named`` (the hash the judge options give) or the newest incomplete one; None when it
    is complete (or every set is)."""
    sets = store.score_sets()
    if named is not None:
        entry = next((s for s in sets if s["judge_config"] == named), None)
        if entry is None:
            raise StoreError(
                f"{store.root}: no score set {named} to complete (sets: {', '.join(s['judge_config'] for s in sets)}); "
                "`squall score` without --resume computes it"
            )
        candidates = [entry]
    else:
        candidates = sets[::-1]
    for entry in candidates:
        config = entry.get("config") or {}
        if _incomplete(store, str(entry["judge_config"]), list(config.get("judges") or [])):
            return SetToComplete(str(entry["judge_config"]), settings_overrides(config))
    return None


async def complete_set(store: RunStore, judges: list[Judge], score_set: str, queue: JudgeQueue) -> None:
    """Queue every stored episode the set lacks a judge's score for, for the judges it lacks."""
    for lineno, raw, marks in _lacking(store, score_set, [j.name for j in judges]):
        missing = [j for i, j in enumerate(judges) if not marks & (1 << i)]
        await queue.put(store.parse_episode(lineno, raw), missing, fresh=False)
