"""The run summary's numbers of the ``answer_facts`` judge: question goals whose final reply stated every fact of
the gold answer, Wilson CI; None (n/a) without one.

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


class AnswerFactsSummary(Reduction[tuple[int, int]]):
    judge = JudgeName.ANSWER_FACTS
    label = "answer facts (gold answer stated)"

    def __init__(self) -> None:
        self.totals = [0, 0]  # right question goals, question goals

    def verdict(self, score: Score) -> tuple[int, int] | None:
        return completion_verdict(score)

    def add(self, verdict: tuple[int, int], episode: EpisodeFacts) -> None:
        self.totals = [self.totals[0] + verdict[0], self.totals[1] + verdict[1]]

    def result(self, run: RunFacts) -> dict[str, Any]:
        right, goals = self.totals
        return {
            JudgeName.ANSWER_FACTS: rate(right, goals),
            "answer_facts_ci95": wilson(right, goals),
            "answer_facts_turns": goals,
        }

    @staticmethod
    def rows(summary: Mapping[str, Any]) -> list[list[str]]:
        n = summary.get("answer_facts_turns")
        if not n:
            return []
        return [["answer facts (gold answer stated)", pct(summary.get(JudgeName.ANSWER_FACTS)),
                 ci_text(summary.get("answer_facts_ci95")), f"{n} question goals"]]  # fmt: skip
