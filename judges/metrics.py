"""Aggregate scores into a run summary, with denominators, failures and confidence intervals.

Failed episodes (provider, user, harness faults, timeouts) are never averaged in: they are counted
and listed, and every rate says what it was computed over.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from typing import Any

from sim.core import EpisodeResult, Score


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float] | None:
    """95% Wilson score interval for a proportion; None when n == 0."""
    if n == 0:
        return None
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4))


def pass_hat_k(successes_per_task: dict[str, list[float]], k: int) -> float | None:
    """τ-bench's pass^k: chance that k trials drawn without replacement all succeed, averaged over tasks."""
    values = []
    for outcomes in successes_per_task.values():
        n, c = len(outcomes), int(sum(outcomes))
        if n >= k:
            values.append(math.comb(c, k) / math.comb(n, k))
    return round(sum(values) / len(values), 4) if values else None


def summarize(episodes: list[EpisodeResult], scores: list[Score], planned: int | None = None) -> dict[str, Any]:
    by_judge: dict[str, dict[str, Score]] = defaultdict(dict)
    for s in scores:
        by_judge[s.judge][s.episode_id] = s  # a re-score of the same episode replaces the earlier one
    failed = [e for e in episodes if e.failed]
    scored = [e for e in episodes if not e.failed]

    accuracy = by_judge["core_api_accuracy"]
    turns = [v for e in scored if e.episode_id in accuracy for v in accuracy[e.episode_id].per_turn if v is not None]
    success_by_task: dict[str, list[float]] = defaultdict(list)
    for e in scored:
        verdict = by_judge["conversation_success"].get(e.episode_id)
        if verdict is not None and verdict.value is not None:
            success_by_task[e.task_id].append(verdict.value)
    successes = [v for vs in success_by_task.values() for v in vs]

    # Only the newest verdict per (judge, episode) counts: a fault re-run later is no longer a fault.
    judge_faults = sorted({s.episode_id for verdicts in by_judge.values() for s in verdicts.values() if s.judge_fault})
    faults = Counter(ev.fault for e in episodes for ev in e.events if ev.kind == "error" and ev.fault)
    codes = Counter(ev.code for e in episodes for ev in e.events if ev.kind == "error" and ev.code)
    trials = max((e.trial for e in episodes), default=-1) + 1
    usage_keys = ("requests", "cached", "input_tokens", "output_tokens", "cost", "retries", "working_s", "waiting_s")
    usage = {k: round(sum(getattr(e.usage, k) for e in episodes), 4) for k in usage_keys}
    roles = sorted({role for e in episodes for role in e.usage_by_role})
    usage_by_role = {
        role: {k: round(sum(getattr(e.usage_by_role[role], k) for e in episodes if role in e.usage_by_role), 4)
               for k in usage_keys}
        for role in roles
    }  # fmt: skip
    return {
        "episodes": len(episodes),
        "planned_episodes": planned if planned is not None else len(episodes),
        "failed_episodes": len(failed),
        "scored_episodes": len(scored),
        "core_api_accuracy": _rate(sum(turns), len(turns)),
        "core_api_accuracy_ci95": wilson(sum(turns), len(turns)),
        "scored_turns": len(turns),
        "conversation_success": _rate(sum(successes), len(successes)),
        "conversation_success_ci95": wilson(sum(successes), len(successes)),
        "pass_hat_k": {str(k): pass_hat_k(success_by_task, k) for k in range(1, trials + 1)} if trials > 0 else {},
        "terminations": dict(Counter(e.termination for e in episodes)),
        "failed_episode_ids": sorted(e.episode_id for e in failed),
        "judge_faults": len(judge_faults),  # scored episodes a judge could not score: outside its rates
        "judge_fault_episode_ids": judge_faults,
        "faults_by_kind": dict(faults),
        "error_codes": dict(codes.most_common(20)),
        "per_task": {
            task: {"trials": len(v), "conversation_success": _rate(sum(v), len(v))}
            for task, v in sorted(success_by_task.items())
        },
        "usage": usage,
        "usage_by_role": usage_by_role,
    }


def _rate(num: float, den: int) -> float | None:
    return round(num / den, 4) if den else None
