"""The summary streams: the same numbers as summarising lists, in one pass, with memory that does not follow the
number of stored episodes' events."""

from __future__ import annotations

import math
import random
import tracemalloc
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

from judges.run.metrics import EpisodeOutline, pass_hat_k, summarize, wilson
from sim.core import EpisodeResult, Event, Goal, Score, Task, ToolCall, ToolResult, Usage, UserIntent
from sim.judging.judge_set import run_summary
from sim.store.run_store import EPISODES, SCORES, RunStore

TERMINATIONS = ["completed"] * 6 + ["turn_limit", "timeout", "provider_error", "harness_error"]


def reference_summarize(
    episodes: list[EpisodeResult], scores: list[Score], planned: int | None = None
) -> dict[str, Any]:
    """The list-based summary this module replaced, kept verbatim as the oracle for equivalence."""
    by_judge: dict[str, dict[str, Score]] = defaultdict(dict)
    for s in scores:
        by_judge[s.judge][s.episode_id] = s
    failed = [e for e in episodes if e.failed]
    scored = [e for e in episodes if not e.failed]
    accuracy = by_judge["core_api_accuracy"]
    turns = [v for e in scored if e.episode_id in accuracy for v in accuracy[e.episode_id].per_goal if v is not None]
    success_by_task: dict[str, list[float]] = defaultdict(list)
    for e in scored:
        verdict = by_judge["conversation_success"].get(e.episode_id)
        if verdict is not None and verdict.value is not None:
            success_by_task[e.task_id].append(verdict.value)
    successes = [v for vs in success_by_task.values() for v in vs]
    judge_faults = sorted({s.episode_id for verdicts in by_judge.values() for s in verdicts.values() if s.judge_fault})
    faults = Counter(ev.fault for e in episodes for ev in e.events if ev.kind == "error" and ev.fault)
    codes = Counter(ev.code for e in episodes for ev in e.events if ev.kind == "error" and ev.code)
    trials = max((e.trial for e in episodes), default=-1) + 1
    usage_keys = ("requests", "cached", "input_tokens", "output_tokens", "cost", "retries", "working_s", "waiting_s")
    usage = {k: round(sum(getattr(e.usage, k) for e in episodes), 4) for k in usage_keys}
    roles = sorted({role for e in episodes for role in e.usage_by_role})
    usage_by_role = {
        role: {
            k: round(sum(getattr(e.usage_by_role[role], k) for e in episodes if role in e.usage_by_role), 4)
            for k in usage_keys
        }
        for role in roles
    }
    rate = lambda num, den: round(num / den, 4) if den else None  # noqa: E731
    return {
        "episodes": len(episodes),
        "planned_episodes": planned if planned is not None else len(episodes),
        "failed_episodes": len(failed),
        "scored_episodes": len(scored),
        "core_api_accuracy": rate(sum(turns), len(turns)),
        "core_api_accuracy_ci95": wilson(sum(turns), len(turns)),
        "scored_turns": len(turns),
        "conversation_success": rate(sum(successes), len(successes)),
        "conversation_success_ci95": wilson(sum(successes), len(successes)),
        "pass_hat_k": {str(k): pass_hat_k(success_by_task, k) for k in range(1, trials + 1)} if trials > 0 else {},
        "terminations": dict(Counter(e.termination for e in episodes)),
        "failed_episode_ids": sorted(e.episode_id for e in failed),
        "judge_faults": len(judge_faults),
        "judge_fault_episode_ids": judge_faults,
        "faults_by_kind": dict(faults),
        "error_codes": dict(codes.most_common(20)),
        "per_task": {
            task: {"trials": len(v), "conversation_success": rate(sum(v), len(v))}
            for task, v in sorted(success_by_task.items())
        },
        "usage": usage,
        "usage_by_role": usage_by_role,
    }


def _usage(rng: random.Random) -> Usage:
    return Usage(
        requests=rng.randint(0, 9),
        cached=rng.randint(0, 3),
        input_tokens=rng.randint(0, 5000),
        output_tokens=rng.randint(0, 900),
        cost=rng.random() / 100,
        retries=rng.randint(0, 2),
        working_s=rng.random() * 3,
        waiting_s=rng.random(),
    )


def random_run(seed: int, n: int) -> tuple[list[EpisodeResult], list[Score]]:
    rng = random.Random(seed)
    task = Task(id="t", world="w", goals=[Goal(user=UserIntent(explicit="x"), gold=[])])
    episodes, scores = [], []
    for i in range(n):
        task_id, trial = f"t{i % 7}", i // 7
        events = [Event(kind="user_message", turn=0, content="hi")]
        for _ in range(rng.randint(0, 4)):
            fault = rng.choice(["agent", "provider", "harness", None])
            code = rng.choice(["agent:bad_json", "provider:rate_limited", "harness:timeout", None])
            events.append(Event(kind="error", turn=0, fault=fault, code=code, content="e"))
        roles = rng.sample(["agent", "user", "judge"], rng.randint(0, 3))
        e = EpisodeResult(
            episode_id=f"{task_id}#{trial}",
            task_id=task_id,
            trial=trial,
            seed=i,
            world="w",
            agent="a",
            user="u",
            task=task,
            tools=[],
            events=events,
            termination=rng.choice(TERMINATIONS),  # type: ignore[arg-type]
            usage=_usage(rng),
            usage_by_role={r: _usage(rng) for r in sorted(roles)},
        )
        episodes.append(e)
        for _ in range(rng.choice([0, 1, 1, 1, 2])):  # none, one verdict set, or a re-score later
            ident = {"episode_id": e.episode_id, "task_id": task_id, "trial": trial}
            fault = rng.random() < 0.15
            per_goal = [rng.choice([0.0, 1.0, None]) for _ in range(rng.randint(0, 4))]
            scores.append(
                Score(**ident, judge="core_api_accuracy", value=None, errors=["judge:RuntimeError"])
                if fault
                else Score(**ident, judge="core_api_accuracy", value=0.5, per_goal=per_goal)
            )
            value = None if rng.random() < 0.1 else float(rng.random() < 0.6)
            scores.append(Score(**ident, judge="conversation_success", value=value))
            if rng.random() < 0.1:
                scores.append(Score(**ident, judge="other", value=None, errors=["judge:ValueError"]))
    rng.shuffle(scores)  # a store's lines interleave episodes; both summaries read the same order (newest wins)
    return episodes, scores


