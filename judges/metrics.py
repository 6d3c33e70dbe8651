"""Aggregate scores into a run summary, with denominators, failures and confidence intervals.

Failed episodes (provider, user, harness faults, timeouts) are never averaged in: they are counted
and listed, and every rate says what it was computed over.
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from pydantic import AliasChoices, BaseModel, Field

from judges.answer_metrics import AnswerTally, CallVerdict, call_verdict, completion_verdict
from judges.quality_metrics import (
    AstVerdict,
    HandlingVerdict,
    QualityTally,
    StateVerdict,
    ast_verdict,
    handling_verdict,
    state_verdict,
)
from judges.stats import cluster_bootstrap, pass_hat_k, rate, wilson
from judges.stress_metrics import DeclineVerdict, StressTally, decline_verdict, stage_verdict, turn_masks
from sim.core import FAILED_TERMINATIONS, Score, TerminationReason, Usage

__all__ = ["EpisodeOutline", "ErrorMark", "pass_hat_k", "reduce_scores", "summarize", "wilson"]


class ResultMark(BaseModel):
    """The part of a tool result the summary reads."""

    status: str


class ErrorMark(BaseModel):
    """The part of an event the summary reads: faults, and which turns saw a failed tool result."""

    kind: str
    turn: int = 0
    goal: int | None = None
    fault: str | None = None
    code: str | None = None
    replayed: bool = False
    result: ResultMark | None = None

    @property
    def goal_index(self) -> int:
        return self.turn if self.goal is None else self.goal


class GoalMark(BaseModel):
    outcome: str = "solve"


class TaskMark(BaseModel):
    """The part of the task as run the summary reads: whether a goal tests giving up."""

    goals: list[GoalMark] = Field(default_factory=list, validation_alias=AliasChoices("goals", "turns"))


class EpisodeOutline(BaseModel):
    """The part of a stored ``EpisodeResult`` the summary reads: parse stored lines as this to skip building
    the rest (messages, calls, results, the task); an ``EpisodeResult`` serves as well."""

    episode_id: str
    task_id: str
    trial: int
    termination: TerminationReason = "completed"
    usage: Usage = Field(default_factory=Usage)
    usage_by_role: dict[str, Usage] = Field(default_factory=dict)
    events: list[ErrorMark] = Field(default_factory=list)
    task: TaskMark = Field(default_factory=TaskMark)

    @property
    def failed(self) -> bool:
        return self.termination in FAILED_TERMINATIONS


class _Status(Protocol):
    @property
    def status(self) -> str: ...


class _EventLike(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def goal_index(self) -> int: ...
    @property
    def fault(self) -> str | None: ...
    @property
    def code(self) -> str | None: ...
    @property
    def replayed(self) -> bool: ...
    @property
    def result(self) -> _Status | None: ...


class _GoalLike(Protocol):
    @property
    def outcome(self) -> str: ...


class _TaskLike(Protocol):
    @property
    def goals(self) -> Sequence[_GoalLike]: ...


class EpisodeLike(Protocol):
    """What ``summarize`` reads of an episode (``EpisodeResult`` and ``EpisodeOutline`` both are)."""

    @property
    def episode_id(self) -> str: ...
    @property
    def task_id(self) -> str: ...
    @property
    def trial(self) -> int: ...
    @property
    def termination(self) -> str: ...
    @property
    def usage(self) -> Usage: ...
    @property
    def usage_by_role(self) -> Mapping[str, Usage]: ...
    @property
    def events(self) -> Sequence[_EventLike]: ...
    @property
    def task(self) -> _TaskLike: ...
    @property
    def failed(self) -> bool: ...


USAGE_KEYS = ("requests", "cached", "input_tokens", "output_tokens", "cost", "retries", "working_s", "waiting_s")


class _Verdicts:
    """The newest verdicts of one episode, reduced to the numbers the summary needs."""

    __slots__ = (
        "answer_match",
        "ast",
        "calls",
        "completion",
        "decline",
        "facts",
        "faults",
        "handling",
        "right_turns",
        "scored_turns",
        "stages",
        "state",
        "success",
        "turns_n",
        "turns_sum",
    )

    def __init__(self) -> None:
        self.turns_sum = 0.0  # core_api_accuracy: sum and count of its per-turn values
        self.turns_n = 0
        self.scored_turns = self.right_turns = 0  # core_api_accuracy: its scored and right turns, as bit masks
        self.success: float | None = None  # conversation_success
        self.decline: DeclineVerdict | None = None
        self.stages: tuple[str, ...] | None = None  # failure_stage: the stage of each wrong turn
        self.faults: frozenset[str] = frozenset()  # judges whose newest verdict is a judge fault
        self.completion: tuple[int, int] | None = None  # completion: right and answer turns
        self.facts: tuple[int, int] | None = None  # answer_facts: right and question turns
        self.calls: CallVerdict | None = None  # call_f1
        self.state: StateVerdict | None = None  # state_match
        self.handling: HandlingVerdict | None = None  # error_handling
        self.ast: AstVerdict | None = None  # ast
        self.answer_match: tuple[int, int] | None = None  # answer_match: right and question goals

    def take(self, s: Score) -> None:
        if s.judge == "core_api_accuracy":
            values = [v for v in s.per_goal if v is not None]
            self.turns_sum, self.turns_n = sum(values), len(values)
            self.scored_turns, self.right_turns = turn_masks(s.per_goal)
        elif s.judge == "conversation_success":
            self.success = s.value
        elif s.judge == "decline":
            self.decline = decline_verdict(s)
        elif s.judge == "failure_stage":
            self.stages = stage_verdict(s)
        elif s.judge == "completion":
            self.completion = completion_verdict(s)
        elif s.judge == "answer_facts":
            self.facts = completion_verdict(s)
        elif s.judge == "call_f1":
            self.calls = call_verdict(s)
        elif s.judge == "state_match":
            self.state = state_verdict(s)
        elif s.judge == "error_handling":
            self.handling = handling_verdict(s)
        elif s.judge == "ast":
            self.ast = ast_verdict(s)
        elif s.judge == "answer_match":
            self.answer_match = completion_verdict(s)
        if s.judge_fault:
            self.faults = self.faults | {s.judge}
        elif s.judge in self.faults:
            self.faults = self.faults - {s.judge}


def reduce_scores(scores: Iterable[Score]) -> dict[str, _Verdicts]:
    """One pass over a score set: per episode, the numbers of its newest verdict per judge."""
    verdicts: dict[str, _Verdicts] = {}
    for s in scores:
        v = verdicts.get(s.episode_id)
        if v is None:
            v = verdicts[sys.intern(s.episode_id)] = _Verdicts()
        v.take(s)  # a re-score of the same episode replaces the earlier one
    return verdicts


def summarize(episodes: Iterable[EpisodeLike], scores: Iterable[Score], planned: int | None = None) -> dict[str, Any]:
    """The run summary, in one pass over each iterator. Memory: the tasks, the ids of failed and judge-faulted
    episodes, and a few numbers per scored episode — never the episodes themselves (they hold every event)."""
    verdicts = reduce_scores(scores)
    count = 0
    failed: list[str] = []
    turns_sum, turns_n = 0.0, 0
    success_by_task: dict[str, list[float]] = {}  # task -> [trials with a verdict, successes]
    accuracy_by_task: dict[str, list[float]] = {}  # task -> [right goals, scored goals] (core_api_accuracy)
    faults: Counter[str] = Counter()
    codes: Counter[str] = Counter()
    terminations: Counter[str] = Counter()
    trials = 0
    usage: dict[str, float] = dict.fromkeys(USAGE_KEYS, 0)  # ints stay ints, as a plain sum() would keep them
    usage_by_role: dict[str, dict[str, float]] = {}
    stress = StressTally()
    answers = AnswerTally()
    quality = QualityTally()
    for e in episodes:
        count += 1
        terminations[e.termination] += 1
        trials = max(trials, e.trial + 1)
        _add_usage(usage, e.usage)
        for role, role_usage in e.usage_by_role.items():
            _add_usage(usage_by_role.setdefault(role, dict.fromkeys(USAGE_KEYS, 0)), role_usage)
        failed_turns = 0  # turns in which the agent saw a failed result of its own call (injected or real)
        step_limit = False
        for ev in e.events:
            if ev.kind == "error":
                if ev.fault:
                    faults[ev.fault] += 1
                if ev.code:
                    codes[ev.code] += 1
                    step_limit = step_limit or ev.code == "agent:step_limit"
            elif ev.kind == "tool_result" and not ev.replayed and ev.result and ev.result.status != "success":
                failed_turns |= 1 << ev.goal_index
        answers.add_episode(e.termination, step_limit)
        if e.failed:
            failed.append(e.episode_id)
            continue
        v = verdicts.get(e.episode_id)
        if v is None:
            continue
        answers.add(v.completion, v.calls, v.facts)
        quality.add(e.task_id, v.state, v.handling, v.ast, v.answer_match)
        turns_sum, turns_n = turns_sum + v.turns_sum, turns_n + v.turns_n
        if v.turns_n:
            acc = accuracy_by_task.setdefault(e.task_id, [0.0, 0.0])
            acc[0], acc[1] = acc[0] + v.turns_sum, acc[1] + v.turns_n
        stress.add(e.trial, any(t.outcome == "decline" for t in e.task.goals), failed_turns, v)
        if v.success is not None:
            tally = success_by_task.setdefault(e.task_id, [0, 0.0])
            tally[0] += 1
            tally[1] += v.success
    successes_n = sum(int(n) for n, _ in success_by_task.values())
    successes = sum(c for _, c in success_by_task.values())
    # Only the newest verdict per (judge, episode) counts: a fault re-run later is no longer a fault.
    judge_faults = sorted(episode for episode, v in verdicts.items() if v.faults)
    return {
        "episodes": count,
        "planned_episodes": planned if planned is not None else count,
        "failed_episodes": len(failed),
        "scored_episodes": count - len(failed),
        "core_api_accuracy": rate(turns_sum, turns_n),
        "core_api_accuracy_ci95": wilson(turns_sum, turns_n),
        "scored_turns": turns_n,
        "conversation_success": rate(successes, successes_n),
        "conversation_success_ci95": wilson(successes, successes_n),
        "pass_hat_k": {str(k): _pass_hat_k(success_by_task, k) for k in range(1, trials + 1)} if trials > 0 else {},
        "terminations": dict(terminations),
        "failed_episode_ids": sorted(failed),
        "judge_faults": len(judge_faults),  # scored episodes a judge could not score: outside its rates
        "judge_fault_episode_ids": judge_faults,
        "faults_by_kind": dict(faults),
        "error_codes": dict(codes.most_common(20)),
        "per_task": {
            task: {"trials": int(n), "conversation_success": rate(c, int(n))}
            for task, (n, c) in sorted(success_by_task.items())
        },
        "usage": {k: round(v, 4) for k, v in usage.items()},
        "usage_by_role": {
            role: {k: round(v, 4) for k, v in usage_by_role[role].items()} for role in sorted(usage_by_role)
        },
        **stress.result(),  # added after the keys above: the summary's older keys keep their order
        **answers.result(),
        # Intervals that respect clustering: tasks resampled whole (their goals and trials are not independent).
        # Sorted by task: the store's episode order differs between executors, the interval must not.
        "core_api_accuracy_ci95_clustered": cluster_bootstrap(
            [(accuracy_by_task[t][0], accuracy_by_task[t][1]) for t in sorted(accuracy_by_task)]
        ),
        "conversation_success_ci95_clustered": cluster_bootstrap(
            [(success_by_task[t][1], success_by_task[t][0]) for t in sorted(success_by_task)]
        ),
        "tasks_scored": len(accuracy_by_task),
        **quality.result(),
    }


def _add_usage(totals: dict[str, float], usage: Usage) -> None:
    for k in USAGE_KEYS:
        totals[k] += getattr(usage, k)


def _pass_hat_k(tallies: dict[str, list[float]], k: int) -> float | None:
    """``pass_hat_k`` over (trials, successes) counts per task."""
    values = [math.comb(int(c), k) / math.comb(int(n), k) for n, c in tallies.values() if n >= k]
    return round(sum(values) / len(values), 4) if values else None
