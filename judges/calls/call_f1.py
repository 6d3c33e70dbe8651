"""Call F1: position-aware intent and slot precision/recall/F1 against the gold call sequence, the BFCL-style error
category of each wrong goal, and stuck goals.

Per goal, against each accepted path (primary, alternatives), the agent's calls as core API accuracy reads them
(successful calls, in trace order; lookups only where the path has a core call of that function; calls of the
path's support functions left out: support steps are never scored) are aligned with the path's core calls:
- alignment: a longest common subsequence of function names (order matters: a call matches a gold call only
  after the earlier matched pairs), ties broken towards more matching slots;
- intents: aligned pairs are true positives, over the agent's calls (precision) and the gold calls (recall);
- slots: (function, argument, value) of each call; a slot of an aligned pair is right when the argument matcher
  finds no deduction for that argument (a value equal to the schema's default counts as given; an argument the goal
  leaves free, ``Goal.free_arguments``, is no slot on either side); slots of
  unaligned calls are unmatched.
The goal's counts come from the path with the best pooled F1 (primary on ties); an unplayed goal counts its gold
as missed. The episode's numbers are micro (counts summed over goals); ``value`` is the slot F1 (None without a
slot on either side), the intent numbers and all counts are in ``details``.

Error category of each goal core API accuracy scores and judges wrong (first deduction of ``judges.calls.core_api``
against the best path decides; ``categories`` in details): ``not_played``; ``no_call`` (no call attempted at all);
for a gold call never made right: ``hallucinated_function`` (it called a tool outside its toolkit instead),
``malformed_call`` (unparseable call or arguments), ``wrong_function`` (other tools instead), ``wrong_count`` (its
calls of the tool were right for the path's other calls of it), ``execution_error`` (refused by an outage, rate
limit, timeout or injected failure; see ``judges.calls.failure_stage``), ``refused_call`` (the world refused its
arguments or state); for a successful call with wrong arguments: ``missing_arg``, ``extra_arg``,
``wrong_arg_type`` (a value of another JSON type), ``wrong_arg_value``; for a call too many: ``wrong_count`` (a tool
the path calls) or ``extra_call`` (one it does not).

Stuck goal (``stuck`` in details, the reason per goal): the same call (function and arguments) failing
``LOOP_REPEATS`` times (as the decline judge defines a loop), the same successful call repeated as often (no
progress: it keeps asking what it knows), or the step limit reached without one successful call in the goal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from judges.calls.arg_match import ArgMatcher
from judges.calls.call_f1_summary import CATEGORIES, STUCK_REASONS
from judges.calls.core_api import Schemas, agent_calls, judge_turns, path_errors
from judges.calls.decline import INVENTED_CODES, LOOP_REPEATS
from judges.calls.failure_stage import EXECUTION_STATUSES, EXECUTION_STRESSORS
from judges.common.trace_view import (
    NO_EXECUTABLE_GOLD,
    agent_events,
    failed,
    goals_without_executable_gold,
    no_world_calls,
    played,
    repeated_outcomes,
    schemas,
    score_for,
    unscoreable,
)
from judges.names import JudgeName
from sim.core import EpisodeResult, Goal, GoldCall, Score, ToolCall
from sim.core.task import free_in

__all__ = ["CATEGORIES", "STUCK_REASONS", "CallF1", "Counts", "align", "category", "prf", "stuck", "turn_counts"]


@dataclass
class Counts:
    """True positives, predicted (agent) and gold counts of intents and slots."""

    intent_tp: int = 0
    intent_pred: int = 0
    intent_gold: int = 0
    slot_tp: int = 0
    slot_pred: int = 0
    slot_gold: int = 0

    def add(self, other: Counts) -> None:
        self.intent_tp += other.intent_tp
        self.intent_pred += other.intent_pred
        self.intent_gold += other.intent_gold
        self.slot_tp += other.slot_tp
        self.slot_pred += other.slot_pred
        self.slot_gold += other.slot_gold

    def pooled_f1(self) -> float:
        den = self.intent_pred + self.intent_gold + self.slot_pred + self.slot_gold
        return 2 * (self.intent_tp + self.slot_tp) / den if den else 1.0

    def as_lists(self) -> dict[str, list[int]]:
        return {
            "intent": [self.intent_tp, self.intent_pred, self.intent_gold],
            "slot": [self.slot_tp, self.slot_pred, self.slot_gold],
        }


def prf(tp: int, pred: int, gold: int) -> dict[str, float | None]:
    """Precision, recall, F1 (2tp / (pred + gold)); None where the denominator is 0."""
    return {
        "precision": round(tp / pred, 4) if pred else None,
        "recall": round(tp / gold, 4) if gold else None,
        "f1": round(2 * tp / (pred + gold), 4) if pred + gold else None,
    }


def scored_calls(path: list[GoldCall], calls: list[tuple[ToolCall, bool]]) -> list[ToolCall]:
    """The agent's calls this path scores (see the module doc)."""
    core = {g.name for g in path if g.role == "core"}
    support = {g.name for g in path if g.role == "support"} - core
    return [c for c, read_only in calls if (not read_only or c.name in core) and c.name not in support]


