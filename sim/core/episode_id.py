"""An episode's id: ``task[@variant][~user]#trial``, built and read only here.

The variant is the isolated stressor mode's scenario, or the incremental mode's prefix of stressor items joined by
``+`` (``incremental_prefixes``); '' for the unstressed baseline and for every episode of a cumulative run. The user
is the user spec's label when the run has several users ('' otherwise). The variant follows the last ``@`` before
the user, so a task id may hold ``@`` only beside a variant, and neither holds ``~`` or ``#``; a user label may hold
anything. Stored runs use exactly this text, so it never changes:
``str(EpisodeId.parse(text)) == text`` for every id squall has written.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple


def incremental_prefixes(items: Sequence[str]) -> list[str]:
    """The variants of stressor-mode incremental, in order: the stressor items added one by one, joined by '+'."""
    return ["+".join(items[: k + 1]) for k in range(len(items))]


class EpisodeId(NamedTuple):
    """One planned episode's id (a tuple: cheap to build, hash and compare at 10,000 episodes in flight)."""

    task: str
    trial: int
    variant: str = ""
    user: str = ""

    @staticmethod
    def unit_of(task: str, variant: str = "", user: str = "") -> str:
        """The id of a task's unit of the plan (every trial of it): the episode id without ``#trial``."""
        base = f"{task}@{variant}" if variant else task
        return f"{base}~{user}" if user else base

    @property
    def unit(self) -> str:
        return EpisodeId.unit_of(self.task, self.variant, self.user)

    def __str__(self) -> str:
        return f"{self.unit}#{self.trial}"

    @classmethod
    def parse(cls, text: str) -> EpisodeId:
        """The parts of an episode id; ValueError naming the id when it has no ``#trial``."""
        found = cls.find(text)
        if found is None:
            raise ValueError(f"{text!r} is not an episode id (task[@variant][~user]#trial)")
        return found

    @classmethod
    def find(cls, text: str) -> EpisodeId | None:
        """``parse``, or None for text that is not an episode id."""
        unit, sep, trial = text.rpartition("#")
        if not sep or not unit or not (trial.isascii() and trial.isdigit()):
            return None
        unit, _, user = unit.partition("~")
        task, at, variant = unit.rpartition("@")
        if not at:
            task, variant = unit, ""
        return cls(task, int(trial), variant, user)
