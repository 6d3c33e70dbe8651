"""Auto-targeted drift rows (tools ["*"]): what they pick, how they name the new schema, and when they do nothing.

The picks are world-agnostic: they read the world's spec (types, documented defaults) and the task's gold, so the
same rows work on multidomain, smart_home and a world the registry does not know (specs read off the gold).
"""

from __future__ import annotations

from typing import Any

import pytest

from sim.core import Goal, GoldCall, Task, UserIntent
from tests.support.drift_cases import AUTO, NAMED, WORLDS, build, fresh, row, send, tasks, tool_call
from worlds.stressors.coverage import affected_goals
from worlds.stressors.types.drift_auto import (
    EXPLICIT_OPS,
    NO_DEFAULT,
    claims,
    documented_default,
    drifted_goals,
    evolved_name,
    flipped_defaults,
    free,
    inferred_specs,
    nesting,
    plan_for,
    renamed_param,
    world_specs,
)


@pytest.mark.parametrize(
    ("prop", "expected"),
    [
        ({"type": "integer", "description": "Number of days from today (default 3)."}, 3),
        ({"type": "integer", "description": "How many; default 1."}, 1),
        ({"type": "integer", "description": "Entries; default 10."}, 10),
        ({"type": "boolean", "description": "Only alarms that are switched on (default false)."}, False),
        ({"type": "string", "description": "Ring sound (default 'chimes').", "enum": ["chimes", "radar"]}, "chimes"),
        ({"type": "string", "description": "Short name (default 'Alarm')."}, "Alarm"),
        ({"type": "string", "description": "Sort order; defaults to newest.", "enum": ["newest", "oldest"]}, "newest"),
        ({"type": "number", "default": 2.5, "description": "Step."}, 2.5),
        ({"type": "string", "description": "Playlist id; omit for the default playlist."}, NO_DEFAULT),
        ({"type": "string", "description": "Sound (default 'gong').", "enum": ["chimes"]}, NO_DEFAULT),
        ({"type": "integer", "description": "Most results (default ten)."}, NO_DEFAULT),
        ({"type": "string", "description": "Room id; omit for the whole home."}, NO_DEFAULT),
    ],
)
def test_documented_defaults_are_read_from_schema_or_description(prop: dict[str, Any], expected: Any) -> None:
    assert (
        documented_default(prop) == expected if expected is not NO_DEFAULT else documented_default(prop) is NO_DEFAULT
    )


def test_new_names() -> None:
    taken = {"search_products", "list_products", "get_x", "lock_door", "lock_door_v2"}
    assert evolved_name("get_weather", taken) == "fetch_weather"
    assert evolved_name("list_alarms", taken) == "search_alarms"
    assert evolved_name("list_products", taken) == "list_products_v2"  # search_products is another tool
    assert evolved_name("set_power", taken) == "set_power_v2"
    assert evolved_name("lock_door", taken) == "lock_door_v3"
    assert evolved_name("search_v2", taken) == "search_v3"
    assert renamed_param("city_id", set()) == "location_id"
    assert renamed_param("limit", set()) == "max_results"
    assert renamed_param("recipe_id", set()) == "recipe_ref"
    assert renamed_param("product_ids", set()) == "product_refs"
    assert renamed_param("colour", set()) == "colour_value"
    assert renamed_param("name", {"title"}) == "name_value"  # the synonym is taken: the safe fallback


def test_claims_say_what_other_rows_read_of_a_call() -> None:
    read = claims()
    assert all(read[t] is None for s in NAMED for t in s.tools)  # named drifts and limitations: whole calls
    assert read["add_to_cart"] is None  # limitation.cart_quantity_cap
    assert read["set_color"] == {"device_id", "color"}  # two format rules
    assert read["get_current_time"] == frozenset() and read["get_now_playing"] == {"device_id"}  # prerequisites
    assert read["book_table"] == {"time"}  # a format rule and a notice with a required follow-up
    assert free("set_brightness", ["level"]) and not free("set_brightness", ["device_id"])
    assert not free("set_brightness", None) and not free("add_to_cart", ["quantity"]) and free("set_repeat_x", None)


def test_flipped_defaults_and_nesting() -> None:
    assert flipped_defaults({"type": "boolean", "description": "(default false)"}) == [True]
    enum = {"type": "string", "enum": ["pending", "completed", "all"], "description": "(default 'pending')"}
    assert flipped_defaults(enum) == ["completed", "all"]
    assert flipped_defaults({"type": "integer", "minimum": 1, "maximum": 10, "description": "(default 5)"}) == [1]
    assert flipped_defaults({"type": "integer", "minimum": 1, "description": "(default 1)"}) == [2]
    assert flipped_defaults({"type": "string", "description": "(default 'Alarm')"}) == []  # free text: no flip
    specs = world_specs("multidomain")
    assert specs is not None
    assert nesting(specs["set_power"]) == {"params": ["device_id", "on"], "into": "request"}
    booked = nesting(specs["book_table"])
    assert booked["into"] == "options" and "restaurant_id" not in booked["params"] and len(booked["params"]) >= 2


