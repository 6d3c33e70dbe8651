"""Aggregate scores into a run summary, with denominators, failures and confidence intervals.

Failed episodes (provider, user, harness faults, timeouts) are never averaged in: they are counted
and listed, and every rate says what it was computed over. The run's own numbers are counted here; each judge's
are its registered ``Reduction``'s (``judges.registry``): this module names no judge.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from pydantic import AliasChoices, BaseModel, Field

from judges.common.reduction import EpisodeFacts, Reduction, RunFacts
from judges.common.stats import mean_sd, pass_hat_k, wilson
from judges.registry import summaries
from judges.run.agent_loops import LoopTally, episode_loops
from judges.run.run_summary import RunSummary
from sim.core import FAILED_TERMINATIONS, Score, TerminationReason, Usage
from sim.core.trace import CACHE_MISS_CODE, WORLD_FAULT_PREFIX

__all__ = ["EpisodeOutline", "ErrorMark", "RunSummary", "pass_hat_k", "reduce_scores", "summarize", "wilson"]


class ResultMark(BaseModel):
    """The part of a tool result the summary reads."""

    status: str
    error_code: str | None = None


class ErrorMark(BaseModel):
    """The part of an event the summary reads: faults, which goals saw a failed tool result, the agent's steps."""

    kind: str
    turn: int = 0
    step: int = 0
    goal: int | None = None
    fault: str | None = None
    code: str | None = None
    replayed: bool = False
    result: ResultMark | None = None
    raw_result: ResultMark | None = None

    @property
    def goal_index(self) -> int:
        return self.turn if self.goal is None else self.goal


class CallMark(BaseModel):
    """The part of a model call the summary reads: who asked, in which turn and goal (agent loops)."""

    role: str
    turn: int = 0
    goal: int | None = None


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
    model_calls: list[CallMark] = Field(default_factory=list)
    task: TaskMark = Field(default_factory=TaskMark)

    @property
    def failed(self) -> bool:
        """As ``EpisodeResult.failed``: a failed termination, or a result the world could not produce."""
        return self.termination in FAILED_TERMINATIONS or self._world_fault() is not None

    @property
    def unscored_reason(self) -> str | None:
        """As ``EpisodeResult.unscored_reason``: the world's code, else ``episode:<termination>``; None: scored."""
        fault = self._world_fault()
        if fault is None and self.termination not in FAILED_TERMINATIONS:
            return None
        return fault or f"episode:{self.termination}"

    def _world_fault(self) -> str | None:
        for ev in self.events:
            if ev.kind == "tool_result":
                for mark in (ev.result, ev.raw_result):
                    if mark is not None and (mark.error_code or "").startswith(WORLD_FAULT_PREFIX):
                        return mark.error_code
        return None


class _Status(Protocol):
    @property
    def status(self) -> str: ...
    @property
    def error_code(self) -> str | None: ...


