"""Which stored episode records a later record of the same episode replaces.

``episodes.jsonl`` is append-only. ``--resume`` plays an episode that ended in a provider fault again (an outage is
no verdict on the agent) and appends the new record after the old one: the newest record of an episode id is the
one that counts, wherever the store is read (the summary, the reports, re-scoring, resume's own plan). Only a
failed record is ever played again, so only failed records are followed: memory grows with the failed episodes,
not with the run.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel

from sim.core import FAILED_TERMINATIONS

RETRIED_ON_RESUME = frozenset({"provider_error"})
"""Terminations ``--resume`` plays again: the endpoint failed after every retry, nobody's verdict on the agent."""


class EpisodeStatus(BaseModel):
    """The light view of a stored episode that says which one it is and how it ended."""

    episode_id: str
    termination: str = "completed"

    @property
    def failed(self) -> bool:
        return self.termination in FAILED_TERMINATIONS

    @property
    def retried_on_resume(self) -> bool:
        return self.termination in RETRIED_ON_RESUME


def superseded_lines(statuses: Iterable[tuple[int, EpisodeStatus]]) -> frozenset[int]:
    """Line numbers of failed records that a later record of the same episode replaces."""
    open_failed: dict[str, int] = {}  # episode id -> line of its newest record so far, while that one failed
    superseded: set[int] = set()
    for lineno, status in statuses:
        earlier = open_failed.pop(status.episode_id, None)
        if earlier is not None:
            superseded.add(earlier)
        if status.failed:
            open_failed[status.episode_id] = lineno
    return frozenset(superseded)
