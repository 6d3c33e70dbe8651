"""The run summary's numbers of the ``error_handling`` judge: the mean 1-5 score over the goals where the agent
met a failure, its distribution, and the same mapped to [0, 1] with a task-cluster interval; which rater gave it,
and where that is the embedding rater, its row and a note call the number a proxy (with the rater's kappa
against people).

Per scored episode only a few numbers are kept (the verdict type below).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any, NamedTuple

from judges.common.reduction import EpisodeFacts, Reduction, RunFacts
from judges.common.stats import cluster_bootstrap, rate
from judges.common.summary_view import plural, score_ci
from judges.errors.error_handling import EMBEDDING_KAPPA
from judges.names import JudgeName
from sim.core import Score


class HandlingVerdict(NamedTuple):
    scores: tuple[int, ...]  # the 1-5 score of each judged goal
    rater: str  # the rater's mode ("embedding", "llm"); "" in scores stored without it


def handling_verdict(score: Score) -> HandlingVerdict | None:
    if score.value is None:
        return None
    return HandlingVerdict(
        tuple(int(v) for v in score.details.get("scores", {}).values()), str(score.details.get("mode") or "")
    )


def handling_title(rater: object) -> str:
    """The headline row's name: the embedding rater's number is a proxy, and says so with its kappa."""
    if rater == "embedding":
        return f"error handling (1-5, embedding proxy, kappa {EMBEDDING_KAPPA:.2f})"
    if isinstance(rater, str) and rater:
        return f"error handling (1-5, {rater} rater)"
    return "error handling (1-5)"


class ErrorHandlingSummary(Reduction[HandlingVerdict]):
    judge = JudgeName.ERROR_HANDLING
    label = "error handling (1-5)"

    def __init__(self) -> None:
        self.by_task: dict[str, list[float]] = {}  # task -> [sum of (score - 1) / 4, goals]
        self.scores: Counter[int] = Counter()
        self.raters: set[str] = set()

    def verdict(self, score: Score) -> HandlingVerdict | None:
        return handling_verdict(score)

    def add(self, verdict: HandlingVerdict, episode: EpisodeFacts) -> None:
        if not verdict.scores:
            return
        tally = self.by_task.setdefault(episode.task_id, [0.0, 0])
        tally[0] += sum((s - 1) / 4 for s in verdict.scores)
        tally[1] += len(verdict.scores)
        self.scores.update(verdict.scores)
        if verdict.rater:
            self.raters.add(verdict.rater)

    def result(self, run: RunFacts) -> dict[str, Any]:
        judged = sum(self.scores.values())
        total = sum(s * n for s, n in self.scores.items())
        norm = sum(t for t, _ in self.by_task.values())
        ci = cluster_bootstrap([(t, float(n)) for _, (t, n) in sorted(self.by_task.items())])
        return {
            "error_handling_score": rate(total, judged),
            JudgeName.ERROR_HANDLING: rate(norm, judged),
            "error_handling_ci95_clustered": ci,
            "error_handling_score_ci95_clustered": None if ci is None else [round(1 + 4 * x, 4) for x in ci],
            "error_handling_goals": judged,
            "error_handling_scores": {str(s): self.scores[s] for s in range(1, 6)} if judged else {},
            # One score set has one rater; "+" joins them only if verdicts of several were ever mixed.
            "error_handling_rater": "+".join(sorted(self.raters)) or None,
        }

    @staticmethod
    def rows(summary: Mapping[str, Any]) -> list[list[str]]:
        if not summary.get("error_handling_goals"):
            return []
        score = summary.get("error_handling_score")
        spread = " ".join(f"{k}:{v}" for k, v in (summary.get("error_handling_scores") or {}).items())
        return [[handling_title(summary.get("error_handling_rater")), "n/a" if score is None else f"{score:.2f}",
                 score_ci(summary.get("error_handling_score_ci95_clustered")),
                 f"{plural(summary['error_handling_goals'], 'goal')} with a failure ({spread})"]]  # fmt: skip

    @staticmethod
    def notes(summary: Mapping[str, Any]) -> list[str]:
        if not summary.get("error_handling_goals") or "embedding" not in str(summary.get("error_handling_rater")):
            return []
        return [
            f"error handling is an embedding proxy: the similarity rater agrees with people at Cohen's kappa "
            f"{EMBEDDING_KAPPA:.2f} (`squall judges calibrate`); give --judge-model to score it with the llm rater."
        ]