class _EventLike(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def turn(self) -> int: ...
    @property
    def step(self) -> int: ...
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
    @property
    def raw_result(self) -> _Status | None: ...


class _CallLike(Protocol):
    @property
    def role(self) -> str: ...
    @property
    def turn(self) -> int: ...
    @property
    def goal(self) -> int | None: ...


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
    def model_calls(self) -> Sequence[_CallLike]: ...
    @property
    def task(self) -> _TaskLike: ...
    @property
    def failed(self) -> bool: ...
    @property
    def unscored_reason(self) -> str | None: ...


USAGE_KEYS = ("requests", "cached", "input_tokens", "output_tokens", "cost", "retries", "working_s", "waiting_s")
USAGE_DETAILS = ("cached_input_tokens", "reasoning_tokens", "truncated")
"""Usage summed too, but written only when not zero: a run whose provider reports none of them (every run stored
before they were counted) keeps the summary it always had."""
BUDGET_KEYS = ("step_limit", "turn_limit", "timeout")


class EpisodeVerdicts:
    """The newest verdict of each registered judge on one episode (by registry position), and which judges' newest
    score is a judge fault."""

    __slots__ = ("faults", "judge_usage", "values")

    def __init__(self, size: int) -> None:
        self.values: list[object | None] = [None] * size
        self.faults: frozenset[str] = frozenset()
        self.judge_usage: dict[str, Usage] | None = None  # judge -> its model's usage on the newest score


def reduce_scores(scores: Iterable[Score], parts: Sequence[Reduction[Any]]) -> dict[str, EpisodeVerdicts]:
    """One pass over a score set: per episode, the verdict of its newest score per judge (a re-score of the same
    episode replaces the earlier one, a judge fault included)."""
    position = {part.judge: i for i, part in enumerate(parts)}
    verdicts: dict[str, EpisodeVerdicts] = {}
    for s in scores:
        v = verdicts.get(s.episode_id)
        if v is None:
            v = verdicts[sys.intern(s.episode_id)] = EpisodeVerdicts(len(parts))
        i = position.get(s.judge)
        if i is not None:
            v.values[i] = parts[i].verdict(s)
        if (asked := s.details.get("judge_usage")) is not None:
            v.judge_usage = {**(v.judge_usage or {}), s.judge: Usage.model_validate(asked)}
        elif v.judge_usage and s.judge in v.judge_usage:  # a newer verdict that asked nothing
            del v.judge_usage[s.judge]
        if s.judge_fault:
            v.faults = v.faults | {s.judge}
        elif s.judge in v.faults:
            v.faults = v.faults - {s.judge}
    return verdicts


def summarize(episodes: Iterable[EpisodeLike], scores: Iterable[Score], planned: int | None = None) -> RunSummary:
    """The run summary, in one pass over each iterator. Memory: the tasks, the ids of failed and judge-faulted
    episodes, and a few numbers per scored episode — never the episodes themselves (they hold every event)."""
    parts = [kind() for kind in summaries()]
    verdicts = reduce_scores(scores, parts)
    count = judged = 0
    failed: list[str] = []
    failed_by_code: Counter[str] = Counter()
    cache_misses = 0
    faults: Counter[str] = Counter()
    codes: Counter[str] = Counter()
    terminations: Counter[str] = Counter()
    trials = 0
    scored_trials: set[int] = set()
    usage: dict[str, float] = dict.fromkeys(USAGE_KEYS + USAGE_DETAILS, 0)  # ints stay ints, as sum() keeps them
    usage_by_role: dict[str, dict[str, float]] = {}
    budget = dict.fromkeys(BUDGET_KEYS, 0)
    budget_episodes = 0
    loops = LoopTally()
    for e in episodes:
        count += 1
        terminations[e.termination] += 1
        trials = max(trials, e.trial + 1)
        _add_usage(usage, e.usage)
        for role, role_usage in e.usage_by_role.items():
            _add_usage(usage_by_role.setdefault(role, dict.fromkeys(USAGE_KEYS + USAGE_DETAILS, 0)), role_usage)
        failed_goals = 0  # goals in which the agent saw a failed result of its own call (injected or real)
        step_limit = False
        for ev in e.events:
            if ev.kind == "error":
                if ev.fault:
                    faults[ev.fault] += 1
                if ev.code:
                    codes[ev.code] += 1
                    step_limit = step_limit or ev.code == "agent:step_limit"
            elif ev.kind == "tool_result" and not ev.replayed:
                if ev.result and ev.result.status != "success":
                    failed_goals |= 1 << ev.goal_index
                cache_misses += _missed(ev)
        hits = (step_limit, e.termination == "turn_limit", e.termination == "timeout")  # failed episodes included
        for key, hit in zip(BUDGET_KEYS, hits, strict=True):
            budget[key] += hit
        budget_episodes += any(hits)
        judged += e.episode_id in verdicts
        if (reason := e.unscored_reason) is not None:
            failed.append(e.episode_id)
            failed_by_code[reason] += 1
            continue
        loops.add(e.task_id, *episode_loops(e.events, e.model_calls))
        v = verdicts.get(e.episode_id)
        if v is None:
            continue
        scored_trials.add(e.trial)
        facts = EpisodeFacts(e.task_id, e.trial, any(g.outcome == "decline" for g in e.task.goals), failed_goals)
        for part, verdict in zip(parts, v.values, strict=True):
            if verdict is not None:
                part.add(verdict, facts)
    for v in verdicts.values():  # the judge model's requests: a role of their own, and in the run's total
        for asked in (v.judge_usage or {}).values():
            _add_usage(usage, asked)
            _add_usage(usage_by_role.setdefault("judge", dict.fromkeys(USAGE_KEYS + USAGE_DETAILS, 0)), asked)
    run = RunFacts(trials, tuple(sorted(scored_trials)))
    # Only the newest verdict per (judge, episode) counts: a fault re-run later is no longer a fault.
    judge_faults = sorted(episode for episode, v in verdicts.items() if v.faults)
    judged_by_judge: dict[str, Any] = {}
    for part in parts:
        judged_by_judge |= part.result(run)
    return RunSummary(
        episodes=count,
        planned_episodes=planned if planned is not None else count,
        failed_episodes=len(failed),
        scored_episodes=count - len(failed),
        terminations=dict(terminations),
        failed_episode_ids=sorted(failed),
        judge_faults=len(judge_faults),
        judge_fault_episode_ids=judge_faults,
        faults_by_kind=dict(faults),
        error_codes=dict(codes.most_common(20)),
        usage=_rounded(usage),
        usage_by_role={role: _rounded(usage_by_role[role]) for role in sorted(usage_by_role)},
        over_trials=_over_trials(parts, run),
        out_of_budget={"episodes": budget_episodes, **budget},
        judged=judged_by_judge,
        # Set only when short: a complete set's summary keeps the keys it always had.
        **({"judged_episodes": judged} if judged < count else {}),
        **({"failed_by_code": dict(failed_by_code.most_common())} if failed_by_code else {}),
        **({"cache_misses": cache_misses} if cache_misses else {}),
        **({"agent_loops": agent_loops} if (agent_loops := loops.result()) else {}),
    )


def _missed(ev: _EventLike) -> bool:
    """Whether the world answered this call with a cache miss (before any stressor changed what the agent saw)."""
    world = ev.raw_result or ev.result
    return world is not None and world.error_code == CACHE_MISS_CODE


def _over_trials(parts: Sequence[Reduction[Any]], run: RunFacts) -> dict[str, Any]:
    """Each judge's rate per trial (those that have one), with their mean and sample sd."""
    spreads: dict[str, Any] = {"trials": list(run.scored_trials)}
    for part in parts:
        if part.has_per_trial():
            per_trial = [part.per_trial(t) for t in run.scored_trials]
            mean, sd = mean_sd(per_trial)
            spreads[part.judge] = {"per_trial": per_trial, "mean": mean, "sd": sd}
    return spreads


def _add_usage(totals: dict[str, float], usage: Usage) -> None:
    for k in totals:
        totals[k] += getattr(usage, k)


def _rounded(totals: dict[str, float]) -> dict[str, float]:
    """The totals as the summary writes them: rounded to 4 places, the details only where not zero."""
    return {k: round(v, 4) for k, v in totals.items() if v or k not in USAGE_DETAILS}