def _pair(
    a: ToolCall, g: GoldCall, schemas: Schemas, matcher: ArgMatcher, free: frozenset[str]
) -> tuple[int, int, int, list[str]]:
    """Slot (tp, pred, gold) of an aligned pair, and the matcher's deductions; free arguments are no slots."""
    codes = matcher.match(a.arguments, g.arguments, schemas.get(g.name), g.name, g.accepted, free)[1]
    keys = (set(a.arguments) | set(g.arguments)) - free
    wrong = {c.rpartition(":")[2] for c in codes}
    extra = sum(c.startswith("args:extra:") for c in codes)
    missing = sum(c.startswith("args:missing:") for c in codes)
    return len(keys - wrong), len(keys) - missing, len(keys) - extra, codes


def align(
    made: list[ToolCall],
    gold: list[GoldCall],
    schemas: Schemas,
    matcher: ArgMatcher,
    free_arguments: Sequence[str] = (),
) -> tuple[Counts, list[tuple[ToolCall, GoldCall, list[str]]]]:
    """LCS of function names, ties towards more right slots; the counts and the aligned pairs.
    ``free_arguments``: the goal's (``Goal.free_arguments``)."""
    pairs: dict[tuple[int, int], tuple[int, int, int, list[str]]] = {
        (i, j): _pair(a, g, schemas, matcher, free_in(free_arguments, g.name))
        for i, a in enumerate(made)
        for j, g in enumerate(gold)
        if a.name == g.name
    }
    n, m = len(made), len(gold)
    best = [[(0, 0)] * (m + 1) for _ in range(n + 1)]  # (intents, right slots) of made[i:] vs gold[j:]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            options = [best[i + 1][j], best[i][j + 1]]
            if (i, j) in pairs:
                nxt = best[i + 1][j + 1]
                options.append((nxt[0] + 1, nxt[1] + pairs[i, j][0]))
            best[i][j] = max(options)
    counts = Counts(intent_pred=n, intent_gold=m)
    aligned: list[tuple[ToolCall, GoldCall, list[str]]] = []
    i = j = 0
    while i < n and j < m:
        here = best[i][j]
        pair = pairs.get((i, j))
        if pair is not None and here == (best[i + 1][j + 1][0] + 1, best[i + 1][j + 1][1] + pair[0]):
            aligned.append((made[i], gold[j], pair[3]))
            counts.intent_tp += 1
            counts.slot_tp += pair[0]
            counts.slot_pred += pair[1]
            counts.slot_gold += pair[2]
            i, j = i + 1, j + 1
        elif best[i + 1][j] == here:
            i += 1
        else:
            j += 1
    paired_made = {id(a) for a, _, _ in aligned}
    paired_gold = {id(g) for _, g, _ in aligned}
    counts.slot_pred += sum(len(a.arguments) for a in made if id(a) not in paired_made)
    counts.slot_gold += sum(len(g.arguments) for g in gold if id(g) not in paired_gold)
    return counts, aligned


