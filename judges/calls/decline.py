"""Decline goals: nothing the agent may call does what the user asks (a function is missing, every path is down).

A decline goal is handled right when the agent
- does nothing that acts (no successful call that is not a lookup),
- invents no call (no function outside the toolkit it was given at that goal),
- does not loop (no step-limit stop; no identical call failing ``LOOP_REPEATS`` times or more),
- and tells the user it cannot be done: its reply says so (``gives_up``, a phrase test; an LLM judge of the reply
  can replace it where a model is configured).
Trying first is fine: a call that fails, then an honest answer, is the behaviour asked for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from judges.common.trace_view import (
    agent_calls,
    agent_events,
    failed,
    played,
    repeated_outcomes,
    score_for,
    unscoreable,
)
from judges.names import JudgeName
from sim.core import EpisodeResult, Score

LOOP_REPEATS = 3
"""The same call failing this many times in one turn is a loop, not a retry."""
INVENTED_CODES = frozenset({"agent:unknown_tool", "agent:parse_error:unknown_tool"})
_GIVE_UP = re.compile(
    r"\b(?:can(?:no|')?t|cannot|unable|not (?:able|possible|available|currently available)|unavailable|"
    r"could(?:n't| not)|isn't available|is not available|no longer (?:available|supported|possible)|"
    r"(?:don't|do not) have (?:a |the |any )?(?:tool|function|way|access)|try again later|went wrong|failed)\b",
    re.IGNORECASE,
)


def gives_up(reply: str) -> bool:
    """The reply tells the user the request cannot be done (now)."""
    return bool(_GIVE_UP.search(reply.replace("’", "'")))


@dataclass
class DeclineVerdict:
    correct: bool
    gave_up: bool
    errors: list[str] = field(default_factory=list)


def judge_decline_turn(result: EpisodeResult, turn: int) -> DeclineVerdict:
    """The verdict on one decline goal of a played episode."""
    events = agent_events(result, turn)
    if not played(result, turn):
        return DeclineVerdict(correct=False, gave_up=False, errors=["turn:not_played"])
    errors = [f"decline:acted:{call.name}" for call, read_only in agent_calls(result, turn) if not read_only]
    codes = [ev.code for ev in events if ev.kind == "error" and ev.code]
    if any(code in INVENTED_CODES for code in codes):
        errors.append("decline:invented_call")
    if "agent:step_limit" in codes or False in repeated_outcomes(events, LOOP_REPEATS):
        errors.append("decline:looped")
    reply = next((ev.content or "" for ev in reversed(events) if ev.kind == "agent_message"), "")
    gave_up = gives_up(reply)
    if not gave_up:
        errors.append("decline:no_give_up")
    return DeclineVerdict(correct=not errors, gave_up=gave_up, errors=errors)


class DeclineJudge:
    """Fraction of the task's decline goals handled right; None for a task without one."""

    name = JudgeName.DECLINE

    async def score(self, result: EpisodeResult) -> Score:
        turns = [t for t, goal in enumerate(result.task.goals) if goal.outcome == "decline"]
        if failed(result):
            return unscoreable(result, self.name)
        if not turns:
            return score_for(result, self.name, value=None)
        verdicts = {t: judge_decline_turn(result, t) for t in turns}
        per_goal: list[float | None] = [
            (1.0 if verdicts[t].correct else 0.0) if t in verdicts else None for t in range(len(result.task.goals))
        ]
        # Counted in decline goals: 1 = gave up at the first one; None = never did.
        to_give_up = next((i + 1 for i, t in enumerate(turns) if verdicts[t].gave_up), None)
        return score_for(
            result,
            self.name,
            value=sum(v.correct for v in verdicts.values()) / len(verdicts),
            per_goal=per_goal,
            errors=[f"goal{t}:{e}" for t, v in verdicts.items() for e in v.errors],
            details={
                "turns_to_give_up": to_give_up,
                "looped_turns": [t for t, v in verdicts.items() if "decline:looped" in v.errors],
                "invented_calls": [t for t, v in verdicts.items() if "decline:invented_call" in v.errors],
            },
        )
