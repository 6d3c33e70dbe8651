"""The run summary's part for the ``bfcl_ast`` judge: BFCL's single-turn accuracy, overall and per category.

Each category's accuracy is BFCL's (entries passed / entries), with a 95% interval: Wilson's with one trial per
entry; with several trials, a bootstrap over entries (an entry's trials are not independent draws). BFCL's own
overall number weights its categories; the summary gives the plain share over every scored episode and the table
per category, from which any weighting can be rebuilt.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any, NamedTuple

from judges.common.category_tally import CategoryTally, totals
from judges.common.reduction import EpisodeFacts, Reduction, RunFacts
from judges.common.stats import cluster_bootstrap, rate, wilson
from judges.common.summary_view import Section, ci_text, pct
from judges.names import JudgeName
from sim.core import Score


class BfclAstVerdict(NamedTuple):
    category: str
    passed: bool
    reason: str  # "" when passed


def bfcl_ast_verdict(score: Score) -> BfclAstVerdict | None:
    if score.value is None:
        return None
    reason = next((e.split(":", 2)[2] for e in score.errors if e.count(":") >= 2), "")
    return BfclAstVerdict(str(score.details.get("category", "")), score.value == 1.0, reason)


def _interval(by_task: Mapping[str, list[int]], trials: int) -> tuple[float, float] | None:
    passed, episodes = totals(by_task)
    if trials <= 1:
        return wilson(passed, episodes)
    return cluster_bootstrap([(float(p), float(n)) for _, (p, n) in sorted(by_task.items())])


class BfclAstSummary(Reduction[BfclAstVerdict]):
    judge = JudgeName.BFCL_AST
    label = "BFCL single-turn accuracy (AST)"

    def __init__(self) -> None:
        self.tally = CategoryTally()
        self.reasons: Counter[str] = Counter()

    def verdict(self, score: Score) -> BfclAstVerdict | None:
        return bfcl_ast_verdict(score)

    def add(self, verdict: BfclAstVerdict, episode: EpisodeFacts) -> None:
        self.tally.add(verdict.category, episode.task_id, verdict.passed)
        if verdict.reason:
            self.reasons[verdict.reason] += 1

    def result(self, run: RunFacts) -> dict[str, Any]:
        if not self.tally:
            return {}
        every = self.tally.every()
        categories = {}
        for category, tasks in self.tally.categories():
            passed, episodes = totals(tasks)
            categories[category] = {
                "accuracy": rate(passed, episodes),
                "ci95": _interval(tasks, run.trials),
                "episodes": episodes,
                "entries": len(tasks),
            }
        passed, episodes = totals(every)
        return {
            "bfcl_ast_accuracy": rate(passed, episodes),
            "bfcl_ast_accuracy_ci95": _interval(every, run.trials),
            "bfcl_ast_episodes": episodes,
            "bfcl_ast_by_category": categories,
            "bfcl_ast_errors": dict(self.reasons.most_common()),
        }

    @staticmethod
    def rows(summary: Mapping[str, Any]) -> list[list[str]]:
        if not summary.get("bfcl_ast_episodes"):
            return []
        accuracy, ci = pct(summary.get("bfcl_ast_accuracy")), ci_text(summary.get("bfcl_ast_accuracy_ci95"))
        return [["BFCL single-turn accuracy (AST)", accuracy, ci, f"{summary['bfcl_ast_episodes']} episodes"]]

    @staticmethod
    def notes(summary: Mapping[str, Any]) -> list[str]:
        errors = summary.get("bfcl_ast_errors") or {}
        return ["BFCL AST errors: " + ", ".join(f"{k} {v}" for k, v in errors.items())] if errors else []

    @staticmethod
    def sections(summary: Mapping[str, Any]) -> list[Section]:
        categories = summary.get("bfcl_ast_by_category") or {}
        if not categories:
            return []
        rows = [
            (c, pct(v.get("accuracy")), ci_text(v.get("ci95")), str(v.get("entries", "")), str(v.get("episodes", "")))
            for c, v in categories.items()
        ]
        return [
            Section.of(
                "bfcl_ast_categories",
                "BFCL single-turn accuracy per category (AST checker)",
                ("category", "accuracy", "95% CI", "entries", "episodes"),
                rows,
            )
        ]
