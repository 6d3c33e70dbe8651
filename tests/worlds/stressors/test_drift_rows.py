"""Schema drift, operator by operator, on the real worlds: every drift row (named and auto) on its first use in the
shipped conversations of multidomain and smart_home.

The documented (old-schema) call is refused with a clear error before reaching the world; a default flip cannot
refuse, so there the documented call gets the new default, says so, and ends somewhere else than gold. The gold
rewritten to the new schema succeeds and leaves the world exactly as the original call does without the stressor.
"""

from __future__ import annotations

from typing import Any

import pytest

from sim.core import Goal, GoldCall, Task, ToolCall, UserIntent
from tests.support.drift_cases import (
    AUTO,
    NAMED,
    ROWS,
    WORLDS,
    Case,
    build,
    case,
    cases,
    fresh,
    prepared,
    row,
    send,
    tasks,
    tool_call,
)
from worlds.stressors.catalog import builtin_scenarios
from worlds.stressors.types.drift import NEEDS, OPS
from worlds.stressors.types.drift_auto import EXPLICIT_OPS, drifted_goals

CASES = [pytest.param(c, id=f"{c.world}:{c.scenario.name}") for c in cases()]
REFUSING = [p for p in CASES if p.values[0].op != "default_flip"]  # type: ignore[union-attr]
FLIPPING = [p for p in CASES if p.values[0].op == "default_flip"]  # type: ignore[union-attr]


def test_every_operator_has_real_cases_on_both_worlds() -> None:
    found = {(c.world, c.op) for c in cases()}
    assert {op for w, op in found if w == "multidomain"} == set(OPS)
    # smart_home documents one default, on a tool no shipped conversation calls: its flip is tested directly below
    assert {op for w, op in found if w == "smart_home"} == set(OPS) - {"required_swap", "default_flip"}
    assert {s.params["op"] for s in AUTO} == set(OPS) and all(s.tools == ["*"] for s in AUTO)


def test_named_rows_are_complete_and_never_share_a_tool() -> None:
    tools = [t for s in NAMED for t in s.tools]
    assert len(set(tools)) == len(tools)  # one row per tool: drifts never stack on a call
    known = {spec.name for w in WORLDS for spec in fresh(w).specs()}
    assert set(tools) <= known
    assert all(all(k in s.params for k in NEEDS[s.params["op"]]) for s in NAMED)
    assert any(s.params.get("from_goal", 0) > 0 for s in NAMED)
    renamed = {s.tools[0]: s.params["new_name"] for s in NAMED if s.params["op"] == "rename_endpoint"}
    assert renamed["get_stock_quote"].startswith("fetch_") and renamed["search_recipes"].endswith("_v2")


def test_restructuring_rows_leave_what_other_rows_read_alone() -> None:
    """Stacked with a format rule, a prerequisite, a limitation or a required follow-up, a renamed or reshaped call
    would slip past the stressor that reads it: named rows keep clear of those tools, as auto picks do (``claims``)."""
    readers = [
        o
        for o in builtin_scenarios()
        if "*" not in o.tools and (o.type in ("adhoc", "dependency", "limitation") or o.params.get("required_followup"))
    ]
    read = {t for o in readers for t in [*o.tools, *([o.params["requires"]] if "requires" in o.params else [])]}
    for s in NAMED:
        if s.params["op"] not in EXPLICIT_OPS:
            assert not set(s.tools) & read, s.name


def test_a_row_missing_its_params_is_refused() -> None:
    bad = row("drift.pause_device").model_copy(update={"params": {"op": "rename_param", "param": "device_id"}})
    with pytest.raises(ValueError, match="needs new_param"):
        build(bad)
    with pytest.raises(ValueError, match="unknown drift op"):
        build(bad.model_copy(update={"params": {"op": "shuffle"}}))


@pytest.mark.parametrize("scenario", [pytest.param(s, id=s.name) for s in ROWS])
@pytest.mark.parametrize("world", WORLDS)
def test_the_docs_stay_at_the_old_version(world: str, scenario: Any) -> None:
    w = fresh(world)
    stressor = build(scenario)
    stressor.on_task(tasks(world)[0])
    assert stressor.on_spec(w.specs(), w.instructions()) == (w.specs(), w.instructions())


