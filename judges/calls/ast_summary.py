"""The run summary's numbers of the ``ast`` judge: goals whose every attempted call was free of errors, and the
errors by reason.

Per scored episode only a few numbers are kept (the verdict type below).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any, NamedTuple

from judges.common.reduction import EpisodeFacts, Reduction, RunFacts
from judges.common.stats import rate, wilson
from judges.common.summary_view import ci_text, pct
from judges.names import JudgeName
from sim.core import Score


class AstVerdict(NamedTuple):
    clean: int  # goals whose calls had no error
    checked: int
    reasons: tuple[tuple[str, int], ...]


def ast_verdict(score: Score) -> AstVerdict | None:
    if score.value is None:
        return None
    goals = [v for v in score.per_goal if v is not None]
    reasons = tuple(sorted((str(k), int(v)) for k, v in score.details.get("reasons", {}).items()))
    return AstVerdict(sum(v == 1.0 for v in goals), len(goals), reasons)


class AstSummary(Reduction[AstVerdict]):
    judge = JudgeName.AST
    label = "AST checks (every call clean)"

    def __init__(self) -> None:
        self.totals = [0, 0]  # clean goals, checked goals
        self.reasons: Counter[str] = Counter()

    def verdict(self, score: Score) -> AstVerdict | None:
        return ast_verdict(score)

    def add(self, verdict: AstVerdict, episode: EpisodeFacts) -> None:
        self.totals[0] += verdict.clean
        self.totals[1] += verdict.checked
        for reason, n in verdict.reasons:
            self.reasons[reason] += n

    def result(self, run: RunFacts) -> dict[str, Any]:
        clean, checked = self.totals
        return {
            "ast_accuracy": rate(clean, checked),
            "ast_accuracy_ci95": wilson(clean, checked),
            "ast_goals": checked,
            "ast_errors": dict(self.reasons.most_common()),
        }

    @staticmethod
    def rows(summary: Mapping[str, Any]) -> list[list[str]]:
        if not summary.get("ast_goals"):
            return []
        return [["AST checks (every call clean)", pct(summary["ast_accuracy"]),
                 ci_text(summary.get("ast_accuracy_ci95")), f"{summary['ast_goals']} goals"]]  # fmt: skip

    @staticmethod
    def notes(summary: Mapping[str, Any]) -> list[str]:
        errors = summary.get("ast_errors") or {}
        return ["AST errors: " + ", ".join(f"{k} {v}" for k, v in errors.items())] if errors else []
