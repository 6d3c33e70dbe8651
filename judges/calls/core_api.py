"""Core API accuracy per goal, and conversation success (every goal right).

A goal is right when the set of core calls the agent made equals the core calls of some accepted
solution path of that goal. What counts as an agent's core call:
- only calls that succeeded (a call the world refused changed nothing; error handling is judged apart);
- read-only lookups are support calls and ignored, unless the path itself has a core call of that
  function (a lookup that answers the user's question is core) and the call is not one of the path's own support
  lookups.
Support calls in the gold are never scored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from judges.calls.arg_match import ArgMatcher
from judges.calls.decline import judge_decline_turn
from judges.common.episode_memo import memo
from judges.common.trace_view import (
    NO_EXECUTABLE_GOLD,
    agent_calls,
    failed,
    goals_without_executable_gold,
    no_world_calls,
    played,
    schemas,
    score_for,
    unscoreable,
    user_acts_missing,
)
from judges.names import JudgeName
from sim.core import EpisodeResult, Goal, GoldCall, Score, ToolCall
from sim.core.task import free_in

__all__ = [
    "ConversationSuccess",
    "CoreApiAccuracy",
    "Schemas",
    "TurnVerdict",
    "agent_calls",
    "judge_turn",
    "judge_turns",
    "path_errors",
]

Schemas = dict[str, dict[str, Any]]


@dataclass
class TurnVerdict:
    correct: bool
    path: int | None = None  # index of the matching path (0 = primary)
    errors: list[str] = field(default_factory=list)


def judge_turn(goal: Goal, calls: list[tuple[ToolCall, bool]], schemas: Schemas, matcher: ArgMatcher) -> TurnVerdict:
    best: TurnVerdict | None = None
    for index, path in enumerate(goal.paths()):
        errors = path_errors(path, calls, schemas, matcher, goal.free_arguments)
        if not errors:
            return TurnVerdict(correct=True, path=index)
        if best is None:  # report deductions against the primary path
            best = TurnVerdict(correct=False, errors=errors)
    assert best is not None
    return best


def path_errors(
    path: list[GoldCall],
    calls: list[tuple[ToolCall, bool]],
    schemas: Schemas,
    matcher: ArgMatcher,
    free_arguments: Sequence[str] = (),
) -> list[str]:
    """The deductions of ``calls`` against one path alone (none: the path is right); ``judge_turn`` of a goal whose
    only path it is, without building that goal. ``free_arguments``: the goal's (``Goal.free_arguments``)."""
    gold = [c for c in path if c.role == "core"]
    support = [c for c in path if c.role == "support"]
    core_names = {c.name for c in gold}

    def same(a: ToolCall, g: GoldCall) -> bool:
        return a.name == g.name and matcher.matches(
            a.arguments, g.arguments, schemas.get(g.name), g.name, g.accepted, free_in(free_arguments, g.name)
        )

    # A lookup counts when its function answers as a core call, unless it is one of the path's support lookups
    # (the same function can look up one entity and answer about another in one goal).
    made = [
        c
        for c, read_only in calls
        if not read_only or (c.name in core_names and not any(same(c, g) for g in support if g.name == c.name))
    ]

    unmatched_gold = [g for g in gold if not any(same(a, g) for a in made)]
    unmatched_made = [a for a in made if not any(same(a, g) for g in gold)]
    errors: list[str] = []
    for g in unmatched_gold:
        near = next((a for a in unmatched_made if a.name == g.name), None)
        if near is None:
            errors.append(f"core:missing:{g.name}")
        else:  # right function, wrong arguments: say which
            unmatched_made.remove(near)
            free = free_in(free_arguments, g.name)
            errors.extend(
                matcher.match(near.arguments, g.arguments, schemas.get(g.name), g.name, g.accepted, free)[1]
                or [f"args:{g.name}"]
            )
    errors.extend(f"core:extra:{a.name}" for a in unmatched_made)
    return errors


