"""Shared argument checking: integral floats become ints, problems inside a parameter name the spot."""

from __future__ import annotations

from sim.core import ToolCall
from worlds.common.arguments import ArgumentChecker
from worlds.domains.multidomain import MultiDomainPack

PACK = MultiDomainPack(tasks=[])
SCHEMA = {
    "type": "object",
    "properties": {
        "level": {"type": "integer"},
        "days": {"type": "array", "items": {"type": "integer"}},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"item_id": {"type": "string"}},
                "required": ["item_id"],
                "additionalProperties": False,
            },
        },
    },
    "additionalProperties": False,
}


def test_integral_floats_become_ints_where_the_schema_says_integer() -> None:
    checker = ArgumentChecker(SCHEMA)
    assert checker.problems({"level": 5.0, "days": [1.0, 2]}) is None
    fixed = checker.normalised({"level": 5.0, "days": [1.0, 2]})
    assert fixed == {"level": 5, "days": [1, 2]} and type(fixed["level"]) is int and type(fixed["days"][0]) is int


def test_problems_inside_a_parameter_name_the_exact_spot() -> None:
    checker = ArgumentChecker(SCHEMA)
    extra = checker.problems({"items": [{"item_id": "a"}, {"item_id": "b", "qty": 2}]})
    assert extra is not None and extra[0] == "unexpected_argument" and "items[1]" in extra[1] and "qty" in extra[1]
    missing = checker.problems({"items": [{}]})
    assert missing is not None and missing[0] == "missing_argument" and "items[0]" in missing[1]


async def test_a_float_level_reaches_the_same_state_as_the_int() -> None:
    as_int, as_float = PACK.new_world(0), PACK.new_world(0)
    for world, level in ((as_int, 30), (as_float, 30.0)):
        assert (await world.call(ToolCall(id="1", name="find_devices", arguments={"room": "kitchen"}))).ok
        call = ToolCall(id="2", name="set_brightness", arguments={"device_id": "kitchen_pendant", "level": level})
        assert (await world.call(call)).ok
    assert as_int.state_hash() == as_float.state_hash()


async def test_a_float_count_does_not_crash_a_tool() -> None:
    world = PACK.new_world(0)
    call = ToolCall(id="1", name="get_news_headlines", arguments={"topic": "technology", "limit": 2.0})
    result = await world.call(call)
    assert result.ok and len(result.content["headlines"]) == 2
