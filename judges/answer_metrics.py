"""The run summary's numbers for exact answers and call sequences, summed in one pass.

- completion (``completion`` judge): answer turns whose final reply gave the exact answer, Wilson CI; None (n/a)
  when no turn had an answer;
- answer facts (``answer_facts`` judge): question goals whose final reply stated every fact of the gold answer,
  Wilson CI; None (n/a) without one;
- call F1 (``call_f1`` judge): intent and slot precision/recall/F1, micro over every scored episode's counts;
- error categories (``call_f1``): the BFCL-style category of each wrong turn;
- stuck (``call_f1``): scored episodes and turns in which the agent was stuck, by reason;
- out of budget (from the episodes, failed ones included): episodes that hit the agent's step limit, the run's
  turn limit, or the working-time budget (timeout).
Per scored episode only a few numbers are kept (``AnswerVerdict``); categories are interned strings.
"""

from __future__ import annotations

import sys
from typing import Any, NamedTuple

from judges.stats import rate, wilson
from sim.core import Score

CATEGORIES = (
    "not_played",
    "no_call",
    "hallucinated_function",
    "malformed_call",
    "wrong_function",
    "wrong_count",
    "execution_error",
    "refused_call",
    "missing_arg",
    "extra_arg",
    "wrong_arg_type",
    "wrong_arg_value",
    "extra_call",
)
"""The call_f1 judge's error categories (see ``judges.call_f1``)."""
STUCK_REASONS = ("repeated_failure", "repeated_call", "no_progress")


def completion_verdict(score: Score) -> tuple[int, int] | None:
    """(right, answer turns) of a completion score; None without an answer turn or on a judge fault."""
    if score.value is None:
        return None
    judged = [v for v in score.per_goal if v is not None]
    return int(sum(judged)), len(judged)


class CallVerdict(NamedTuple):
    """What the summary keeps of a ``call_f1`` score."""

    counts: tuple[int, ...]  # intent tp, pred, gold; slot tp, pred, gold
    categories: tuple[str, ...]
    stuck: tuple[str, ...]  # reason of each stuck turn


def call_verdict(score: Score) -> CallVerdict | None:
    counts = score.details.get("counts")
    if score.judge_fault or not counts:
        return None
    return CallVerdict(
        counts=(*counts["intent"], *counts["slot"]),
        categories=tuple(sys.intern(str(c)) for c in score.details.get("categories") or () if c),
        stuck=tuple(sys.intern(str(r)) for r in (score.details.get("stuck") or {}).values()),
    )


def _prf(tp: int, pred: int, gold: int) -> dict[str, float | None]:
    return {"precision": rate(tp, pred), "recall": rate(tp, gold), "f1": rate(2 * tp, pred + gold)}


class AnswerTally:
    """Sums for the keys above; ``add_episode`` for every episode, ``add`` for scored ones."""

    def __init__(self) -> None:
        self.completion = [0, 0, 0]  # right turns, answer turns, episodes with an answer turn
        self.facts = [0, 0]  # right question goals, question goals (answer_facts)
        self.counts = [0] * 6
        self.call_episodes = 0
        self.categories = dict.fromkeys(CATEGORIES, 0)
        self.stuck = dict.fromkeys(STUCK_REASONS, 0)
        self.stuck_episodes = 0
        self.budget = {"step_limit": 0, "turn_limit": 0, "timeout": 0}
        self.budget_episodes = 0

    def add_episode(self, termination: str, step_limit: bool) -> None:
        hits = {
            "step_limit": step_limit,
            "turn_limit": termination == "turn_limit",
            "timeout": termination == "timeout",
        }
        for k, hit in hits.items():
            self.budget[k] += hit
        self.budget_episodes += any(hits.values())

    def add(
        self, completion: tuple[int, int] | None, call: CallVerdict | None, facts: tuple[int, int] | None = None
    ) -> None:
        if facts is not None:
            self.facts = [self.facts[0] + facts[0], self.facts[1] + facts[1]]
        if completion is not None:
            self.completion[0] += completion[0]
            self.completion[1] += completion[1]
            self.completion[2] += 1
        if call is not None:
            self.call_episodes += 1
            for k, n in enumerate(call.counts):
                self.counts[k] += n
            for c in call.categories:
                self.categories[c] = self.categories.get(c, 0) + 1
            for r in call.stuck:
                self.stuck[r] = self.stuck.get(r, 0) + 1
            self.stuck_episodes += bool(call.stuck)

    def result(self) -> dict[str, Any]:
        right, turns, episodes = self.completion
        c = self.counts
        return {
            "completion": rate(right, turns),
            "completion_ci95": wilson(right, turns),
            "completion_turns": turns,
            "completion_episodes": episodes,
            "call_f1": {
                "intent": _prf(c[0], c[1], c[2]),
                "slot": _prf(c[3], c[4], c[5]),
                "counts": {"intent": c[:3], "slot": c[3:]},
                "episodes": self.call_episodes,
            },
            "error_categories": self.categories,
            "stuck": {"episodes": self.stuck_episodes, "turns": sum(self.stuck.values()), "by_reason": self.stuck},
            "out_of_budget": {"episodes": self.budget_episodes, **self.budget},
            "answer_facts": rate(self.facts[0], self.facts[1]),
            "answer_facts_ci95": wilson(self.facts[0], self.facts[1]),
            "answer_facts_turns": self.facts[1],
        }
