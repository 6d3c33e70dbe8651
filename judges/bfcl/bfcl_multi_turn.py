"""BFCL's multi-turn verdict on an entry, from the trace: squall's own reading of BFCL's rules.

An entry (a task tagged ``bfcl`` and ``bfcl:multi_turn_*``: one goal per BFCL turn) passes when
- every turn was played (BFCL fails an entry whose inference stopped early: ``force_terminated``);
- no turn took more than ``STEP_LIMIT`` model steps that made calls (BFCL's inference loop quits the entry after the
  21st; the quit only shows in BFCL's verdict when later turns are lost, so the last turn's 21st step is checked as
  usual, there and here; a 22nd, which BFCL's loop never plays, fails the entry here once every other check passed);
- and after every turn whose gold is not empty:
  - the agent made a call in it (``empty_turn``);
  - the world equals the gold-replayed world: every public attribute of every instance, which the world's task state
    holds (``state_mismatch``);
  - the turn's gold results are a multiset subset of every result the agent's calls got so far, from the first turn
    on (``response_mismatch``): a result the agent got one turn early still counts, as in BFCL.
Turns with empty gold are not checked (their calls still change the world the next check sees).

The state check reads ``EpisodeResult.goal_states``, which keep only the paths moved in each goal (bar the last):
a path that differs at a goal's end either moved in that goal (so it is listed) or already differed when the goal
began. The judge therefore carries the differing paths from goal to goal, which makes each check the comparison of
whole worlds (``test_bfcl_multi_turn.py`` shows it on compacted states). A step counts when the agent's model response
made a call, one the world ran or one naming no available tool (BFCL runs those too, and they err there).

BFCL's loop lets a turn have 21 model responses (20 with calls, then an answer): a run scored the way BFCL scores
passes ``--max-steps 21``. squall's default 15 ends a turn sooner than BFCL would (the turn is then judged on what
was done); above 21, a last turn may play on past the point where BFCL's loop stops, and fails here.

Value 1.0/0.0 is BFCL's entry accuracy; per goal, that turn's own verdict (None: empty gold or not played). This is
BFCL's number: any path to the right state and results passes, where core API accuracy follows the gold's paths.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from judges.common.trace_view import agent_events, failed, played, score_for, unscoreable
from judges.names import JudgeName
from sim.core import EpisodeResult, Event, GoalState, Score, Task
from sim.core.task_state import at, same

STEP_LIMIT = 20
"""BFCL's ``MAXIMUM_STEP_LIMIT``: model steps with calls per turn before its inference loop quits the entry."""
MULTI_TURN_TAG = "bfcl:multi_turn_"
SHOWN = 8
"""Paths or results listed in a score's details (the counts are whole)."""
CALL_ERROR_CODES = frozenset({"agent:unknown_tool", "agent:parse_error:unknown_tool"})
"""Errors of a call the agent made to a function it was not offered: BFCL executes those (they err)."""


def bfcl_multi_turn_category(task: Task) -> str | None:
    """The BFCL multi-turn category of a task (``multi_turn_base``...), or None when it is not one."""
    if "bfcl" not in task.tags:
        return None
    return next((t.removeprefix("bfcl:") for t in task.tags if t.startswith(MULTI_TURN_TAG)), None)


def call_steps(events: Iterable[Event]) -> int:
    """Model steps that made a call among a goal's events (the conversation turn and the step name one)."""
    return len(
        {
            (ev.turn, ev.step)
            for ev in events
            if ev.kind == "tool_call" or (ev.kind == "error" and ev.code in CALL_ERROR_CODES)
        }
    )


def agent_results(events: Iterable[Event]) -> list[str]:
    """What the world answered each of the agent's calls: the world's own result where a stressor changed it."""
    out = []
    for ev in events:
        if ev.kind == "tool_result" and not ev.replayed and ev.result is not None:
            content = (ev.raw_result or ev.result).content
            # A BFCL world answers text; a harness or stressor error is a payload, never equal to a gold result.
            out.append(content if isinstance(content, str) else json.dumps(content, sort_keys=True, default=str))
    return out


def missing_results(gold: Sequence[str], got: Sequence[str]) -> list[str]:
    """The gold results ``got`` lacks, counted as a multiset (a result needed twice must come twice)."""
    have = Counter(got)
    missing = []
    for item in gold:
        if have[item] > 0:
            have[item] -= 1
        else:
            missing.append(item)
    return missing


def differing_paths(states: Sequence[GoalState], isolated: bool) -> dict[int, list[str]] | None:
    """Goal -> the paths where the agent's whole world differs from the gold's at the goal's end; None when a gold
    state is missing. Compacted states list only the paths moved in their goal: a path neither side moved keeps
    whether it differed from the goal before (in the isolated setup every goal starts from the gold's world)."""
    out: dict[int, list[str]] = {}
    carried: set[str] = set()
    for state in states:
        if state.gold_after is None or state.gold_before is None:
            return None
        listed = state.before.keys() | state.after.keys() | state.gold_before.keys() | state.gold_after.keys()
        differ = {p for p in listed if not same(at(state.after, p), at(state.gold_after, p))}
        carried = differ | (set() if isolated else carried - listed)
        out[state.goal] = sorted(carried)
    return out


