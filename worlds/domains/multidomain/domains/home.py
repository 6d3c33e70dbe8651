"""Smart home: rooms, device inventory and details, power, brightness, color, thermostats, locks, media
devices and scenes. Tables: ``rooms``, ``devices``, ``scenes`` (data/home.json)."""

from __future__ import annotations

from typing import Any

from worlds.common.errors import ToolError
from worlds.common.tables import Row
from worlds.common.toolbook import action, boolean, integer, lookup, optional, string
from worlds.domains.multidomain.state import WorldState

DOMAIN = "home"
TABLES = ("rooms", "devices", "scenes")
POLICY = """Smart home: device ids come from find_devices (or list_media_devices); an id not looked up in this
session is refused. A light, speaker or TV must be on (set_power) before its brightness, color or volume is
set; a thermostat must be in heat, cool or auto mode before its temperature is set. Temperatures are in
degrees Celsius. Unlocking a door needs its PIN, which only the user knows: ask, never guess."""

DEVICE_TYPES = ("light", "tv", "speaker", "thermostat", "lock", "plug", "blind")
COLORS = ("warm_white", "cool_white", "red", "orange", "yellow", "green", "blue", "purple", "pink")
MODES = ("heat", "cool", "auto", "off")
FIND = "find_devices"

DEVICE_ID = string("Device id as returned by find_devices, e.g. 'bedroom_lamp'.")


def _public(key: str, row: Row) -> dict[str, Any]:
    return {"device_id": key, **{k: v for k, v in row.items() if k != "pin"}}


def _device(state: WorldState, device_id: str, *types: str) -> Row:
    row = state.require("devices", device_id, "device", FIND)
    if types and row["type"] not in types:
        raise ToolError(
            "invalid_arguments",
            "unsupported",
            f"The {row['name']} ({device_id}) is a {row['type']}; this needs a {' or '.join(types)}.",
        )
    return row


def _powered(row: Row, device_id: str) -> None:
    if not row.get("power"):
        raise ToolError("failed", "device_off", f"The {row['name']} ({device_id}) is off. Switch it on with set_power.")


@lookup("List the rooms of the home with their ids.")
def list_rooms(state: WorldState) -> dict[str, Any]:
    return {"rooms": [{"room_id": key, "name": row["name"]} for key, row in state.rows("rooms")]}


@lookup(
    "Find devices by room and/or type; returns ids, names, rooms and types. Call this before acting on a device.",
    room=optional(string("Room id from list_rooms, e.g. 'kitchen'.")),
    type=optional(string("Device type.", enum=DEVICE_TYPES)),
)
def find_devices(state: WorldState, room: str | None = None, type: str | None = None) -> dict[str, Any]:
    if room is not None and state.get("rooms", room) is None:
        known = ", ".join(key for key, _ in state.rows("rooms"))
        raise ToolError("not_found", "unknown_room", f"No room with id '{room}'. Known rooms: {known}.")
    found = [
        {"device_id": key, "name": row["name"], "room": row["room"], "type": row["type"]}
        for key, row in state.rows("devices")
        if (room is None or row["room"] == room) and (type is None or row["type"] == type)
    ]
    state.reveal("device", *(d["device_id"] for d in found))
    return {"devices": found}


@lookup(
    "A device's current settings (power, brightness, volume, lock state...).", requires=(FIND,), device_id=DEVICE_ID
)
def get_device_details(state: WorldState, device_id: str) -> dict[str, Any]:
    return _public(device_id, _device(state, device_id))


@action(
    "Switch a light, TV, speaker or plug on or off.", requires=(FIND,), device_id=DEVICE_ID, on=boolean("True for on.")
)
def set_power(state: WorldState, device_id: str, on: bool) -> dict[str, Any]:
    _device(state, device_id, "light", "tv", "speaker", "plug")
    return _public(device_id, state.update("devices", device_id, power=on))


@action(
    "Set a light's brightness in percent. The light must be on.",
    requires=(FIND, "set_power"),
    device_id=DEVICE_ID,
    level=integer("Brightness, percent.", 1, 100),
)
def set_brightness(state: WorldState, device_id: str, level: int) -> dict[str, Any]:
    row = _device(state, device_id, "light")
    _powered(row, device_id)
    return _public(device_id, state.update("devices", device_id, brightness=level))


