"""The run summary's numbers of the ``state_match`` judge: goals at stake (the gold or the agent changed the
world) whose world matched the gold's at the goal's end, with a task-cluster bootstrap interval; episodes whose
end state matched; episodes with collateral damage (a change nobody asked for, left at the end); episodes whose
gold could not be replayed.

Per scored episode only a few numbers are kept (the verdict type below).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from judges.common.reduction import EpisodeFacts, Reduction, RunFacts
from judges.common.stats import cluster_bootstrap, rate
from judges.common.summary_view import ci_text, pct
from judges.names import JudgeName
from sim.core import Score


class StateVerdict(NamedTuple):
    right: int  # goals whose state matched
    scored: int  # goals at stake
    end_match: bool
    collateral: bool
    unavailable: bool


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


class StateMatchSummary(Reduction[StateVerdict]):
    judge = JudgeName.STATE_MATCH
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
            JudgeName.STATE_MATCH: rate(right, goals),
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
            ["state match (world vs gold)", pct(s[JudgeName.STATE_MATCH]), ci_text(s.get("state_match_ci95_clustered")),
             f"{s['state_goals']} goals at stake" + (f"; {unavailable} episodes no gold" if unavailable else "")],
            ["end state match", pct(s.get("state_end_match")), "", f"{s['state_episodes']} episodes"],
            ["episodes with collateral damage", str(s.get("collateral_damage_episodes", 0)), "",
             f"{s['state_episodes']} episodes"],
        ]  # fmt: skip