def older_keys(summary: dict[str, Any], reference: dict[str, Any]) -> dict[str, Any]:
    """The keys the reference summary has (later keys are tested in test_stress_metrics), in the summary's order."""
    return {k: v for k, v in summary.items() if k in reference}


def test_streaming_summary_equals_the_list_summary() -> None:
    for seed, n in [(1, 0), (2, 1), (3, 60), (4, 400)]:
        episodes, scores = random_run(seed, n)
        expected = reference_summarize(episodes, scores, planned=500)
        from_lists = summarize(iter(episodes), iter(scores), planned=500)
        assert older_keys(from_lists, expected) == expected
        outlines = (EpisodeOutline.model_validate_json(e.model_dump_json()) for e in episodes)
        assert summarize(outlines, iter(scores), planned=500) == from_lists
        # Key order is not part of the format: summary.json is written with sorted keys.


def test_summary_of_a_store_equals_the_list_summary(tmp_path: Path) -> None:
    episodes, scores = random_run(5, 120)
    store = RunStore.create(tmp_path / "r", {"config_hash": "h"})
    for e in episodes:
        store.append_episode(e)
    store.append_scores([s.model_copy(update={"judge_config": "set1"}) for s in scores])
    store.append_scores([s.model_copy(update={"judge_config": "set2", "value": None}) for s in scores[:5]])
    summary = run_summary(store, "set1", 130)
    expected = reference_summarize(episodes, scores, 130)
    assert older_keys(summary, expected) == expected
    later = {"users"}  # the per-user section (test_user_report): here because the random run has user faults
    assert {
        k: v for k, v in summary.items() if k not in expected and k not in later and not k.startswith("score_set")
    } == {
        "run_id": "r",
        "setup": None,
        **{k: v for k, v in summarize(episodes, scores, 130).items() if k not in expected},
    }
    assert sum(row["episodes"] for row in summary["users"]["by_user"]) == len(episodes)


def write_big_store(root: Path, n: int, events: int) -> int:
    """n episodes of ``events`` events each (plus their two scores), written as lines; returns the bytes stored."""
    call = ToolCall(id="c", name="set_light", arguments={"device": "living_ceiling_light", "on": True})
    template = EpisodeResult(
        episode_id="@ID@",
        task_id="@TASK@",
        trial=0,
        seed=0,
        world="w",
        agent="a",
        user="u",
        task=Task(id="t", world="w", goals=[Goal(user=UserIntent(explicit="x"), gold=[])]),
        tools=[],
        events=[
            Event(kind="tool_result", turn=0, step=k, call=call, result=ToolResult(call_id="c", status="success"))
            for k in range(events)
        ],
    ).model_dump_json()
    store = RunStore.create(root, {"config_hash": "h"})
    with (root / EPISODES).open("w") as ep, (root / SCORES).open("w") as sc:
        for i in range(n):
            task, ident = f"t{i % 10}", f"t{i % 10}#{i // 10}"
            ep.write(template.replace("@ID@", ident).replace("@TASK@", task) + "\n")
            for judge, value in (("core_api_accuracy", 1.0), ("conversation_success", 1.0)):
                score = Score(episode_id=ident, task_id=task, trial=i // 10, judge=judge, value=value, per_goal=[1.0])
                sc.write(score.model_copy(update={"judge_config": "s"}).model_dump_json() + "\n")
    del store
    return (root / EPISODES).stat().st_size


def peak_of_summary(root: Path, n: int) -> tuple[int, dict[str, Any]]:
    store = RunStore.open_existing(root)
    tracemalloc.start()
    summary = run_summary(store, "s", n)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak, summary


@pytest.mark.slow
def test_summary_memory_follows_small_per_episode_numbers_not_events(tmp_path: Path) -> None:
    n, events = 150, 200  # each episode ~50 KB stored
    small_bytes = write_big_store(tmp_path / "small", n, events)
    big_bytes = write_big_store(tmp_path / "big", 4 * n, events)
    small_peak, small = peak_of_summary(tmp_path / "small", n)
    big_peak, big = peak_of_summary(tmp_path / "big", 4 * n)
    assert small["episodes"] == n and big["episodes"] == 4 * n and big["core_api_accuracy"] == 1.0
    per_episode = (big_peak - small_peak) / (3 * n)
    assert per_episode < 1024, per_episode  # a few numbers per episode, not its ~50 KB of events
    assert big_peak < big_bytes / 20, (big_peak, big_bytes)  # holding the episodes would cost far more
    assert small_bytes * 4 == big_bytes or math.isclose(small_bytes * 4, big_bytes, rel_tol=0.01)
