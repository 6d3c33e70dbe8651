"""The run summary's numbers of the ``completion`` judge: answer goals whose final reply gave the exact answer,
Wilson CI; None (n/a) when no goal had an answer.

Per scored episode only a few numbers are kept (the verdict type below).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from judges.common.reduction import EpisodeFacts, Reduction, RunFacts
from judges.common.stats import rate, wilson
from judges.common.summary_view import ci_text, pct
from judges.names import JudgeName
from sim.core import Score


def completion_verdict(score: Score) -> tuple[int, int] | None:
    """(right, judged goals) of a per-goal right/wrong score; None without a judged goal or on a judge fault."""
    if score.value is None:
        return None
    judged = [v for v in score.per_goal if v is not None]
    return int(sum(judged)), len(judged)


class CompletionSummary(Reduction[tuple[int, int]]):
    judge = JudgeName.COMPLETION
    label = "completion (exact answer)"

    def __init__(self) -> None:
        self.totals = [0, 0, 0]  # right goals, answer goals, episodes with an answer goal

    def verdict(self, score: Score) -> tuple[int, int] | None:
        return completion_verdict(score)

    def add(self, verdict: tuple[int, int], episode: EpisodeFacts) -> None:
        self.totals[0] += verdict[0]
        self.totals[1] += verdict[1]
        self.totals[2] += 1

    def result(self, run: RunFacts) -> dict[str, Any]:
        right, goals, episodes = self.totals
        return {
            JudgeName.COMPLETION: rate(right, goals),
            "completion_ci95": wilson(right, goals),
            "completion_turns": goals,
            "completion_episodes": episodes,
        }

    @staticmethod
    def rows(summary: Mapping[str, Any]) -> list[list[str]]:
        n = summary.get("completion_turns")
        if not n:
            return []
        value, ci = summary.get(JudgeName.COMPLETION), summary.get("completion_ci95")
        return [["completion (exact answer)", pct(value), ci_text(ci), f"{n} answer turns"]]
