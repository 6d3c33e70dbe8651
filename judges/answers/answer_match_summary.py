"""The run summary's numbers of the ``answer_match`` judge (when on): question goals answered right by meaning,
Wilson interval.

Per scored episode only a few numbers are kept (the verdict type below).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from judges.answers.completion_summary import completion_verdict
from judges.common.reduction import EpisodeFacts, Reduction, RunFacts
from judges.common.stats import rate, wilson
from judges.common.summary_view import ci_text, pct
from judges.names import JudgeName
from sim.core import Score


class AnswerMatchSummary(Reduction[tuple[int, int]]):
    judge = JudgeName.ANSWER_MATCH
    label = "answers by meaning"

    def __init__(self) -> None:
        self.totals = [0, 0]  # right question goals, judged ones

    def verdict(self, score: Score) -> tuple[int, int] | None:
        return completion_verdict(score)

    def add(self, verdict: tuple[int, int], episode: EpisodeFacts) -> None:
        self.totals[0] += verdict[0]
        self.totals[1] += verdict[1]

    def result(self, run: RunFacts) -> dict[str, Any]:
        right, goals = self.totals
        if not goals:  # the judge is off by default: no keys then
            return {}
        return {
            JudgeName.ANSWER_MATCH: rate(right, goals),
            "answer_match_ci95": wilson(right, goals),
            "answer_match_goals": goals,
        }

    @staticmethod
    def rows(summary: Mapping[str, Any]) -> list[list[str]]:
        if not summary.get("answer_match_goals"):
            return []
        return [["answers by meaning", pct(summary[JudgeName.ANSWER_MATCH]), ci_text(summary.get("answer_match_ci95")),
                 f"{summary['answer_match_goals']} question goals"]]  # fmt: skip
