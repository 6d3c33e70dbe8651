"""The run summary's numbers for world state and error handling, summed in one pass.

- state match (``state_match`` judge): goals at stake (the gold or the agent changed the world) whose world matched
  the gold's at the goal's end, with a task-cluster bootstrap interval; episodes whose end state matched; episodes
  with collateral damage (a change nobody asked for, left at the end); episodes whose gold could not be replayed;
- error handling (``error_handling`` judge): the mean 1-5 score over the goals where the agent met a failure, its
  distribution, and the same mapped to [0, 1] with a task-cluster interval; which rater gave it, and where that is
  the embedding rater, its row and a note call the number a proxy (with the rater's kappa against people).
- AST (``ast`` judge): goals whose every attempted call was free of errors, and the errors by reason;
- answers by meaning (``answer_match`` judge, when on): question goals answered right, Wilson interval.
Per scored episode only a few numbers are kept.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any, NamedTuple

from judges.answer_metrics import completion_verdict
from judges.error_handling import EMBEDDING_KAPPA
from judges.reduction import EpisodeFacts, Reduction, RunFacts
from judges.stats import cluster_bootstrap, rate, wilson
from judges.summary_view import ci_text, pct, score_ci
from sim.core import Score


class StateVerdict(NamedTuple):
    right: int  # goals whose state matched
    scored: int  # goals at stake
    end_match: bool
    collateral: bool
    unavailable: bool


class HandlingVerdict(NamedTuple):
    scores: tuple[int, ...]  # the 1-5 score of each judged goal
    rater: str  # the rater's mode ("embedding", "llm"); "" in scores stored without it


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


def state_verdict(score: Score) -> StateVerdict | None:
    if "state:gold_unavailable" in score.errors:
        return StateVerdict(0, 0, False, False, True)
    if score.value is None:
        return None
    goals = [v for v in score.per_goal if v is not None]
    return StateVerdict(
        right=sum(v == 1.0 for v in goals),
        scored=len(goals),
        end_match=bool(score.details.get("end_match")),
        collateral=bool(score.details.get("collateral")),
        unavailable=False,
    )


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


class StateMatchSummary(Reduction[StateVerdict]):
    judge = "state_match"
    label = "state match (world vs gold)"

    def __init__(self) -> None:
        self.by_task: dict[str, list[int]] = {}  # task -> [right goals, goals at stake]
        self.episodes = self.end_matches = self.collateral = self.unavailable = 0

    def verdict(self, score: Score) -> StateVerdict | None:
        return state_verdict(score)

    def add(self, verdict: StateVerdict, episode: EpisodeFacts) -> None:
        if verdict.unavailable:
            self.unavailable += 1
            return
        tally = self.by_task.setdefault(episode.task_id, [0, 0])
        tally[0] += verdict.right
        tally[1] += verdict.scored
        self.episodes += 1
        self.end_matches += verdict.end_match
        self.collateral += verdict.collateral

    def result(self, run: RunFacts) -> dict[str, Any]:
        right = sum(r for r, _ in self.by_task.values())
        goals = sum(n for _, n in self.by_task.values())
        return {
            "state_match": rate(right, goals),
            "state_match_ci95_clustered": cluster_bootstrap(
                [(float(r), float(n)) for _, (r, n) in sorted(self.by_task.items())]
            ),
            "state_goals": goals,
            "state_episodes": self.episodes,
            "state_end_match": rate(self.end_matches, self.episodes),
            "collateral_damage_episodes": self.collateral,
            "state_gold_unavailable": self.unavailable,
        }

    @staticmethod
    def rows(summary: Mapping[str, Any]) -> list[list[str]]:
        s = summary
        if not s.get("state_goals"):
            return []
        unavailable = s.get("state_gold_unavailable") or 0
        return [
            ["state match (world vs gold)", pct(s["state_match"]), ci_text(s.get("state_match_ci95_clustered")),
             f"{s['state_goals']} goals at stake" + (f"; {unavailable} episodes no gold" if unavailable else "")],
            ["end state match", pct(s.get("state_end_match")), "", f"{s['state_episodes']} episodes"],
            ["collateral damage", str(s.get("collateral_damage_episodes", 0)), "",
             f"episodes of {s['state_episodes']}"],
        ]  # fmt: skip


class ErrorHandlingSummary(Reduction[HandlingVerdict]):
    judge = "error_handling"
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
            "error_handling": rate(norm, judged),
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
                 f"{summary['error_handling_goals']} goals with a failure ({spread})"]]  # fmt: skip

    @staticmethod
    def notes(summary: Mapping[str, Any]) -> list[str]:
        if not summary.get("error_handling_goals") or "embedding" not in str(summary.get("error_handling_rater")):
            return []
        return [
            f"error handling is an embedding proxy: the similarity rater agrees with people at Cohen's kappa "
            f"{EMBEDDING_KAPPA:.2f} (`squall judges calibrate`); give --judge-model to score it with the llm rater."
        ]


class AstSummary(Reduction[AstVerdict]):
    judge = "ast"
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


class AnswerMatchSummary(Reduction[tuple[int, int]]):
    judge = "answer_match"
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
            "answer_match": rate(right, goals),
            "answer_match_ci95": wilson(right, goals),
            "answer_match_goals": goals,
        }

    @staticmethod
    def rows(summary: Mapping[str, Any]) -> list[list[str]]:
        if not summary.get("answer_match_goals"):
            return []
        return [["answers by meaning", pct(summary["answer_match"]), ci_text(summary.get("answer_match_ci95")),
                 f"{summary['answer_match_goals']} question goals"]]  # fmt: skip