@dataclass
class TurnVerdict:
    """One checked turn (gold not empty, played)."""

    called: bool
    state_ok: bool
    response_ok: bool
    paths: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.called and self.state_ok and self.response_ok

    @property
    def reason(self) -> str | None:
        if not self.called:
            return "empty_turn"
        if not self.state_ok:
            return "state_mismatch"
        return None if self.response_ok else "response_mismatch"


@dataclass
class EntryVerdict:
    turns: dict[int, TurnVerdict]
    steps: list[int]  # model steps with calls, per goal
    unplayed: list[int]
    failure: tuple[int, str] | None  # (goal, reason) of the first failure, in BFCL's order

    @property
    def passed(self) -> bool:
        return self.failure is None


def judge_entry(result: EpisodeResult, paths: dict[int, list[str]]) -> EntryVerdict:
    """BFCL's verdict on a played entry whose states are known (``paths``: ``differing_paths``)."""
    goals = result.task.goals
    last = len(goals) - 1
    events = {g: agent_events(result, g) for g in range(len(goals))}
    steps = [call_steps(events[g]) for g in range(len(goals))]
    unplayed = [g for g in range(len(goals)) if not played(result, g)]
    turns: dict[int, TurnVerdict] = {}
    results: list[str] = []
    for g, goal in enumerate(goals):
        results += agent_results(events[g])
        if not goal.gold or g in unplayed:
            continue
        gold = [c.result for c in goal.gold if c.result is not None]
        missing = missing_results(gold, results)
        differ = paths.get(g, [])
        turns[g] = TurnVerdict(steps[g] > 0, not differ, not missing, differ, missing)
    # BFCL's order: the inference loop quits at a turn over the step limit, and a short conversation fails whole
    # before the checker runs; then the checker stops at the first failing turn.
    # A last turn past its 21st step (played on here, where BFCL's loop would have stopped) fails once all else
    # passed: what came after cannot be taken back, and BFCL's checker would still report an earlier failure first.
    over = [g for g, n in enumerate(steps[:last]) if n > STEP_LIMIT]
    failure: tuple[int, str] | None = None
    if over:
        failure = (over[0], "step_limit")
    elif unplayed:
        failure = (unplayed[0], "unplayed_turns")
    else:
        failure = next(((g, v.reason) for g, v in sorted(turns.items()) if v.reason is not None), None)
    if failure is None and steps[last] > STEP_LIMIT + 1:
        failure = (last, "step_limit")
    return EntryVerdict(turns, steps, unplayed, failure)


class BfclMultiTurn:
    """BFCL's multi-turn entry accuracy (1.0/0.0); None for a task that is not a BFCL multi-turn entry."""

    name = JudgeName.BFCL_MULTI_TURN

    async def score(self, result: EpisodeResult) -> Score:
        category = bfcl_multi_turn_category(result.task)
        if category is None:
            return score_for(result, self.name, value=None)
        if failed(result):
            return unscoreable(result, self.name)
        isolated = any(ev.replayed for ev in result.events)
        paths = differing_paths([s for s in result.goal_states if played(result, s.goal)], isolated)
        goals = result.task.goals
        if paths is None or any(g.gold and played(result, i) and i not in paths for i, g in enumerate(goals)):
            return score_for(result, self.name, value=None, errors=["bfcl:gold_state_unavailable"])
        verdict = judge_entry(result, paths)
        return score_for(
            result,
            self.name,
            value=1.0 if verdict.passed else 0.0,
            per_goal=[
                (1.0 if verdict.turns[g].passed else 0.0) if g in verdict.turns else None
                for g in range(len(result.task.goals))
            ],
            errors=[] if verdict.failure is None else [f"bfcl:{verdict.failure[1]}"],
            details=_details(category, verdict, len(result.task.goals)),
        )


def _details(category: str, verdict: EntryVerdict, goals: int) -> dict[str, Any]:
    def checks(ok: str) -> list[bool | None]:
        return [getattr(verdict.turns[g], ok) if g in verdict.turns else None for g in range(goals)]

    details: dict[str, Any] = {
        "category": category,
        "state_checks": checks("state_ok"),
        "response_checks": checks("response_ok"),
        "call_steps": verdict.steps,
    }
    if verdict.failure is not None:
        goal, reason = verdict.failure
        details.update(first_failed_goal=goal, reason=reason)
        turn = verdict.turns.get(goal)
        if reason == "state_mismatch" and turn is not None:
            details.update(paths=turn.paths[:SHOWN], differing_paths=len(turn.paths))
        elif reason == "response_mismatch" and turn is not None:
            details.update(missing_results=[m[:500] for m in turn.missing[:SHOWN]], missing=len(turn.missing))
        elif reason == "unplayed_turns":
            details["unplayed"] = verdict.unplayed
    return details
