"""The run summary's numbers for impossible goals and for where the agent went wrong, summed in one pass.

- give-up (``decline`` judge): decline goals handled right, turns to give up, looping, invented calls;
- failure stages (``failure_stage`` judge): the first stage that went wrong, per wrong goal.

Per episode only a few numbers are kept (the verdict types below).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any, NamedTuple

from judges.reduction import EpisodeFacts, Reduction, RunFacts
from judges.stats import rate, wilson
from judges.summary_view import Section, ci_text, pct, share_section
from sim.core import Score

STAGES = ("search", "identification", "chaining", "tool_use", "execution", "not_played")
"""The failure_stage judge's labels, in pipeline order (see ``judges.failure_stage``)."""


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


def stage_verdict(score: Score) -> tuple[str, ...] | None:
    """The stage of each wrong goal (interned: a handful of distinct strings)."""
    if score.judge_fault:
        return None
    return tuple(sys.intern(str(s)) for s in score.details.get("stages") or () if s is not None)


class DeclineSummary(Reduction[DeclineVerdict]):
    judge = "decline"
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


class FailureStageSummary(Reduction[tuple[str, ...]]):
    judge = "failure_stage"
    label = "failure stages"

    def __init__(self) -> None:
        self.stages = dict.fromkeys(STAGES, 0)

    def verdict(self, score: Score) -> tuple[str, ...] | None:
        return stage_verdict(score)

    def add(self, verdict: tuple[str, ...], episode: EpisodeFacts) -> None:
        for stage in verdict:
            self.stages[stage] = self.stages.get(stage, 0) + 1

    def result(self, run: RunFacts) -> dict[str, Any]:
        return {"failure_stages": self.stages}

    @staticmethod
    def sections(summary: Mapping[str, Any]) -> list[Section]:
        return share_section("failure_stages", summary.get("failure_stages"), "failure stages (wrong goals)", "stage")