@pytest.mark.parametrize("world", WORLDS)
def test_picks_are_core_tools_seeded_and_stable(world: str) -> None:
    specs = world_specs(world)
    assert specs is not None
    for s in AUTO:
        picked = 0
        for task in tasks(world):
            plan = plan_for(task, s)
            if plan is None:
                continue
            picked += 1
            (tool,) = plan.tools
            assert plan == plan_for(task, s)  # a pure function of (task, row)
            assert any(c.name == tool and c.role == "core" for turn in task.goals for p in turn.paths() for c in p)
            op = s.params["op"]
            if op == "rename_endpoint":
                assert free(tool, None)
            elif op in ("rename_param", "type_drift"):
                assert free(tool, [plan.params["param"]])
            elif op == "nest_params":
                assert free(tool, plan.params["params"])
        assert picked or s.params["op"] in EXPLICIT_OPS, (world, s.name)
    reseeded = [plan_for(t, AUTO[0], {**AUTO[0].params, "seed": 7}) for t in tasks(world)]
    assert reseeded != [plan_for(t, AUTO[0]) for t in tasks(world)]  # another seed, other picks


def test_operator_specific_picks() -> None:
    specs = world_specs("multidomain")
    assert specs is not None
    for task in tasks("multidomain"):
        for s in AUTO:
            plan = plan_for(task, s)
            if plan is None:
                continue
            (tool,) = plan.tools
            p, props = plan.params, specs[tool].parameters["properties"]
            if p["op"] == "type_drift":
                assert props[p["param"]]["type"] == p["from"] in ("integer", "boolean")
            if p["op"] == "rename_param":
                assert p["new_param"] not in props and p["required"] == (
                    p["param"] in specs[tool].parameters["required"]
                )
            if p["op"] in EXPLICIT_OPS:
                assert p["param"] not in specs[tool].parameters["required"]
                assert p["default"] == documented_default(props[p["param"]]) is not NO_DEFAULT
                calls = [c for turn in task.goals for path in turn.paths() for c in path if c.name == tool]
                assert any(p["param"] not in c.arguments for c in calls)  # some gold call relied on the default
            if p["op"] == "default_flip":
                assert p["new_default"] != p["default"]
            if p["op"] == "rename_endpoint":
                assert p["new_name"] not in specs


def _task(world: str, *calls: GoldCall) -> Task:
    turn = Goal(user=UserIntent(explicit="Please do it."), gold=list(calls))
    return Task(id="t", world=world, goals=[turn])


async def test_a_task_with_nothing_suitable_gets_no_drift_and_no_turns() -> None:
    """unlock_door: its name and device_id are read by a format rule, its pin is a string without a default: only
    a rename of the pin can act on it."""
    unlock = GoldCall(name="unlock_door", arguments={"device_id": "back_door_lock", "pin": "4821"})
    task = _task("smart_home", GoldCall(name="list_rooms", role="support"), unlock)
    for s in AUTO:
        plan = plan_for(task, s)
        if s.params["op"] == "rename_param":
            assert plan is not None and plan.params["param"] == "pin" and affected_goals(task, s) == [0]
            continue
        assert plan is None
        stressor = build(s)
        assert stressor.on_task(task) is task and stressor.tools == frozenset()
        assert drifted_goals(task, s) == [] and affected_goals(task, s) == []
        result, fired, reached = await send(stressor, fresh("smart_home"), tool_call(unlock), 0)
        assert result.ok and fired == [] and reached == [tool_call(unlock)]


def test_a_tool_another_stressor_rewrote_is_not_picked() -> None:
    """Stacked: gold that no longer matches the world's spec (renamed, restringed, nested) is left alone."""
    drifted = _task(
        "smart_home", GoldCall(name="set_brightness", arguments={"device_id": "hallway_light", "level": "5"})
    )
    plain = _task("smart_home", GoldCall(name="set_brightness", arguments={"device_id": "hallway_light", "level": 5}))
    for s in AUTO:
        assert plan_for(drifted, s) is None
    assert plan_for(plain, row("drift.auto_type_drift")) is not None


def test_an_unknown_world_reads_its_specs_off_the_gold() -> None:
    """A world the registry cannot build (a SQL-derived one): names and types come from the gold's values."""
    calls = [
        GoldCall(name="lookup_rows", arguments={"table": "orders", "limit": 5}, role="support"),
        GoldCall(name="update_row", arguments={"table": "orders", "row_id": 7, "paid": True}),
    ]
    task = _task("sql_shop", *calls)
    assert world_specs("sql_shop") is None
    specs = inferred_specs(task)
    assert specs["update_row"].parameters["properties"]["paid"] == {"type": "boolean"}
    assert specs["update_row"].parameters["required"] == ["table", "row_id", "paid"]
    by_op = {s.params["op"]: plan_for(task, s) for s in AUTO}
    assert all(p is not None and p.tools == {"update_row"} for op, p in by_op.items() if op not in EXPLICIT_OPS)
    assert by_op["rename_endpoint"].params["new_name"] == "update_row_v2"  # type: ignore[union-attr]
    assert by_op["type_drift"].params["param"] in ("row_id", "paid")  # type: ignore[union-attr]
    assert by_op["required_swap"] is None and by_op["default_flip"] is None  # no documented defaults
    stressed = build(row("drift.auto_rename_param")).on_task(task)
    assert stressed.goals[0].gold[0] == calls[0] and stressed.goals[0].gold[1] != calls[1]
