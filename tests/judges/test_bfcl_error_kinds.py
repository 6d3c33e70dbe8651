"""Failures in the robustness study's error types (seed 004): BFCL's verdicts and the AST judge's codes mapped to one
type per failed goal, counted per condition of an isolated run, and printed as a table in every report."""

from __future__ import annotations

from typing import Any

import pytest

from judges.bfcl.bfcl_ast import check
from judges.bfcl.error_kinds import bfcl_kind, goal_kinds
from judges.run.metrics import summarize
from sim.core import EpisodeId, Score, WorldContext
from sim.judging.error_breakdown import error_breakdown
from sim.report.markdown import markdown_summary


def _kind(category: str, calls: list[tuple[str, dict[str, Any]]], task_id: str) -> str | None:
    from worlds.registry import load_world

    pack = load_world(f"bfcl:{category}")
    task = next(t for t in pack.tasks() if t.id == task_id)
    schemas = {s.name: s.parameters for s in pack.new_world(0, WorldContext(task=task)).specs()}
    gold = task.goals[0].gold
    verdict = check(category, calls, gold, schemas)
    if verdict.passed:
        return None
    details = {"calls": len(calls), "wanted": len(gold), **({"closest": verdict.closest} if verdict.closest else {})}
    return bfcl_kind(verdict.reason or "", details)


def test_bfcl_verdicts_map_to_the_studys_error_types() -> None:
    pytest.importorskip("bfcl_eval")
    gold = {"base": 10, "height": 5, "unit": "units"}
    right = ("calculate_triangle_area", gold)
    assert _kind("simple_python", [right], "simple_python_0") is None
    assert _kind("simple_python", [], "simple_python_0") == "no call"
    assert _kind("simple_python", [right, right], "simple_python_0") == "extra call"
    assert _kind("simple_python", [("triangle_area", gold)], "simple_python_0") == "wrong function"
    assert _kind("simple_python", [(right[0], {"base": 10})], "simple_python_0") == "missing/extra argument"
    assert _kind("simple_python", [(right[0], {**gold, "color": "red"})], "simple_python_0") == "missing/extra argument"
    assert _kind("simple_python", [(right[0], {**gold, "base": 11})], "simple_python_0") == "wrong argument value"
    assert _kind("simple_python", [(right[0], {**gold, "base": "10"})], "simple_python_0") == "wrong argument value"


def test_a_parallel_miss_takes_the_type_of_the_nearest_call_and_a_short_one_is_a_missing_call() -> None:
    assert bfcl_kind("cannot_find_match", {"closest": "value_error:string"}) == "wrong argument value"
    assert bfcl_kind("cannot_find_match", {"closest": "wrong_func_name"}) == "wrong function"
    assert bfcl_kind("wrong_count", {"calls": 1, "wanted": 2}) == "missing call"
    assert bfcl_kind("decoder_failed", {}) == "wrong syntax"
    assert bfcl_kind("irrelevance:called", {}) == "extra call"
    assert bfcl_kind("gold_function_absent", {}) == "other"


def test_ast_codes_give_each_failed_goal_its_first_type() -> None:
    codes = [
        "goal0:ast:value_error:string:city",
        "goal0:ast:wrong_count:get_weather",
        "goal1:ast:unexpected_param:units",
        "goal2:ast:instruction_format",
        "goal2:ast:hallucinated_function",
    ]
    score = Score(episode_id="t#0", task_id="t", trial=0, judge="ast", value=0.0, errors=codes)
    assert goal_kinds(score) == {0: "wrong number of calls", 1: "missing/extra argument", 2: "wrong syntax"}
    other = Score(episode_id="t#0", task_id="t", trial=0, judge="core_api_accuracy", value=0.0, errors=codes)
    assert goal_kinds(other) == {}


def test_failures_are_counted_per_condition_and_printed() -> None:
    per_goal = {
        EpisodeId("a", 0, "", ""): [1.0, 0.0],
        EpisodeId("a", 0, "expand.plus_3", ""): [0.0, 0.0],
        EpisodeId("b", 0, "", ""): [1.0, None],
        EpisodeId("b", 0, "expand.plus_3", ""): [1.0, None],
    }
    kinds = {
        EpisodeId("a", 0, "", ""): {1: "no call"},
        EpisodeId("a", 0, "expand.plus_3", ""): {0: "wrong function", 1: "wrong argument value"},
    }
    rows = error_breakdown(per_goal, kinds, lambda task, variant: [0, 1])
    assert rows == [
        {"condition": "baseline", "goals": 3, "failed": 1, "new_failures": 0, "kinds": {"no call": 1}},
        {
            "condition": "expand.plus_3",
            "goals": 3,
            "failed": 2,
            "new_failures": 1,  # goal 0 of task a passed without the stressor
            "kinds": {"wrong function": 1, "wrong argument value": 1},
        },
    ]
    summary = summarize([], []).model_copy(
        update={"stressors": {"mode": "isolated", "metric": "bfcl_ast", "by_type": [], "errors": rows}}
    )
    text = markdown_summary(summary)
    assert "Errors per condition" in text and "| expand.plus_3 | 3 | 2 | 1 | - | 1 (50%) | 1 (50%) |" in text
