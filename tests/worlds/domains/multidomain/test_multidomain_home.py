"""The home domain of the multi-domain world: every tool's success path and a failure path."""

from __future__ import annotations

import random
from typing import Any

import pytest

from sim.core import ToolCall, ToolResult
from tests.support.intent_checks import propose_and_check
from worlds.domains.multidomain import MultiDomainPack
from worlds.domains.multidomain.domains.home_intents import PRIMITIVES
from worlds.domains.multidomain.world import MultiDomainWorld

PACK = MultiDomainPack(tasks=[])


async def _call(world: MultiDomainWorld, name: str, **arguments: Any) -> ToolResult:
    return await world.call(ToolCall(id="c", name=name, arguments=arguments))


async def _found(*rooms: str) -> MultiDomainWorld:
    world = PACK.new_world(0)
    for room in rooms:
        assert (await _call(world, "find_devices", room=room)).ok
    return world


SUCCESS = [
    ("list_rooms", (), {}, lambda c: len(c["rooms"]) == 5),
    (
        "find_devices",
        (),
        {"room": "kitchen", "type": "light"},
        lambda c: [d["device_id"] for d in c["devices"]] == ["kitchen_pendant"],
    ),
    (
        "get_device_details",
        ("hallway",),
        {"device_id": "front_door_lock"},
        lambda c: c["locked"] is False and "pin" not in c,
    ),
    ("set_power", ("bedroom",), {"device_id": "bedroom_lamp", "on": True}, lambda c: c["power"] is True),
    ("set_brightness", ("kitchen",), {"device_id": "kitchen_pendant", "level": 30}, lambda c: c["brightness"] == 30),
    ("set_color", ("office",), {"device_id": "office_desk_lamp", "color": "red"}, lambda c: c["color"] == "red"),
    (
        "set_thermostat_mode",
        ("bedroom",),
        {"device_id": "bedroom_thermostat", "mode": "cool"},
        lambda c: c["mode"] == "cool",
    ),
    (
        "set_temperature",
        ("living_room",),
        {"device_id": "living_thermostat", "celsius": 23},
        lambda c: c["target_temperature"] == 23,
    ),
    ("lock_door", ("hallway",), {"device_id": "front_door_lock"}, lambda c: c["locked"] is True),
    ("unlock_door", ("kitchen",), {"device_id": "back_door_lock", "pin": "4321"}, lambda c: c["locked"] is False),
    ("set_blinds", ("living_room",), {"device_id": "living_blinds", "percent": 40}, lambda c: c["position"] == 40),
    ("list_media_devices", (), {}, lambda c: len(c["media_devices"]) == 4),
    ("set_volume", ("kitchen",), {"device_id": "kitchen_speaker", "level": 50}, lambda c: c["volume"] == 50),
    (
        "list_scenes",
        (),
        {},
        lambda c: {s["scene_id"] for s in c["scenes"]} == {"movie_night", "good_morning", "goodnight"},
    ),
]

FAILURE = [
    ("list_rooms", (), {"floor": 1}, "unexpected_argument"),
    ("find_devices", (), {"room": "garage"}, "unknown_room"),
    ("get_device_details", (), {"device_id": "front_door_lock"}, "not_looked_up"),
    ("set_power", ("hallway",), {"device_id": "front_door_lock", "on": True}, "unsupported"),
    ("set_brightness", ("bedroom",), {"device_id": "bedroom_lamp", "level": 30}, "device_off"),
    ("set_color", ("kitchen",), {"device_id": "kitchen_pendant", "color": "red"}, "unsupported"),
    ("set_thermostat_mode", ("bedroom",), {"device_id": "bedroom_thermostat", "mode": "warm"}, "invalid_value"),
    ("set_temperature", ("bedroom",), {"device_id": "bedroom_thermostat", "celsius": 21}, "thermostat_off"),
    ("lock_door", ("kitchen",), {"device_id": "kitchen_pendant"}, "unsupported"),
    ("unlock_door", ("kitchen",), {"device_id": "back_door_lock", "pin": "0000"}, "wrong_pin"),
    ("set_blinds", ("living_room",), {"device_id": "living_blinds", "percent": 140}, "out_of_range"),
    ("list_media_devices", (), {"room": "x"}, "unexpected_argument"),
    ("set_volume", ("bedroom",), {"device_id": "bedroom_speaker", "level": 10}, "device_off"),
    ("list_scenes", (), {"all": True}, "unexpected_argument"),
    ("activate_scene", (), {"scene_id": "movie_night"}, "not_looked_up"),
]


@pytest.mark.parametrize(("tool", "rooms", "arguments", "check"), SUCCESS, ids=[r[0] for r in SUCCESS])
async def test_success_path(tool: str, rooms: tuple[str, ...], arguments: dict[str, Any], check: Any) -> None:
    world = await _found(*rooms)
    before = world.state_hash()
    result = await _call(world, tool, **arguments)
    assert result.ok, result.content
    if check is not None:
        assert check(result.content), result.content
    spec = next(s for s in world.specs() if s.name == tool)
    assert (world.state_hash() == before) == spec.read_only


@pytest.mark.parametrize(("tool", "rooms", "arguments", "code"), FAILURE, ids=[r[0] for r in FAILURE])
async def test_failure_path_changes_nothing(
    tool: str, rooms: tuple[str, ...], arguments: dict[str, Any], code: str
) -> None:
    world = await _found(*rooms)
    before = world.state_hash()
    result = await _call(world, tool, **arguments)
    assert not result.ok and result.error_code == code, result.content
    assert world.state_hash() == before


async def test_activate_scene_applies_its_changes() -> None:
    world = PACK.new_world(0)
    assert (await _call(world, "list_scenes")).ok
    assert (await _call(world, "activate_scene", scene_id="goodnight")).content == {
        "scene_id": "goodnight",
        "applied": 4,
    }
    assert world.state.get("devices", "front_door_lock")["locked"] is True  # type: ignore[index]


def test_every_home_tool_has_both_paths_tested() -> None:
    home = {name for name, tool in PACK.toolkit.tools.items() if tool.domain == "home"}
    assert {r[0] for r in SUCCESS} | {"activate_scene"} == home
    assert {r[0] for r in FAILURE} == home


@pytest.mark.parametrize("primitive", PRIMITIVES, ids=[p.__name__ for p in PRIMITIVES])
async def test_primitives_execute_and_render_coreference_without_the_name(primitive: Any) -> None:
    produced = 0
    for seed in range(15):
        produced += await propose_and_check(PACK.new_world(0), primitive, random.Random(seed), None) is not None
    assert produced > 0
