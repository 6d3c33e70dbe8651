"""The run summary's numbers of the ``call_f1`` judge: intent and slot precision/recall/F1, micro over every
scored episode's counts; the error category of each wrong goal; stuck episodes and goals, by reason.

Per scored episode only a few numbers are kept (the verdict type below).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any, NamedTuple

from judges.common.reduction import EpisodeFacts, Reduction, RunFacts
from judges.common.stats import rate, wilson
from judges.common.summary_view import Section, ci_text, pct, share_section
from judges.names import JudgeName
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
"""The call_f1 judge's error categories (see ``judges.calls.call_f1``)."""


STUCK_REASONS = ("repeated_failure", "repeated_call", "no_progress")


class CallVerdict(NamedTuple):
    """What the summary keeps of a ``call_f1`` score."""

    counts: tuple[int, ...]  # intent tp, pred, gold; slot tp, pred, gold
    categories: tuple[str, ...]
    stuck: tuple[str, ...]  # reason of each stuck goal


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


def _f1_rows(kind: str, prf: Mapping[str, float | None], counts: list[int]) -> list[list[str]]:
    """F1, then precision and recall on rows of their own, each over its own denominator (calls made, gold calls)
    with its Wilson interval: a precision printed under an interval's header reads as one."""
    tp, made, gold = counts
    unit = "calls" if kind == "intent" else "slots"
    return [
        [f"{kind} F1", pct(prf["f1"]), "", f"{gold} gold, {made} made {unit}"],
        [f"{kind} precision", pct(prf["precision"]), ci_text(wilson(tp, made)), f"{made} {unit} made"],
        [f"{kind} recall", pct(prf["recall"]), ci_text(wilson(tp, gold)), f"{gold} gold {unit}"],
    ]


class CallF1Summary(Reduction[CallVerdict]):
    judge = JudgeName.CALL_F1
    label = "call F1"

    def __init__(self) -> None:
        self.counts = [0] * 6
        self.episodes = 0
        self.categories = dict.fromkeys(CATEGORIES, 0)
        self.stuck = dict.fromkeys(STUCK_REASONS, 0)
        self.stuck_episodes = 0

    def verdict(self, score: Score) -> CallVerdict | None:
        return call_verdict(score)

    def add(self, verdict: CallVerdict, episode: EpisodeFacts) -> None:
        self.episodes += 1
        for k, n in enumerate(verdict.counts):
            self.counts[k] += n
        for c in verdict.categories:
            self.categories[c] = self.categories.get(c, 0) + 1
        for r in verdict.stuck:
            self.stuck[r] = self.stuck.get(r, 0) + 1
        self.stuck_episodes += bool(verdict.stuck)

    def result(self, run: RunFacts) -> dict[str, Any]:
        c = self.counts
        return {
            JudgeName.CALL_F1: {
                "intent": _prf(c[0], c[1], c[2]),
                "slot": _prf(c[3], c[4], c[5]),
                "counts": {"intent": c[:3], "slot": c[3:]},
                "episodes": self.episodes,
            },
            "error_categories": self.categories,
            "stuck": {"episodes": self.stuck_episodes, "turns": sum(self.stuck.values()), "by_reason": self.stuck},
        }

    @staticmethod
    def rows(summary: Mapping[str, Any]) -> list[list[str]]:
        rows = []
        f1 = summary.get(JudgeName.CALL_F1) or {}
        if f1.get("episodes"):
            for kind in ("intent", "slot"):
                rows += _f1_rows(kind, f1[kind], f1["counts"][kind])
        stuck = summary.get("stuck") or {}
        if stuck.get("episodes"):
            reasons = ", ".join(f"{k} {v}" for k, v in stuck["by_reason"].items() if v)
            episodes = f1.get("episodes") or stuck["episodes"]
            rows.append(["stuck episodes", str(stuck["episodes"]), "",
                         f"{episodes} episodes ({stuck['turns']} goals stuck: {reasons})"])  # fmt: skip
        return rows

    @staticmethod
    def sections(summary: Mapping[str, Any]) -> list[Section]:
        counts = summary.get("error_categories")
        return share_section("error_categories", counts, "error categories (wrong goals)", "category")
