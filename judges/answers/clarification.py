"""Clarification: on a goal where the user withheld a value it needs (the underspecified style), did the agent
ask for it rather than guess?

A withheld goal is handled right when, before the user's message that gives the value,
- the agent did nothing that acts (no call that is not a lookup: a guessed value is still a guess), and
- its last reply asked the user something (a question mark in it).
Lookups first are fine (finding which devices exist is not guessing). Goals with nothing withheld are not
scored; an episode without any is None (not applicable), like the decline judge.
"""

from __future__ import annotations

from judges.common.trace_view import agent_events, failed, score_for, unscoreable
from judges.names import JudgeName
from sim.core import EpisodeResult, Event, Score


def judge_withheld_goal(events: list[Event]) -> list[str]:
    """Errors of one withheld goal's events (the agent's and the user's, in order); empty when handled right."""
    errors: list[str] = []
    last_reply = ""
    for ev in events:
        if ev.kind == "user_message" and ev.user_act is not None and ev.user_act.gave:
            break
        if ev.kind == "tool_call" and ev.call is not None and not ev.read_only:
            errors.append(f"clarify:guessed:{ev.call.name}")
        elif ev.kind == "agent_message":
            last_reply = ev.content or ""
    if "?" not in last_reply:
        errors.append("clarify:no_question")
    return errors


def withheld_goals(result: EpisodeResult) -> list[int]:
    """Goals whose opening message held a needed value back."""
    return sorted(
        {
            ev.goal_index
            for ev in result.events
            if ev.kind == "user_message" and ev.user_act is not None and ev.user_act.withheld and not ev.replayed
        }
    )


class ClarificationJudge:
    """Fraction of the withheld goals where the agent asked before acting; None when nothing was withheld."""

    name = JudgeName.CLARIFICATION

    async def score(self, result: EpisodeResult) -> Score:
        if failed(result):
            return unscoreable(result, self.name)
        goals = withheld_goals(result)
        if not goals:
            return score_for(result, self.name, value=None)
        verdicts = {g: judge_withheld_goal(agent_events(result, g)) for g in goals}
        per_goal: list[float | None] = [
            (0.0 if verdicts[g] else 1.0) if g in verdicts else None for g in range(len(result.task.goals))
        ]
        return score_for(
            result,
            self.name,
            value=sum(not errors for errors in verdicts.values()) / len(verdicts),
            per_goal=per_goal,
            errors=[f"goal{g}:{e}" for g, errors in verdicts.items() for e in errors],
        )