def judge_turns(result: EpisodeResult, matcher: ArgMatcher) -> list[TurnVerdict]:
    """Core API accuracy's verdict on every goal (once per episode judged: four judges read it)."""
    kept = memo(result, ("judge_turns", id(matcher)), lambda: (matcher, _judge_turns(result, matcher)))
    return kept[1]  # kept with the matcher: its id cannot be reused while the memo lives


def _judge_turns(result: EpisodeResult, matcher: ArgMatcher) -> list[TurnVerdict]:
    tool_schemas = schemas(result)
    verdicts = []
    for i, goal in enumerate(result.task.goals):
        if not played(result, i):
            verdicts.append(TurnVerdict(correct=False, errors=["turn:not_played"]))
        else:
            verdicts.append(judge_turn(goal, agent_calls(result, i), tool_schemas, matcher))
    return verdicts


class CoreApiAccuracy:
    """Fraction of the task's goals with core gold calls whose core calls were right."""

    name = JudgeName.CORE_API_ACCURACY

    def __init__(self, matcher: ArgMatcher) -> None:
        self.matcher = matcher

    async def score(self, result: EpisodeResult) -> Score:
        if failed(result):
            return unscoreable(result, self.name)
        if (not_applicable := no_world_calls(result, self.name)) is not None:
            return not_applicable
        await self.matcher.prepare(result)  # a judge model's verdicts on value pairs (llm mode), asked once
        verdicts = judge_turns(result, self.matcher)
        # Turns whose gold has no core call test answers, not API calls: outside this metric's denominator; so are
        # goals whose gold lacks the arguments its tools require (nothing to compare the agent's calls with).
        no_gold = goals_without_executable_gold(result)
        applicable = [
            any(c.role == "core" for c in goal.gold) and i not in no_gold for i, goal in enumerate(result.task.goals)
        ]
        per_goal: list[float | None] = [
            (1.0 if v.correct else 0.0) if ok else None for v, ok in zip(verdicts, applicable, strict=True)
        ]
        values = [v for v in per_goal if v is not None]
        return score_for(
            result,
            self.name,
            value=sum(values) / len(values) if values else None,
            per_goal=per_goal,
            errors=[f"goal{i}:{NO_EXECUTABLE_GOLD}" for i in sorted(no_gold)]
            + [f"goal{i}:{e}" for i, v in enumerate(verdicts) if i not in no_gold for e in v.errors],
            details={"paths": [v.path for v in verdicts], "arg_mode": self.matcher.mode},
        )


class ConversationSuccess:
    """1.0 when every goal's core calls were right (and every decline goal declined right), else 0.0."""

    name = JudgeName.CONVERSATION_SUCCESS

    def __init__(self, matcher: ArgMatcher) -> None:
        self.matcher = matcher

    async def score(self, result: EpisodeResult) -> Score:
        if failed(result):
            return unscoreable(result, self.name)
        if (not_applicable := no_world_calls(result, self.name)) is not None:
            return not_applicable
        await self.matcher.prepare(result)  # a judge model's verdicts on value pairs (llm mode), asked once
        if no_gold := goals_without_executable_gold(result):  # success over every goal: n/a when one has no gold
            return score_for(
                result, self.name, value=None, errors=[f"goal{i}:{NO_EXECUTABLE_GOLD}" for i in sorted(no_gold)]
            )
        verdicts = judge_turns(result, self.matcher)
        # A decline goal is right only when the agent also said so, without looping or inventing a call.
        # Dual control: a goal the user must do part of is right only once the user did (the agent asked for it).
        right = [
            v.correct
            and (goal.outcome != "decline" or judge_decline_turn(result, i).correct)
            and not user_acts_missing(result, i)
            for i, (v, goal) in enumerate(zip(verdicts, result.task.goals, strict=True))
        ]
        ok = all(right)
        first_wrong = next((i for i, r in enumerate(right) if not r), None)
        return score_for(
            result,
            self.name,
            value=1.0 if ok else 0.0,
            details={"first_wrong_turn": first_wrong},
        )
