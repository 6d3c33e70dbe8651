"""The run summary's numbers for stressed and impossible conditions, summed in one pass over scored episodes.

- over trials: conversation success and core API accuracy of each trial, their mean and sample sd;
- solvable pass rate: conversation success over episodes whose task (as run) has no decline turn;
- give-up (``decline`` judge): decline turns handled right, turns to give up, looping, invented calls;
- recovery: turns in which the agent saw a failed tool result, and were still right;
- failure stages (``failure_stage`` judge): the first stage that went wrong, per wrong turn.

Per episode only a few numbers are kept (see ``_Verdicts`` in ``judges.metrics``): turn sets are bit masks.
"""

from __future__ import annotations

import sys
from typing import Any, NamedTuple, Protocol

from judges.stats import mean_sd, rate, wilson
from sim.core import Score

STAGES = ("search", "identification", "chaining", "tool_use", "execution", "not_played")
"""The failure_stage judge's labels, in pipeline order (see ``judges.failure_stage``)."""


class DeclineVerdict(NamedTuple):
    """What the summary keeps of a ``decline`` score."""

    goals: int  # decline goals judged
    right: float  # of which handled right
    looped: int  # decline turns in which the agent looped
    invented: int  # decline turns in which it called a tool not in its toolkit
    to_give_up: int | None  # agent turns from the first decline turn to giving up; None: never gave up


def decline_verdict(score: Score) -> DeclineVerdict | None:
    """None when the task has no decline turn (value None) or the judge faulted."""
    if score.value is None:
        return None
    judged = {t for t, v in enumerate(score.per_goal) if v is not None}
    to_give_up = score.details.get("turns_to_give_up")
    return DeclineVerdict(
        goals=len(judged),
        right=sum(v for v in score.per_goal if v is not None),
        # Loops and invented calls count where they matter here: on the turns that test giving up.
        looped=len(judged & set(score.details.get("looped_turns") or ())),
        invented=len(judged & set(score.details.get("invented_calls") or ())),
        to_give_up=int(to_give_up) if to_give_up is not None else None,
    )


def stage_verdict(score: Score) -> tuple[str, ...] | None:
    """The stage of each wrong turn (interned: a handful of distinct strings)."""
    if score.judge_fault:
        return None
    return tuple(sys.intern(str(s)) for s in score.details.get("stages") or () if s is not None)


def turn_masks(per_goal: list[float | None]) -> tuple[int, int]:
    """(scored, right) turn sets of a per-turn score as bit masks (bit t = turn t)."""
    scored = right = 0
    for t, v in enumerate(per_goal):
        if v is not None:
            scored |= 1 << t
            if v >= 1.0:
                right |= 1 << t
    return scored, right


class VerdictsLike(Protocol):
    """The reduced verdicts of one episode the tally reads (``judges.metrics._Verdicts``)."""

    success: float | None
    turns_sum: float
    turns_n: int
    scored_turns: int
    right_turns: int
    decline: DeclineVerdict | None
    stages: tuple[str, ...] | None


class StressTally:
    """Sums over scored episodes; ``result()`` gives the summary's keys."""

    def __init__(self) -> None:
        self.by_trial: dict[int, list[float]] = {}  # trial -> [successes, success verdicts, right turns, turns]
        self.solvable = [0.0, 0]  # successes, episodes with a success verdict and no decline turn
        self.decline = [0.0, 0, 0, 0]  # right, decline turns, looped, invented
        self.decline_episodes = 0
        self.gave_up: list[int] = [0, 0]  # episodes that gave up, sum of their turns to give up
        self.recovery = [0, 0]  # right turns after a failure, scored turns that saw a failure
        self.stages = dict.fromkeys(STAGES, 0)

    def add(self, trial: int, has_decline: bool, failed_turns: int, v: VerdictsLike) -> None:
        row = self.by_trial.setdefault(trial, [0.0, 0.0, 0.0, 0.0])
        row[2] += v.turns_sum
        row[3] += v.turns_n
        if v.success is not None:
            row[0] += v.success
            row[1] += 1
            if not has_decline:
                self.solvable[0] += v.success
                self.solvable[1] += 1
        saw_failure = failed_turns & v.scored_turns
        self.recovery[0] += (saw_failure & v.right_turns).bit_count()
        self.recovery[1] += saw_failure.bit_count()
        d = v.decline
        if d is not None:
            self.decline_episodes += 1
            self.decline[0] += d.right
            self.decline[1] += d.goals
            self.decline[2] += d.looped
            self.decline[3] += d.invented
            if d.to_give_up is not None:
                self.gave_up[0] += 1
                self.gave_up[1] += d.to_give_up
        for stage in v.stages or ():
            self.stages[stage] = self.stages.get(stage, 0) + 1

    def result(self) -> dict[str, Any]:
        trials = sorted(self.by_trial)
        success = [rate(self.by_trial[t][0], int(self.by_trial[t][1])) for t in trials]
        accuracy = [rate(self.by_trial[t][2], int(self.by_trial[t][3])) for t in trials]
        right, turns, looped, invented = self.decline
        episodes, give_up_sum = self.gave_up
        recovered, after_failure = self.recovery
        solved, solvable = self.solvable
        return {
            "over_trials": {
                "trials": trials,
                "conversation_success": _spread(success),
                "core_api_accuracy": _spread(accuracy),
            },
            "solvable_pass_rate": rate(solved, int(solvable)),
            "solvable_pass_rate_ci95": wilson(solved, int(solvable)),
            "solvable_episodes": int(solvable),
            "give_up": {
                "rate": rate(right, int(turns)),
                "ci95": wilson(right, int(turns)),
                "decline_turns": int(turns),
                "decline_episodes": self.decline_episodes,
                "gave_up_episodes": episodes,
                "mean_turns_to_give_up": rate(give_up_sum, episodes),
                "never_gave_up": self.decline_episodes - episodes,
                "looping_rate": rate(looped, int(turns)),
                "invented_call_rate": rate(invented, int(turns)),
            },
            "recovery": {
                "rate": rate(recovered, after_failure),
                "ci95": wilson(recovered, after_failure),
                "turns_after_failure": after_failure,
            },
            "failure_stages": self.stages,
        }


def _spread(per_trial: list[float | None]) -> dict[str, Any]:
    mean, sd = mean_sd(per_trial)
    return {"per_trial": per_trial, "mean": mean, "sd": sd}