@pytest.mark.parametrize("c", REFUSING)
async def test_the_documented_call_is_refused_with_a_clear_error(c: Case) -> None:
    w = await prepared(c.world, c.prefix)
    before = w.state_hash()
    stressor = c.stressor()
    result, fired, reached = await send(stressor, w, tool_call(c.old), c.turn)
    assert fired == [c.scenario.name] and reached == [] and w.state_hash() == before
    p = stressor.params
    expected: dict[str, tuple[str, str, str]] = {
        "rename_endpoint": ("not_found", "endpoint_moved", f"moved to '{p.get('new_name')}'"),
        "rename_param": ("invalid_arguments", "schema_mismatch", f"renamed to '{p.get('new_param')}'"),
        "type_drift": ("invalid_arguments", "schema_mismatch", f"parameter '{p.get('param')}' must be a string"),
        "required_swap": ("invalid_arguments", "schema_mismatch", f"missing required parameter '{p.get('param')}'"),
        "nest_params": ("invalid_arguments", "schema_mismatch", f"object parameter '{p.get('into')}'"),
    }
    status, code, named = expected[c.op]
    assert result.status == status and result.error_code == code
    assert named in result.content["error"], result.content


RENAMING = [p for p in CASES if p.values[0].op == "rename_endpoint"]  # type: ignore[union-attr]


@pytest.mark.parametrize("c", RENAMING)
async def test_a_renamed_endpoint_is_listed_once_its_410_was_given(c: Case) -> None:
    """Before the 410 the toolkit is the documented one; after it the new name is listed right after the old one,
    with the old spec, for the rest of the episode (so a client that calls only listed tools can follow it)."""
    w = await prepared(c.world, c.prefix)
    stressor = c.stressor()
    specs = w.specs()
    assert stressor.on_tools(c.turn, list(specs)) == list(specs)
    await send(stressor, w, tool_call(c.new), c.turn)  # calling the new name unasked tells nothing
    assert stressor.on_tools(c.turn, list(specs)) == list(specs)
    result, _, _ = await send(stressor, w, tool_call(c.old), c.turn)
    assert result.error_code == "endpoint_moved"
    listed = stressor.on_tools(c.turn + 1, list(specs))
    at = [s.name for s in listed].index(c.old.name)
    moved = listed[at + 1]
    assert moved.name == c.new.name and moved.parameters == listed[at].parameters and len(listed) == len(specs) + 1
    assert stressor.on_tools(c.turn + 1, list(specs))[at + 1] is moved  # the same object: no toolkit change


@pytest.mark.parametrize("c", FLIPPING)
async def test_a_call_relying_on_the_documented_default_gets_the_new_one(c: Case) -> None:
    stressor = c.stressor()
    param, new_default = stressor.param, stressor.params["new_default"]
    stressed = await prepared(c.world, c.prefix)
    result, fired, reached = await send(stressor, stressed, tool_call(c.old), c.turn)
    assert result.ok and fired == [c.scenario.name]
    assert param not in c.old.arguments and reached[0].arguments[param] == new_default
    assert result.content["applied_defaults"] == {param: new_default}  # the answer says which default applied
    gold = await prepared(c.world, c.prefix)
    expected = await gold.call(tool_call(c.new))  # the gold call, explicit old default, no stressor
    observed = {k: v for k, v in result.content.items() if k != "applied_defaults"}
    assert observed != expected.content or stressed.state_hash() != gold.state_hash()


@pytest.mark.parametrize("c", CASES)
async def test_the_new_schema_reaches_the_same_world_state(c: Case) -> None:
    stressed = await prepared(c.world, c.prefix)
    result, fired, _ = await send(c.stressor(), stressed, tool_call(c.new), c.turn)
    assert result.ok, result
    assert fired == ([] if c.op == "default_flip" else [c.scenario.name])  # an explicit value needs no default
    plain = await prepared(c.world, c.prefix)
    expected = await plain.call(tool_call(c.old))
    assert result.content == expected.content
    assert stressed.state_hash() == plain.state_hash()


@pytest.mark.parametrize("c", CASES)
async def test_other_tools_pass_untouched(c: Case) -> None:
    w = fresh(c.world)
    stressor = c.stressor()
    other = next(n for n in ("list_rooms", "list_scenes", "list_timers") if n not in stressor.tools)
    result, fired, reached = await send(stressor, w, ToolCall(id="c", name=other, arguments={}), c.turn)
    assert (result.ok or result.error_code != "schema_mismatch") and fired == [] and len(reached) == 1


