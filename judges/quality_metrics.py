"""The run summary's numbers for world state and error handling, summed in one pass.

- state match (``state_match`` judge): goals at stake (the gold or the agent changed the world) whose world matched
  the gold's at the goal's end, with a task-cluster bootstrap interval; episodes whose end state matched; episodes
  with collateral damage (a change nobody asked for, left at the end); episodes whose gold could not be replayed;
- error handling (``error_handling`` judge): the mean 1-5 score over the goals where the agent met a failure, its
  distribution, and the same mapped to [0, 1] with a task-cluster interval.
- AST (``ast`` judge): goals whose every attempted call was free of errors, and the errors by reason;
- answers by meaning (``answer_match`` judge, when on): question goals answered right, Wilson interval.
Per scored episode only a few numbers are kept.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, NamedTuple

from judges.stats import cluster_bootstrap, rate, wilson
from sim.core import Score


class StateVerdict(NamedTuple):
    right: int  # goals whose state matched
    scored: int  # goals at stake
    end_match: bool
    collateral: bool
    unavailable: bool


class HandlingVerdict(NamedTuple):
    scores: tuple[int, ...]  # the 1-5 score of each judged goal


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
    return HandlingVerdict(tuple(int(v) for v in score.details.get("scores", {}).values()))


class QualityTally:
    def __init__(self) -> None:
        self.state_by_task: dict[str, list[int]] = {}  # task -> [right goals, goals at stake]
        self.state_episodes = self.end_matches = self.collateral = self.unavailable = 0
        self.handling_by_task: dict[str, list[float]] = {}  # task -> [sum of (score - 1) / 4, goals]
        self.handling_scores: Counter[int] = Counter()
        self.ast = [0, 0]  # clean goals, checked goals
        self.ast_reasons: Counter[str] = Counter()
        self.answers = [0, 0]  # answer_match: right question goals, judged ones

    def add(
        self,
        task_id: str,
        state: StateVerdict | None,
        handling: HandlingVerdict | None,
        ast: AstVerdict | None,
        answers: tuple[int, int] | None = None,
    ) -> None:
        if answers is not None:
            self.answers[0] += answers[0]
            self.answers[1] += answers[1]
        if ast is not None:
            self.ast[0] += ast.clean
            self.ast[1] += ast.checked
            for reason, n in ast.reasons:
                self.ast_reasons[reason] += n
        if state is not None:
            if state.unavailable:
                self.unavailable += 1
            else:
                tally = self.state_by_task.setdefault(task_id, [0, 0])
                tally[0] += state.right
                tally[1] += state.scored
                self.state_episodes += 1
                self.end_matches += state.end_match
                self.collateral += state.collateral
        if handling is not None and handling.scores:
            tally_h = self.handling_by_task.setdefault(task_id, [0.0, 0])
            tally_h[0] += sum((s - 1) / 4 for s in handling.scores)
            tally_h[1] += len(handling.scores)
            self.handling_scores.update(handling.scores)

    def result(self) -> dict[str, Any]:
        right = sum(r for r, _ in self.state_by_task.values())
        goals = sum(n for _, n in self.state_by_task.values())
        judged = sum(self.handling_scores.values())
        total = sum(s * n for s, n in self.handling_scores.items())
        norm = sum(t for t, _ in self.handling_by_task.values())
        ci = cluster_bootstrap([(t, float(n)) for _, (t, n) in sorted(self.handling_by_task.items())])
        return {
            "state_match": rate(right, goals),
            "state_match_ci95_clustered": cluster_bootstrap(
                [(float(r), float(n)) for _, (r, n) in sorted(self.state_by_task.items())]
            ),
            "state_goals": goals,
            "state_episodes": self.state_episodes,
            "state_end_match": rate(self.end_matches, self.state_episodes),
            "collateral_damage_episodes": self.collateral,
            "state_gold_unavailable": self.unavailable,
            "error_handling_score": rate(total, judged),
            "error_handling": rate(norm, judged),
            "error_handling_ci95_clustered": ci,
            "error_handling_score_ci95_clustered": None if ci is None else [round(1 + 4 * x, 4) for x in ci],
            "error_handling_goals": judged,
            "error_handling_scores": {str(s): self.handling_scores[s] for s in range(1, 6)} if judged else {},
            "ast_accuracy": rate(self.ast[0], self.ast[1]),
            "ast_accuracy_ci95": wilson(self.ast[0], self.ast[1]),
            "ast_goals": self.ast[1],
            "ast_errors": dict(self.ast_reasons.most_common()),
            **(
                {
                    "answer_match": rate(self.answers[0], self.answers[1]),
                    "answer_match_ci95": wilson(self.answers[0], self.answers[1]),
                    "answer_match_goals": self.answers[1],
                }
                if self.answers[1]
                else {}
            ),
        }
