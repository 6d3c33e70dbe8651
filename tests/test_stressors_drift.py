"""Schema drift, one test per table row, on the real multidomain world through the real chain.

For each row a shipped conversation that uses the targeted tool is replayed up to that call (so ids are looked up):
the documented (old-schema) call is refused with a clear error before reaching the world, while the gold rewritten
to the new schema succeeds and leaves the world exactly as the original call does without the stressor. End to end,
the oracle keeps full marks and a naive agent (old schema) loses the drifted turns.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest

from sim.config import RunConfig
from sim.core import CallContext, GoldCall, ToolCall, ToolResult
from sim.runner import execute
from sim.runtime import chain
from worlds.domains.multidomain.pack import MultiDomainPack
from worlds.domains.multidomain.world import MultiDomainWorld
from worlds.stressors.catalog import builtin_scenarios, stressor_class
from worlds.stressors.scenario import Scenario, ScenarioStressor
from worlds.stressors.types.drift import OPS

ROWS = [s for s in builtin_scenarios() if s.type == "drift"]
PARAMS = [pytest.param(s, id=s.name) for s in ROWS]


@cache
def pack() -> MultiDomainPack:
    return MultiDomainPack()


def world() -> MultiDomainWorld:
    return MultiDomainPack(tasks=[]).new_world(0)


def build(s: Scenario) -> ScenarioStressor:
    return stressor_class(s.type)(s, 0)


def tool_call(gold: GoldCall, i: int = 0) -> ToolCall:
    return ToolCall(id=f"c{i}", name=gold.name, arguments=dict(gold.arguments))


def drifted_call(s: Scenario) -> tuple[list[GoldCall], GoldCall, GoldCall, int]:
    """(gold before it, the original call, its new-schema rewrite, turn) from the first shipped conversation
    whose gold the row rewrites."""
    return _drifted_call(s.name)


@cache
def _drifted_call(name: str) -> tuple[list[GoldCall], GoldCall, GoldCall, int]:
    s = next(row for row in ROWS if row.name == name)
    for task in pack().tasks():
        stressed = build(s).on_task(task)
        for t, (turn, new_turn) in enumerate(zip(task.turns, stressed.turns, strict=True)):
            for path, new_path in zip(turn.paths(), new_turn.paths(), strict=True):
                for i, (old, new) in enumerate(zip(path, new_path, strict=True)):
                    if old != new:
                        prefix = [c for earlier in task.turns[:t] for c in earlier.gold] + path[:i]
                        return prefix, old, new, t
    raise AssertionError(f"{s.name}: no shipped conversation calls {s.tools}")


async def prepared(prefix: list[GoldCall]) -> MultiDomainWorld:
    """A fresh world with the earlier gold replayed directly (no stressor), so its ids are known."""
    w = world()
    for i, gold in enumerate(prefix):
        result = await w.call(tool_call(gold, i))
        assert result.ok, (gold, result)
    return w


async def send(
    stressor: ScenarioStressor, w: MultiDomainWorld, call: ToolCall, turn: int
) -> tuple[ToolResult, list[str]]:
    ctx = CallContext(turn=turn, call_index=0)
    result = await chain([stressor], w)(call, ctx)
    return result, ctx.fired


def test_table_covers_the_operators() -> None:
    assert len(ROWS) >= 10
    assert len({s.params["op"] for s in ROWS}) >= 5 and {s.params["op"] for s in ROWS} <= set(OPS)
    tools = [t for s in ROWS for t in s.tools]
    assert len(set(tools)) == len(tools) >= 8  # one row per tool: drifts never stack on a call
    assert set(tools) <= {spec.name for spec in world().specs()}
    assert any(s.params.get("from_turn", 0) > 0 for s in ROWS)


@pytest.mark.parametrize("scenario", PARAMS)
def test_the_docs_stay_at_the_old_version(scenario: Scenario) -> None:
    w = world()
    specs, instructions = build(scenario).on_spec(w.specs(), w.instructions())
    assert specs == w.specs() and instructions == w.instructions()


@pytest.mark.parametrize("scenario", PARAMS)
async def test_the_documented_call_is_refused_with_a_clear_error(scenario: Scenario) -> None:
    prefix, old, _new, turn = drifted_call(scenario)
    w = await prepared(prefix)
    before = w.state_hash()
    result, fired = await send(build(scenario), w, tool_call(old), turn)
    assert fired == [scenario.name]
    assert not result.ok and w.state_hash() == before
    p = scenario.params
    expected: dict[str, tuple[str, str, str]] = {
        "rename_endpoint": ("not_found", "endpoint_moved", str(p.get("new_name"))),
        "rename_param": ("invalid_arguments", "schema_mismatch", str(p.get("new_param"))),
        "type_drift": ("invalid_arguments", "schema_mismatch", "must be a string"),
        "required_swap": ("invalid_arguments", "schema_mismatch", f"missing required parameter '{p.get('param')}'"),
        "nest_params": ("invalid_arguments", "schema_mismatch", f"'{p.get('into')}'"),
    }
    status, code, named = expected[p["op"]]
    assert result.status == status and result.error_code == code
    assert named in result.content["error"], result.content


@pytest.mark.parametrize("scenario", PARAMS)
async def test_the_new_schema_reaches_the_same_world_state(scenario: Scenario) -> None:
    prefix, old, new, turn = drifted_call(scenario)
    stressed = await prepared(prefix)
    result, fired = await send(build(scenario), stressed, tool_call(new), turn)
    assert fired == [scenario.name] and result.ok, result
    plain = await prepared(prefix)
    expected = await plain.call(tool_call(old))
    assert result.content == expected.content
    assert stressed.state_hash() == plain.state_hash()


@pytest.mark.parametrize("scenario", PARAMS)
async def test_other_tools_pass_untouched(scenario: Scenario) -> None:
    w = world()
    other = "list_rooms" if "list_rooms" not in scenario.tools else "list_timers"
    result, fired = await send(build(scenario), w, ToolCall(id="c", name=other, arguments={}), 0)
    assert result.ok and fired == []


@pytest.mark.parametrize("scenario", [p for p in PARAMS if p.values[0].params.get("from_turn", 0) > 0])  # type: ignore[union-attr]
async def test_before_from_turn_the_old_schema_still_works(scenario: Scenario) -> None:
    prefix, old, _new, _ = drifted_call(scenario)
    w = await prepared(prefix)
    result, fired = await send(build(scenario), w, tool_call(old), scenario.params["from_turn"] - 1)
    assert result.ok and fired == []
    for task in pack().tasks():  # gold of earlier turns keeps the old schema
        stressed = build(scenario).on_task(task)
        for t in range(scenario.params["from_turn"]):
            assert stressed.turns[t] == task.turns[t]


def test_gold_is_rewritten_on_every_path_and_never_in_place() -> None:
    for s in ROWS:
        for task in pack().tasks()[:80]:
            dumped = task.model_dump_json()
            stressed = build(s).on_task(task)
            assert task.model_dump_json() == dumped
            for t, turn in enumerate(stressed.turns):
                if t < s.params.get("from_turn", 0):
                    continue
                for path in turn.paths():
                    for call in path:
                        assert call.name not in s.tools or _new_schema(s, call.arguments), (s.name, call)
                        if s.params["op"] == "rename_endpoint":
                            assert call.name not in s.tools


def _new_schema(s: Scenario, args: dict[str, Any]) -> bool:
    p = s.params
    op = p["op"]
    if op == "rename_param":
        return p["param"] not in args
    if op == "type_drift":
        return not isinstance(args.get(p["param"], ""), int)
    if op == "required_swap":
        return p["param"] in args
    if op == "nest_params":
        return not set(p["params"]) & set(args) and p["into"] in args
    return True


# end to end -----------------------------------------------------------------------------------------------


def _config(tmp_path: Path, agent: str, mode: str) -> RunConfig:
    return RunConfig.model_validate(
        {
            "out": tmp_path,
            "run_id": agent,
            "agent": agent,
            "world": "multidomain",
            "limit": 30,
            "stressors": ["drift"],
            "stressor_mode": mode,
        }
    )


async def test_the_oracle_follows_the_new_schema(tmp_path: Path) -> None:
    store, summary = await execute(_config(tmp_path, "oracle", "cumulative"))
    assert summary["failed_episodes"] == 0 and summary["core_api_accuracy"] == 1.0
    fired = {name for ep in store.episodes() for e in ep.events for name in e.scenarios}
    assert any(name.startswith("drift.") for name in fired)


async def test_a_naive_agent_on_the_old_schema_loses_the_drifted_turns(tmp_path: Path) -> None:
    _, summary = await execute(_config(tmp_path, "naive", "isolated"))
    rows = {row["name"]: row for row in summary["stressors"]["by_type"]}
    assert rows["drift"]["before"] == 1.0 and rows["drift"]["after"] < rows["drift"]["before"], rows["drift"]


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
    scenario = next(s for s in ROWS if s.name == name)
    w = world()
    before = w.state_hash()
    call = ToolCall(id="c", name=scenario.tools[0], arguments=arguments)
    result, fired = await send(build(scenario), w, call, 0)
    assert fired == [name] and result.error_code == "schema_mismatch" and w.state_hash() == before
