"""Stressors that rewrite the gold rewrite what a goal leaves free with it: under drift a free argument of a renamed
endpoint or a renamed parameter stays free under its new name (an agent adding it in the new schema is not marked
wrong); a goal a missing function joins to the next keeps both goals' free arguments, each for its own calls."""

from __future__ import annotations

from typing import Any

from sim.core import Goal, GoldCall, Task, UserIntent
from worlds.stressors.scenario import Scenario
from worlds.stressors.types.drift import SchemaDrift
from worlds.stressors.types.missing import _asked_again


def drifted(free: list[str], **params: Any) -> list[str]:
    scenario = Scenario(name="drift.test", type="drift", tools=["list_items"], effect="x", params=params)
    gold = [GoldCall(name="list_items", arguments={"q": "a"}), GoldCall(name="list_users", arguments={})]
    task = Task(id="t", world="w", goals=[Goal(user=UserIntent(explicit="x"), gold=gold, free_arguments=free)])
    return SchemaDrift(scenario, 0).on_task(task).goals[0].free_arguments


def test_free_arguments_follow_a_renamed_endpoint_or_parameter() -> None:
    assert drifted(["list_items.limit", "list_users.limit"], op="rename_endpoint", new_name="items_v2") == [
        "items_v2.limit",
        "list_users.limit",
    ]
    assert drifted(["list_items.limit"], op="rename_param", param="limit", new_param="max") == ["list_items.max"]
    # unqualified: other tools keep the old name, the drifted one gets the new
    assert drifted(["limit"], op="rename_param", param="limit", new_param="max") == ["limit", "list_items.max"]
    assert drifted(["page"], op="rename_param", param="limit", new_param="max") == ["page"]


def test_a_goal_asked_again_keeps_both_goals_free_arguments_for_their_own_calls() -> None:
    def goal(tool: str, free: list[str]) -> Goal:
        return Goal(user=UserIntent(explicit=tool), gold=[GoldCall(name=tool, arguments={})], free_arguments=free)

    task = Task(id="t", world="w", goals=[goal("list_items", ["limit"]), goal("list_users", ["list_users.page"])])
    joined = _asked_again(task, 0).goals[1]
    assert joined.free_arguments == ["list_items.limit", "list_users.page"]
