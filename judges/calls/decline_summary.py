"""The run summary's numbers of the ``decline`` judge: decline goals handled right, turns to give up, looping,
invented calls.

Per scored episode only a few numbers are kept (the verdict type below).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from judges.common.reduction import EpisodeFacts, Reduction, RunFacts
from judges.common.stats import rate, wilson
from judges.common.summary_view import ci_text, pct
from judges.names import JudgeName
from sim.core import Score


class DeclineVerdict(NamedTuple):
    """What the summary keeps of a ``decline`` score."""

    goals: int  # decline goals judged
    right: float  # of which handled right
    looped: int  # decline goals in which the agent looped
    invented: int  # decline goals in which it called a tool not in its toolkit
    to_give_up: int | None  # agent turns from the first decline goal to giving up; None: never gave up


def decline_verdict(score: Score) -> DeclineVerdict | None:
    """None when the task has no decline goal (value None) or the judge faulted."""
    if score.value is None:
        return None
    judged = {g for g, v in enumerate(score.per_goal) if v is not None}
    to_give_up = score.details.get("turns_to_give_up")
    return DeclineVerdict(
        goals=len(judged),
        right=sum(v for v in score.per_goal if v is not None),
        # Loops and invented calls count where they matter here: on the goals that test giving up.
        looped=len(judged & set(score.details.get("looped_turns") or ())),
        invented=len(judged & set(score.details.get("invented_calls") or ())),
        to_give_up=int(to_give_up) if to_give_up is not None else None,
    )


class DeclineSummary(Reduction[DeclineVerdict]):
    judge = JudgeName.DECLINE
    label = "give-up rate"

    def __init__(self) -> None:
        self.totals = [0.0, 0, 0, 0]  # right, decline goals, looped, invented
        self.episodes = 0
        self.gave_up = [0, 0]  # episodes that gave up, sum of their turns to give up

    def verdict(self, score: Score) -> DeclineVerdict | None:
        return decline_verdict(score)

    def add(self, verdict: DeclineVerdict, episode: EpisodeFacts) -> None:
        self.episodes += 1
        self.totals[0] += verdict.right
        self.totals[1] += verdict.goals
        self.totals[2] += verdict.looped
        self.totals[3] += verdict.invented
        if verdict.to_give_up is not None:
            self.gave_up[0] += 1
            self.gave_up[1] += verdict.to_give_up

    def result(self, run: RunFacts) -> dict[str, Any]:
        right, goals, looped, invented = self.totals
        gave_up, give_up_sum = self.gave_up
        return {
            "give_up": {
                "rate": rate(right, int(goals)),
                "ci95": wilson(right, int(goals)),
                "decline_turns": int(goals),
                "decline_episodes": self.episodes,
                "gave_up_episodes": gave_up,
                "mean_turns_to_give_up": rate(give_up_sum, gave_up),
                "never_gave_up": self.episodes - gave_up,
                "looping_rate": rate(looped, int(goals)),
                "invented_call_rate": rate(invented, int(goals)),
            }
        }

    @staticmethod
    def rows(summary: Mapping[str, Any]) -> list[list[str]]:
        give_up = summary.get("give_up") or {}
        if not give_up.get("decline_turns"):
            return []
        n = f"{give_up['decline_turns']} decline turns"
        mean = give_up.get("mean_turns_to_give_up")
        return [
            ["give-up rate", pct(give_up["rate"]), ci_text(give_up.get("ci95")), n],
            ["turns to give up, mean", "n/a" if mean is None else f"{mean:.2f}", "",
             f"{give_up['gave_up_episodes']} episodes; {give_up['never_gave_up']} never gave up"],
            ["looping rate", pct(give_up.get("looping_rate")), "", n],
            ["invented-call rate", pct(give_up.get("invented_call_rate")), "", n],
        ]  # fmt: skip
