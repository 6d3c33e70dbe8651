"""State: the world after the agent's calls against the world after the gold's, per goal and at the end.

Read from ``EpisodeResult.goal_states`` (recorded by ``sim.episode.state_track``): flat task states, as changes from the
world's base data (a deleted row is ``ABSENT``; a path not listed is as at the base). Per goal, the paths that
matter are those the gold changes in that goal and those the agent changes in it; the goal's state matches when
every such path holds the gold's value at the goal's end (numbers by value: 25 == 25.0; reads never count, they
change nothing). A path the agent changed that the gold leaves alone and that now differs from the gold is
collateral damage: a change nobody asked for. Goals where neither side changes anything (questions) have nothing at
stake and are not scored; an episode without any such goal, or whose world has no task state, is None (not
applicable).

The end state compares the whole world after the last played goal, so in the cumulative setup an early mistake
counts there even when each later goal did its own part right.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from judges.common.trace_view import failed, played, score_for, unscoreable
from judges.names import JudgeName
from sim.core import EpisodeResult, GoalState, Score
from sim.core.task_state import at, moved, same

SHOWN_PATHS = 8
"""Paths listed per kind of mismatch in a score's details (the counts are always whole)."""


@dataclass
class GoalStateVerdict:
    applicable: bool
    missing: list[str] = field(default_factory=list)  # the gold changes it, the agent did not
    wrong: list[str] = field(default_factory=list)  # both change it, to different values
    collateral: list[str] = field(default_factory=list)  # only the agent changes it

    @property
    def matched(self) -> bool:
        return not (self.missing or self.wrong or self.collateral)


def judge_goal_state(state: GoalState) -> GoalStateVerdict | None:
    """The verdict on one goal; None when the gold could not be replayed."""
    if state.gold_before is None or state.gold_after is None:
        return None
    expected = moved(state.gold_before, state.gold_after)
    done = moved(state.before, state.after)
    verdict = GoalStateVerdict(applicable=bool(expected or done))
    for path in sorted(expected | done):
        if same(at(state.after, path), at(state.gold_after, path)):
            continue
        if path not in expected:
            verdict.collateral.append(path)
        elif path in done:
            verdict.wrong.append(path)
        else:
            verdict.missing.append(path)
    return verdict


def end_state_diff(state: GoalState) -> tuple[list[str], list[str]]:
    """(paths where the agent's final world differs from the gold's, of them those the gold never changes)."""
    gold_after = state.gold_after or {}
    differ = sorted(moved(state.after, gold_after))
    return differ, [p for p in differ if p not in gold_after]


class StateMatch:
    """Share of the goals at stake whose world matched the gold's at the goal's end; details say the end state."""

    name = JudgeName.STATE_MATCH

    async def score(self, result: EpisodeResult) -> Score:
        if failed(result):
            return unscoreable(result, self.name)
        states = [s for s in result.goal_states if played(result, s.goal)]
        if not states:
            return score_for(result, self.name, value=None)
        if any(s.gold_after is None for s in states):
            return score_for(result, self.name, value=None, errors=["state:gold_unavailable"])
        verdicts = {s.goal: v for s in states if (v := judge_goal_state(s)) is not None and v.applicable}
        if not verdicts:
            return score_for(result, self.name, value=None)
        differ, collateral = end_state_diff(states[-1])
        errors, mismatched = [], {}
        for g, v in verdicts.items():
            kinds = {"missing_change": v.missing, "wrong_value": v.wrong, "collateral": v.collateral}
            errors += [f"goal{g}:state:{kind}" for kind, paths in kinds.items() if paths]
            if not v.matched:
                mismatched[str(g)] = {kind: paths[:SHOWN_PATHS] for kind, paths in kinds.items() if paths}
        return score_for(
            result,
            self.name,
            value=sum(v.matched for v in verdicts.values()) / len(verdicts),
            per_goal=[
                (1.0 if verdicts[g].matched else 0.0) if g in verdicts else None for g in range(len(result.task.goals))
            ],
            errors=errors,
            details={
                "end_match": not differ,
                "end_differences": len(differ),
                "collateral": len(collateral),
                "collateral_paths": collateral[:SHOWN_PATHS],
                "goals": mismatched,
            },
        )
