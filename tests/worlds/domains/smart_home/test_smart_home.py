"""Smart home world: every tool's happy and error paths, the power prerequisite, determinism, snapshots."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from sim.core import ToolCall, ToolResult
from worlds.domains.smart_home import SmartHomePack, SmartHomeWorld
from worlds.domains.smart_home.specs import SPECS
from worlds.domains.smart_home.tools import TOOL_FUNCTIONS

LOOKUPS = {"list_rooms", "list_devices", "get_device_details", "list_scenes", "get_energy_usage", "get_activity_log"}


@pytest.fixture(scope="module")
def pack() -> SmartHomePack:
    return SmartHomePack()


@pytest.fixture
def world(pack: SmartHomePack) -> SmartHomeWorld:
    return pack.new_world(seed=0)


async def call(world: SmartHomeWorld, name: str, **arguments: Any) -> ToolResult:
    return await world.call(ToolCall(id="c1", name=name, arguments=arguments))


async def ok(world: SmartHomeWorld, name: str, **arguments: Any) -> Any:
    result = await call(world, name, **arguments)
    assert result.ok, result
    return result.content


# -- specs ---------------------------------------------------------------------------------------


def test_specs_match_implementations_and_schemas_are_valid(world: SmartHomeWorld) -> None:
    names = [spec.name for spec in world.specs()]
    assert len(names) == len(set(names)) == len(TOOL_FUNCTIONS) == 16
    assert set(names) == set(TOOL_FUNCTIONS)
    for spec in SPECS:
        Draft202012Validator.check_schema(spec.parameters)
        assert spec.parameters["additionalProperties"] is False
        assert spec.read_only == (spec.name in LOOKUPS), spec.name
        assert spec.to_openai()["function"]["name"] == spec.name
    assert "PIN" in world.instructions()


# -- happy paths ---------------------------------------------------------------------------------


async def test_lookups(world: SmartHomeWorld) -> None:
    rooms = (await ok(world, "list_rooms"))["rooms"]
    assert [r["room_id"] for r in rooms] == ["living_room", "kitchen", "bedroom", "office", "hallway"]
    assert sum(r["devices"] for r in rooms) == 19
    bedroom = (await ok(world, "list_devices", room="bedroom"))["devices"]
    assert {d["device_id"] for d in bedroom} == {
        "bedroom_ceiling_light",
        "bedroom_lamp",
        "bedroom_thermostat",
        "bedroom_blinds",
    }
    locks = (await ok(world, "list_devices", type="lock"))["devices"]
    assert [d["device_id"] for d in locks] == ["back_door_lock", "front_door_lock"]
    assert (await ok(world, "list_devices", room="office", type="lock"))["devices"] == []
    assert len((await ok(world, "list_devices"))["devices"]) == 19
    details = await ok(world, "get_device_details", device_id="front_door_lock")
    assert details["locked"] is False and "pin" not in details and details["capabilities"] == ["locked"]
    lamp = await ok(world, "get_device_details", device_id="office_desk_lamp")
    assert lamp["power"] == "off" and "color" not in lamp["capabilities"]
    scenes = (await ok(world, "list_scenes"))["scenes"]
    assert {s["scene_id"] for s in scenes} == {"movie_night", "goodnight", "good_morning", "work_from_home"}
    assert scenes[0]["steps"][0] == {"device_id": "living_ceiling_light", "brightness": 20, "color": "purple"}


@pytest.mark.parametrize(
    ("name", "arguments", "content"),
    [
        ("set_power", {"device_id": "office_heater", "on": True}, {"power": "on"}),
        ("set_power", {"device_id": "hallway_light", "on": False}, {"power": "off"}),
        ("set_brightness", {"device_id": "kitchen_pendant", "level": 35}, {"brightness": 35}),
        ("set_brightness", {"device_id": "kitchen_pendant", "level": 35.0}, {"brightness": 35}),
        ("set_temperature", {"device_id": "living_thermostat", "celsius": 22.5}, {"target_temperature": 22.5}),
        ("set_thermostat_mode", {"device_id": "living_thermostat", "mode": "cool"}, {"mode": "cool"}),
        ("lock_door", {"device_id": "front_door_lock"}, {"locked": True}),
        ("unlock_door", {"device_id": "back_door_lock", "pin": "4821"}, {"locked": False}),
        ("set_blind_position", {"device_id": "office_blinds", "percent": 0}, {"position": 0}),
    ],
)
async def test_actions_change_the_device(
    world: SmartHomeWorld, name: str, arguments: dict[str, Any], content: dict[str, Any]
) -> None:
    before = world.state_hash()
    result = await ok(world, name, **arguments)
    assert result == {"device_id": arguments["device_id"], **result, **content}
    details = await ok(world, "get_device_details", device_id=arguments["device_id"])
    for key, value in content.items():
        assert details[key] == value
    assert world.state_hash() != before


async def test_color_and_volume_after_power_on(world: SmartHomeWorld) -> None:
    await ok(world, "set_power", device_id="bedroom_lamp", on=True)
    assert await ok(world, "set_color", device_id="bedroom_lamp", color="green") == {
        "device_id": "bedroom_lamp",
        "color": "green",
    }
    await ok(world, "set_power", device_id="living_tv", on=True)
    assert (await ok(world, "set_volume", device_id="living_tv", level=12))["volume"] == 12


async def test_scene_powers_devices_on_as_needed(world: SmartHomeWorld) -> None:
    result = await ok(world, "activate_scene", scene_id="movie_night")
    assert result["changes"][:2] == ["living_ceiling_light: power=on", "living_ceiling_light: brightness=20"]
    tv = await ok(world, "get_device_details", device_id="living_tv")
    assert (tv["power"], tv["volume"]) == ("on", 25)
    again = await ok(world, "activate_scene", scene_id="movie_night")
    assert again["changes"] == []  # idempotent: nothing left to change


async def test_energy_usage_follows_state(world: SmartHomeWorld) -> None:
    home = await ok(world, "get_energy_usage")
    # floor lamp 9 W at 60%, living thermostat heating (20.5 < 21), pendant 15 W, hallway 10 W at 50%
    assert home["total_watts"] == pytest.approx(5.4 + 1800 + 15 + 5)
    assert await ok(world, "get_energy_usage", room="office") == {"room": "office", "total_watts": 0, "devices": []}
    await ok(world, "set_thermostat_mode", device_id="living_thermostat", mode="cool")  # 20.5 < 21: idle
    await ok(world, "set_power", device_id="office_heater", on=True)
    office = await ok(world, "get_energy_usage", room="office")
    assert office["devices"] == [{"device_id": "office_heater", "watts": 1500.0}]
    assert (await ok(world, "get_energy_usage", room="living_room"))["total_watts"] == pytest.approx(5.4)


async def test_activity_log_uses_the_world_clock_and_ids(world: SmartHomeWorld) -> None:
    await ok(world, "set_power", device_id="office_heater", on=True)
    await ok(world, "list_rooms")
    await ok(world, "set_blind_position", device_id="office_blinds", percent=10)
    log = await ok(world, "get_activity_log", limit=5)
    assert log["now"] == "2025-01-17T19:30:04+00:00"
    assert [(e["id"], e["time"], e["change"]) for e in log["entries"]] == [
        ("act-0002", "2025-01-17T19:30:03+00:00", "position=10"),
        ("act-0001", "2025-01-17T19:30:01+00:00", "power=on"),
    ]
    assert len((await ok(world, "get_activity_log", limit=1))["entries"]) == 1


# -- error paths ---------------------------------------------------------------------------------

BAD = "invalid_arguments"


@pytest.mark.parametrize(
    ("name", "arguments", "status", "code", "mentions"),
    [
        ("open_garage", {}, "not_found", "unknown_tool", "open_garage"),
        ("set_power", {"device_id": "garage_light", "on": True}, "not_found", "unknown_device", "garage_light"),
        ("get_device_details", {"device_id": "nope"}, "not_found", "unknown_device", "list_devices"),
        ("list_devices", {"room": "attic"}, "not_found", "unknown_room", "living_room"),
        ("get_energy_usage", {"room": "attic"}, "not_found", "unknown_room", "attic"),
        ("activate_scene", {"scene_id": "party"}, "not_found", "unknown_scene", "movie_night"),
        ("set_power", {"device_id": "hallway_light"}, BAD, "missing_argument", "'on'"),
        ("set_power", {}, BAD, "missing_argument", "'device_id', 'on'"),
        ("lock_door", {"device_id": "front_door_lock", "force": True}, BAD, "unexpected_argument", "force"),
        ("set_power", {"device_id": "hallway_light", "on": "yes"}, BAD, "wrong_type", "'on'"),
        ("set_brightness", {"device_id": "kitchen_pendant", "level": True}, BAD, "wrong_type", "'level'"),
        ("set_brightness", {"device_id": "kitchen_pendant", "level": 150}, BAD, "out_of_range", "'level'"),
        ("set_brightness", {"device_id": "kitchen_pendant", "level": 4.5}, BAD, "wrong_type", "'level'"),
        ("set_temperature", {"device_id": "living_thermostat", "celsius": 35}, BAD, "out_of_range", "celsius"),
        ("set_temperature", {"device_id": "living_thermostat", "celsius": 21.3}, BAD, "out_of_range", "0.5"),
        ("set_color", {"device_id": "living_ceiling_light", "color": "magenta"}, BAD, "invalid_value", "'color'"),
        ("set_thermostat_mode", {"device_id": "living_thermostat", "mode": "dry"}, BAD, "invalid_value", "'mode'"),
        ("unlock_door", {"device_id": "back_door_lock", "pin": "12"}, BAD, "invalid_value", "'pin'"),
        ("list_devices", {"type": "fridge"}, BAD, "invalid_value", "'type'"),
        ("get_activity_log", {"limit": 0}, BAD, "out_of_range", "'limit'"),
        ("set_brightness", {"device_id": "front_door_lock", "level": 50}, BAD, "unsupported", "brightness"),
        ("set_color", {"device_id": "kitchen_pendant", "color": "red"}, BAD, "unsupported", "white-only"),
        ("set_power", {"device_id": "living_thermostat", "on": True}, BAD, "unsupported", "set_thermostat_mode"),
        ("set_power", {"device_id": "living_blinds", "on": False}, BAD, "unsupported", "power switch"),
        ("set_volume", {"device_id": "hallway_light", "level": 5}, BAD, "unsupported", "volume"),
        ("lock_door", {"device_id": "hallway_light"}, BAD, "unsupported", "lock"),
        ("set_temperature", {"device_id": "living_tv", "celsius": 20}, BAD, "unsupported", "temperature"),
        ("set_blind_position", {"device_id": "living_tv", "percent": 20}, BAD, "unsupported", "blind"),
        ("set_thermostat_mode", {"device_id": "living_tv", "mode": "heat"}, BAD, "unsupported", "mode"),
        ("unlock_door", {"device_id": "back_door_lock", "pin": "0000"}, "unauthorized", "wrong_pin", "Wrong PIN"),
        ("set_brightness", {"device_id": "living_ceiling_light", "level": 10}, "failed", "device_off", "on first"),
        ("set_color", {"device_id": "bedroom_lamp", "color": "red"}, "failed", "device_off", "set_power"),
        ("set_volume", {"device_id": "living_speaker", "level": 10}, "failed", "device_off", "Power it on first"),
        ("set_temperature", {"device_id": "bedroom_thermostat", "celsius": 20}, "failed", "device_off", "mode to heat"),
    ],
)  # fmt: skip
async def test_bad_calls_fail_cleanly_and_change_nothing(
    world: SmartHomeWorld, name: str, arguments: dict[str, Any], status: str, code: str, mentions: str
) -> None:
    before = world.state_hash()
    result = await call(world, name, **arguments)
    assert (result.status, result.error_code) == (status, code)
    assert result.call_id == "c1"
    assert result.content["code"] == code
    assert mentions in result.content["error"]
    assert world.state_hash() == before


async def test_power_prerequisite(world: SmartHomeWorld) -> None:
    first = await call(world, "set_brightness", device_id="living_ceiling_light", level=10)
    assert first.error_code == "device_off"
    await ok(world, "set_power", device_id="living_ceiling_light", on=True)
    await ok(world, "set_brightness", device_id="living_ceiling_light", level=10)
    await ok(world, "set_power", device_id="living_ceiling_light", on=False)
    details = await ok(world, "get_device_details", device_id="living_ceiling_light")
    assert (details["power"], details["brightness"]) == ("off", 10)  # brightness survives power-off
    mode_first = await call(world, "set_temperature", device_id="bedroom_thermostat", celsius=20)
    assert mode_first.error_code == "device_off"
    await ok(world, "set_thermostat_mode", device_id="bedroom_thermostat", mode="auto")
    await ok(world, "set_temperature", device_id="bedroom_thermostat", celsius=20)


# -- determinism, snapshots, isolation -----------------------------------------------------------

SCRIPT: list[tuple[str, dict[str, Any]]] = [
    ("activate_scene", {"scene_id": "good_morning"}),
    ("set_brightness", {"device_id": "kitchen_pendant", "level": 5}),
    ("set_volume", {"device_id": "living_tv", "level": 5}),  # fails: TV off
    ("unlock_door", {"device_id": "front_door_lock", "pin": "1379"}),
    ("get_activity_log", {}),
]


async def run_script(world: SmartHomeWorld) -> list[ToolResult]:
    return [await world.call(ToolCall(id=f"c{i}", name=n, arguments=a)) for i, (n, a) in enumerate(SCRIPT)]


async def test_same_seed_and_calls_give_same_results_and_hash(pack: SmartHomePack) -> None:
    first, second = pack.new_world(seed=7), pack.new_world(seed=7)
    assert await run_script(first) == await run_script(second)
    assert first.state_hash() == second.state_hash()
    assert first.snapshot() == second.snapshot()
    assert first.state_hash() != pack.new_world(seed=7).state_hash()


async def test_hash_covers_the_home_not_the_clock(world: SmartHomeWorld) -> None:
    before, snapshot = world.state_hash(), world.snapshot()
    await ok(world, "list_rooms")
    assert world.state_hash() == before  # lookups take time but change nothing
    assert world.snapshot() != snapshot  # the clock moved
    assert len(world.state_hash()) == 64


async def test_snapshot_restore_round_trip(pack: SmartHomePack, world: SmartHomeWorld) -> None:
    await ok(world, "set_power", device_id="office_heater", on=True)
    snapshot, saved_hash = world.snapshot(), world.state_hash()
    assert json.loads(json.dumps(snapshot)) == snapshot
    await run_script(world)
    assert world.state_hash() != saved_hash
    world.restore(snapshot)
    assert (world.state_hash(), world.snapshot()) == (saved_hash, snapshot)
    other = pack.new_world(seed=1)
    other.restore(snapshot)
    assert other.state_hash() == saved_hash
    await ok(other, "set_power", device_id="office_heater", on=False)  # restored state is not shared
    assert world.state_hash() == saved_hash


async def test_worlds_from_one_pack_are_independent(pack: SmartHomePack) -> None:
    first, second = pack.new_world(seed=0), pack.new_world(seed=0)
    await ok(first, "set_power", device_id="office_heater", on=True)
    assert first.state_hash() != second.state_hash()
    assert pack.new_world(seed=0).state_hash() == second.state_hash()