@pytest.mark.parametrize("c", CASES)
async def test_before_from_goal_the_old_schema_still_works(c: Case) -> None:
    """Every row, named or auto, also started one turn after its first use: that use keeps the old schema."""
    start = c.turn + 1
    stressor = c.stressor({"from_goal": start})
    w = await prepared(c.world, c.prefix)
    result, fired, reached = await send(stressor, w, tool_call(c.old), c.turn)
    assert result.ok and fired == [] and reached == [tool_call(c.old)]
    stressed = stressor.on_task(c.task)
    assert stressed.goals[:start] == c.task.goals[:start]


def test_a_late_row_counts_only_its_drifted_goals() -> None:
    late = row("drift.cancel_timer_late")
    assert late.params["from_goal"] == 1
    uses = [
        (task, t)
        for task in tasks("multidomain")
        for t, turn in enumerate(task.goals)
        if any(c.name == "cancel_timer" for p in turn.paths() for c in p)
    ]
    assert any(t == 0 for _, t in uses)  # a first-turn use exists, and is no drifted turn
    counted = {(task.id, t) for task, _ in uses for t in drifted_goals(task, late)}
    assert counted == {(task.id, t) for task, t in uses if t >= 1}


@pytest.mark.parametrize("world", WORLDS)
def test_gold_is_rewritten_on_every_path_and_never_in_place(world: str) -> None:
    for s in ROWS:
        for task in tasks(world)[:80]:
            dumped = task.model_dump_json()
            stressor = build(s)
            stressed = stressor.on_task(task)
            assert task.model_dump_json() == dumped
            for t, turn in enumerate(stressed.goals):
                for path in turn.paths():
                    for call in path:
                        if t >= stressor.from_goal and call.name in stressor.tools:
                            assert _new_schema(stressor.op, stressor.params, call.arguments), (s.name, call)


def _new_schema(op: str, p: dict[str, Any], args: dict[str, Any]) -> bool:
    if op == "rename_endpoint":
        return False  # the old name is gone from the drifted turns' gold
    if op == "rename_param":
        return p["param"] not in args
    if op == "type_drift":
        return not isinstance(args.get(p["param"], ""), int)
    if op in ("required_swap", "default_flip"):
        return p["param"] in args
    return not set(p["params"]) & set(args) and p["into"] in args


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("drift.cart_quantity_string", {"product_id": "x", "quantity": "three"}),
        ("drift.favorite_string", {"contact_id": "x", "favorite": "yes"}),
        ("drift.repeat_nested", {"target": {"device_id": "x", "mode": "all", "speed": 2}}),
        ("drift.repeat_nested", {"target": "x"}),
        ("drift.pause_device", {}),
    ],
)
async def test_malformed_new_schema_calls_are_refused_before_the_world(name: str, arguments: dict[str, Any]) -> None:
    scenario = row(name)
    w = fresh("multidomain")
    before = w.state_hash()
    call = ToolCall(id="c", name=scenario.tools[0], arguments=arguments)
    result, fired, reached = await send(build(scenario), w, call, 0)
    assert fired == [name] and result.error_code == "schema_mismatch" and reached == [] and w.state_hash() == before


async def test_smart_home_activity_log_default_flip() -> None:
    """smart_home's one documented default (get_activity_log: 'Entries; default 10') flips to 3."""
    assert case("smart_home", "drift.activity_log_limit_default") is None  # no shipped conversation reads the log
    w = fresh("smart_home")
    for i, device in enumerate(["living_ceiling_light", "bedroom_lamp", "kitchen_pendant", "hallway_light"] * 2):
        assert (await w.call(ToolCall(id=f"p{i}", name="set_power", arguments={"device_id": device, "on": i < 4}))).ok
    stressor = build(row("drift.activity_log_limit_default"))
    documented = ToolCall(id="c", name="get_activity_log", arguments={})
    result, fired, reached = await send(stressor, w, documented, 0)
    assert fired == ["drift.activity_log_limit_default"] and reached[0].arguments == {"limit": 3}
    assert result.content["applied_defaults"] == {"limit": 3} and len(result.content["entries"]) == 3
    gold = stressor.on_task(_log_task())
    assert gold.goals[0].gold[0].arguments == {"limit": 10}
    result, fired, _ = await send(stressor, w, tool_call(gold.goals[0].gold[0]), 0)
    assert fired == [] and len(result.content["entries"]) > 3 and "applied_defaults" not in result.content


def _log_task() -> Task:
    turn = Goal(user=UserIntent(explicit="What happened at home lately?"), gold=[GoldCall(name="get_activity_log")])
    return Task(id="log", world="smart_home", goals=[turn])