@action(
    "Set a color light's color. The light must be on; white-only lights refuse.",
    requires=(FIND, "set_power"),
    device_id=DEVICE_ID,
    color=string("Color name.", enum=COLORS),
)
def set_color(state: WorldState, device_id: str, color: str) -> dict[str, Any]:
    row = _device(state, device_id, "light")
    _powered(row, device_id)
    if "color" not in row:
        raise ToolError("invalid_arguments", "unsupported", f"The {row['name']} is white-only and has no color.")
    return _public(device_id, state.update("devices", device_id, color=color))


@action(
    "Set a thermostat's mode: heat, cool, auto or off.",
    requires=(FIND,),
    device_id=DEVICE_ID,
    mode=string("Mode.", enum=MODES),
)
def set_thermostat_mode(state: WorldState, device_id: str, mode: str) -> dict[str, Any]:
    _device(state, device_id, "thermostat")
    return _public(device_id, state.update("devices", device_id, mode=mode))


@action(
    "Set a thermostat's target temperature in degrees Celsius (10-30). Its mode must not be off.",
    requires=(FIND, "set_thermostat_mode"),
    device_id=DEVICE_ID,
    celsius=integer("Target temperature, degrees Celsius.", 10, 30),
)
def set_temperature(state: WorldState, device_id: str, celsius: int) -> dict[str, Any]:
    row = _device(state, device_id, "thermostat")
    if row["mode"] == "off":
        raise ToolError("failed", "thermostat_off", f"The {row['name']} is off. Set its mode first.")
    return _public(device_id, state.update("devices", device_id, target_temperature=celsius))


@action("Lock a door.", requires=(FIND,), device_id=DEVICE_ID)
def lock_door(state: WorldState, device_id: str) -> dict[str, Any]:
    _device(state, device_id, "lock")
    return _public(device_id, state.update("devices", device_id, locked=True))


@action(
    "Unlock a door with its PIN.",
    requires=(FIND,),
    device_id=DEVICE_ID,
    pin=string("The door's 4-digit PIN, from the user.", pattern=r"^[0-9]{4}$"),
)
def unlock_door(state: WorldState, device_id: str, pin: str) -> dict[str, Any]:
    row = _device(state, device_id, "lock")
    if row["pin"] != pin:
        raise ToolError("unauthorized", "wrong_pin", f"Wrong PIN for the {row['name']}.")
    return _public(device_id, state.update("devices", device_id, locked=False))


@action(
    "Open or close blinds: 0 is closed, 100 fully open.",
    requires=(FIND,),
    device_id=DEVICE_ID,
    percent=integer("Open position, percent.", 0, 100),
)
def set_blinds(state: WorldState, device_id: str, percent: int) -> dict[str, Any]:
    _device(state, device_id, "blind")
    return _public(device_id, state.update("devices", device_id, position=percent))


@lookup("List the devices that can play media (speakers and TVs), with their ids, rooms and power.")
def list_media_devices(state: WorldState) -> dict[str, Any]:
    found = [
        {"device_id": key, "name": row["name"], "room": row["room"], "type": row["type"], "power": row["power"]}
        for key, row in state.rows("devices")
        if row["type"] in ("speaker", "tv")
    ]
    state.reveal("device", *(d["device_id"] for d in found))
    return {"media_devices": found}


@action(
    "Set a speaker's or TV's volume in percent. It must be on.",
    requires=(FIND, "set_power"),
    device_id=DEVICE_ID,
    level=integer("Volume, percent.", 0, 100),
)
def set_volume(state: WorldState, device_id: str, level: int) -> dict[str, Any]:
    row = _device(state, device_id, "speaker", "tv")
    _powered(row, device_id)
    return _public(device_id, state.update("devices", device_id, volume=level))


@lookup("List the saved scenes with their ids and the changes each makes.")
def list_scenes(state: WorldState) -> dict[str, Any]:
    scenes = [{"scene_id": key, "name": row["name"], "changes": row["changes"]} for key, row in state.rows("scenes")]
    state.reveal("scene", *(s["scene_id"] for s in scenes))
    return {"scenes": scenes}


@action(
    "Activate a scene: applies all its device changes at once.",
    requires=("list_scenes",),
    scene_id=string("Scene id from list_scenes."),
)
def activate_scene(state: WorldState, scene_id: str) -> dict[str, Any]:
    scene = state.require("scenes", scene_id, "scene", "list_scenes")
    for change in scene["changes"]:
        fields = {k: v for k, v in change.items() if k != "device_id"}
        state.update("devices", change["device_id"], **fields)
    return {"scene_id": scene_id, "applied": len(scene["changes"])}