def _kind(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return type(value).__name__
    return "number" if isinstance(value, int | float) else type(value).__name__


def category(
    result: EpisodeResult, index: int, errors: list[str], aligned: list[tuple[ToolCall, GoldCall, list[str]]]
) -> str:
    """The BFCL-style category of a wrong goal, from core API accuracy's deductions on the best path."""
    if not played(result, index):
        return "not_played"
    events = agent_events(result, index)
    codes = [ev.code or "" for ev in events if ev.kind == "error"]
    attempted = {ev.call.name for ev in events if ev.kind == "tool_call" and ev.call}
    invented = any(c in INVENTED_CODES for c in codes)
    malformed = any(c == "agent:invalid_arguments" or c.startswith("agent:parse_error") for c in codes)
    if not attempted and not invented and not malformed:
        return "no_call"
    first = errors[0] if errors else "core:extra:"
    area, _, rest = first.partition(":")
    reason, _, name = rest.partition(":")
    if area == "args":
        if reason == "value":
            for a, g, deductions in aligned:
                if first in deductions and name in a.arguments and name in g.arguments:
                    return (
                        "wrong_arg_type" if _kind(a.arguments[name]) != _kind(g.arguments[name]) else "wrong_arg_value"
                    )
            return "wrong_arg_value"
        return "missing_arg" if reason == "missing" else "extra_arg"
    if reason == "extra":
        gold_names = {g.name for _, g, _ in aligned} | {e.rpartition(":")[2] for e in errors if "missing" in e}
        return "wrong_count" if name in gold_names else "extra_call"
    if name not in attempted:
        return "hallucinated_function" if invented else "malformed_call" if malformed else "wrong_function"
    results = [ev for ev in events if ev.kind == "tool_result" and ev.call and ev.call.name == name and ev.result]
    if any(ev.result is not None and ev.result.ok for ev in results):
        return "wrong_count"
    refused_outside = [
        ev.result is not None
        and (
            ev.result.status in EXECUTION_STATUSES
            or bool({s.partition(".")[0] for s in ev.scenarios} & EXECUTION_STRESSORS)
        )
        for ev in results
    ]
    return "execution_error" if refused_outside and all(refused_outside) else "refused_call"


def stuck(result: EpisodeResult, index: int) -> str | None:
    """Why the agent was stuck in a goal (see the module doc), or None."""
    events = agent_events(result, index)
    looped = repeated_outcomes(events, LOOP_REPEATS)
    if False in looped:
        return "repeated_failure"
    if True in looped:
        return "repeated_call"
    limit = any(ev.kind == "error" and ev.code == "agent:step_limit" for ev in events)
    succeeded = any(ev.kind == "tool_result" and ev.call and ev.result and ev.result.ok for ev in events)
    return "no_progress" if limit and not succeeded else None


def turn_counts(
    goal: Goal, calls: list[tuple[ToolCall, bool]], schemas: Schemas, matcher: ArgMatcher
) -> tuple[int, Counts, list[tuple[ToolCall, GoldCall, list[str]]]]:
    """The best path's index, counts and aligned pairs."""
    ranked = []
    for index, path in enumerate(goal.paths()):
        core = [g for g in path if g.role == "core"]
        counts, aligned = align(scored_calls(path, calls), core, schemas, matcher, goal.free_arguments)
        ranked.append((counts.pooled_f1(), -index, counts, aligned))
    _f1, neg_index, counts, aligned = max(ranked, key=lambda r: (r[0], r[1]))
    return -neg_index, counts, aligned


class CallF1:
    """Intent and slot P/R/F1 of the agent's calls against the gold sequence; error categories; stuck goals."""

    name = JudgeName.CALL_F1

    def __init__(self, matcher: ArgMatcher) -> None:
        self.matcher = matcher

    async def score(self, result: EpisodeResult) -> Score:
        if failed(result):
            return unscoreable(result, self.name)
        if (not_applicable := no_world_calls(result, self.name)) is not None:
            return not_applicable
        await self.matcher.prepare(result)  # a judge model's verdicts on value pairs (llm mode), asked once
        tool_schemas = schemas(result)
        total = Counts()
        per_goal: list[float | None] = []
        categories: list[str | None] = []
        verdicts = judge_turns(result, self.matcher)
        no_gold = goals_without_executable_gold(result)
        for i, (goal, verdict) in enumerate(zip(result.task.goals, verdicts, strict=True)):
            calls = agent_calls(result, i) if played(result, i) else []
            index, counts, aligned = turn_counts(goal, calls, tool_schemas, self.matcher)
            if i in no_gold:  # the gold's functions are known, its arguments not: intents count, slots do not
                counts = replace(counts, slot_tp=0, slot_pred=0, slot_gold=0)
            total.add(counts)
            per_goal.append(prf(counts.slot_tp, counts.slot_pred, counts.slot_gold)["f1"])
            label = None
            wrong = any(c.role == "core" for c in goal.gold) and not verdict.correct and i not in no_gold
            if wrong:  # core API accuracy's wrong goals
                path = goal.paths()[index]
                errors = path_errors(path, calls, tool_schemas, self.matcher, goal.free_arguments)
                label = category(result, i, errors, aligned)
            categories.append(label)
        stuck_turns = {
            i: r for i in range(result.goals_reached) if played(result, i) and (r := stuck(result, i)) is not None
        }
        slot = prf(total.slot_tp, total.slot_pred, total.slot_gold)
        return score_for(
            result,
            self.name,
            value=slot["f1"],
            per_goal=per_goal,
            errors=[f"goal{i}:{NO_EXECUTABLE_GOLD}" for i in sorted(no_gold)]
            + [f"goal{i}:category:{c}" for i, c in enumerate(categories) if c]
            + [f"goal{i}:stuck:{r}" for i, r in stuck_turns.items()],
            details={
                "intent": prf(total.intent_tp, total.intent_pred, total.intent_gold),
                "slot": slot,
                "counts": total.as_lists(),
                "categories": categories,
                "stuck": {str(i): r for i, r in stuck_turns.items()},
            },
        )
