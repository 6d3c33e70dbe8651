"""The run summary's BFCL multi-turn numbers (``bfcl_multi_turn`` judge): entry accuracy as BFCL computes it, with a
task-cluster interval, overall and per BFCL category; the state and response checks' pass rates over the checked
turns; the failures by reason."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any, NamedTuple

from judges.common.category_tally import CategoryTally, totals
from judges.common.reduction import EpisodeFacts, Reduction, RunFacts
from judges.common.stats import cluster_bootstrap, rate
from judges.common.summary_view import Section, ci_text, pct
from judges.names import JudgeName
from sim.core import Score

BFCL_NOTE = (
    "BFCL multi-turn accuracy is BFCL's own number (an entry passes when after every turn the world and the results "
    "match the gold's, whatever path got there); core API accuracy is squall's, and follows the gold's paths."
)


class BfclVerdict(NamedTuple):
    passed: bool
    category: str
    state: tuple[int, int]  # checked turns whose state matched, checked turns
    response: tuple[int, int]  # checked turns whose results held the gold's, checked turns
    reason: str | None


def bfcl_verdict(score: Score) -> BfclVerdict | None:
    if score.value is None:
        return None

    def tally(key: str) -> tuple[int, int]:
        checks = [c for c in score.details.get(key, []) if c is not None]
        return sum(bool(c) for c in checks), len(checks)

    return BfclVerdict(
        passed=score.value == 1.0,
        category=str(score.details.get("category", "")),
        state=tally("state_checks"),
        response=tally("response_checks"),
        reason=score.details.get("reason"),
    )


def _accuracy(by_task: Mapping[str, list[int]]) -> dict[str, Any]:
    passed, entries = totals(by_task)
    return {
        "accuracy": rate(passed, entries),
        "ci95_clustered": cluster_bootstrap([(float(p), float(n)) for _, (p, n) in sorted(by_task.items())]),
        "episodes": entries,
        "tasks": len(by_task),
    }


class BfclMultiTurnSummary(Reduction[BfclVerdict]):
    judge = JudgeName.BFCL_MULTI_TURN
    label = "BFCL multi-turn accuracy"

    def __init__(self) -> None:
        self.tally = CategoryTally()
        self.state = [0, 0]
        self.response = [0, 0]
        self.reasons: Counter[str] = Counter()

    def verdict(self, score: Score) -> BfclVerdict | None:
        return bfcl_verdict(score)

    def add(self, verdict: BfclVerdict, episode: EpisodeFacts) -> None:
        self.tally.add(verdict.category, episode.task_id, verdict.passed)
        for total, (right, checked) in ((self.state, verdict.state), (self.response, verdict.response)):
            total[0] += right
            total[1] += checked
        if verdict.reason:
            self.reasons[verdict.reason] += 1

    def result(self, run: RunFacts) -> dict[str, Any]:
        if not self.tally:
            return {}
        overall = _accuracy(self.tally.every())
        return {
            "bfcl_multi_turn_accuracy": overall["accuracy"],
            "bfcl_multi_turn_ci95_clustered": overall["ci95_clustered"],
            "bfcl_multi_turn_episodes": overall["episodes"],
            "bfcl_multi_turn_by_category": {c: _accuracy(t) for c, t in self.tally.categories()},
            "bfcl_multi_turn_state_check": rate(self.state[0], self.state[1]),
            "bfcl_multi_turn_response_check": rate(self.response[0], self.response[1]),
            "bfcl_multi_turn_checked_turns": self.state[1],
            "bfcl_multi_turn_failures": dict(self.reasons.most_common()),
        }

    @staticmethod
    def rows(summary: Mapping[str, Any]) -> list[list[str]]:
        s = summary
        if not s.get("bfcl_multi_turn_episodes"):
            return []
        turns = f"{s.get('bfcl_multi_turn_checked_turns', 0)} turns"
        return [
            ["BFCL multi-turn accuracy (BFCL's)", pct(s.get("bfcl_multi_turn_accuracy")),
             ci_text(s.get("bfcl_multi_turn_ci95_clustered")), f"{s['bfcl_multi_turn_episodes']} entries"],
            ["BFCL state check", pct(s.get("bfcl_multi_turn_state_check")), "", turns],
            ["BFCL response check", pct(s.get("bfcl_multi_turn_response_check")), "", turns],
        ]  # fmt: skip

    @staticmethod
    def notes(summary: Mapping[str, Any]) -> list[str]:
        if not summary.get("bfcl_multi_turn_episodes"):
            return []
        failures = summary.get("bfcl_multi_turn_failures") or {}
        failed = ["BFCL failures: " + ", ".join(f"{k} {v}" for k, v in failures.items())] if failures else []
        return [BFCL_NOTE, *failed]

    @staticmethod
    def sections(summary: Mapping[str, Any]) -> list[Section]:
        categories = summary.get("bfcl_multi_turn_by_category") or {}
        if not categories:
            return []
        rows = [
            (c, pct(v.get("accuracy")), ci_text(v.get("ci95_clustered")), str(v.get("episodes", 0)))
            for c, v in categories.items()
        ]
        return [
            Section.of(
                JudgeName.BFCL_MULTI_TURN,
                "BFCL multi-turn accuracy by category",
                ("category", "accuracy", "95% CI (tasks)", "entries"),
                rows,
            )
        ]
