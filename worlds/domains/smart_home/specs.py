"""What the agent reads: the smart home's tool specs (OpenAI function format, strict JSON schemas)."""

from __future__ import annotations

from typing import Any

from sim.core import ToolSpec
from worlds.domains.smart_home.state import COLORS, DEVICE_TYPES, THERMOSTAT_MODES


def _params(required: list[str] | None = None, **properties: dict[str, Any]) -> dict[str, Any]:
    """An object schema that rejects unknown keys: a misspelt argument is an error, not a silent no-op."""
    return {
        "type": "object",
        "properties": properties,
        "required": required if required is not None else list(properties),
        "additionalProperties": False,
    }


_DEVICE_ID = {"type": "string", "description": "Device id as returned by list_devices, e.g. 'bedroom_lamp'."}
_PERCENT = {"type": "integer", "minimum": 0, "maximum": 100}


def _spec(name: str, description: str, parameters: dict[str, Any], read_only: bool = False) -> ToolSpec:
    return ToolSpec(name=name, description=description, parameters=parameters, read_only=read_only)


SPECS: tuple[ToolSpec, ...] = (
    _spec("list_rooms", "List the rooms of the home with their ids and device counts.", _params(), read_only=True),
    _spec(
        "list_devices",
        "List devices (id, name, room, type), optionally only those in one room and/or of one type. "
        "Use get_device_details for a device's current settings.",
        _params(
            [],
            room={"type": "string", "description": "Room id from list_rooms, e.g. 'living_room'."},
            type={"type": "string", "enum": list(DEVICE_TYPES), "description": "Device type."},
        ),
        read_only=True,
    ),
    _spec(
        "get_device_details",
        "Current settings of one device (power, brightness, color, temperatures, mode, lock state, volume, "
        "blind position: whichever it has) and the settings it supports.",
        _params(device_id=_DEVICE_ID),
        read_only=True,
    ),
    _spec(
        "set_power",
        "Switch a light, speaker, TV or plug on or off. Thermostats are switched with set_thermostat_mode; "
        "locks and blinds have no power switch.",
        _params(device_id=_DEVICE_ID, on={"type": "boolean", "description": "true to switch on, false to switch off."}),
    ),
    _spec(
        "set_brightness",
        "Set a light's brightness in percent. The light must be on (set_power) first.",
        _params(device_id=_DEVICE_ID, level={**_PERCENT, "description": "Brightness percent, 0-100."}),
    ),
    _spec(
        "set_color",
        "Set a color-capable light's color. The light must be on (set_power) first. White-only lights have no color.",
        _params(device_id=_DEVICE_ID, color={"type": "string", "enum": list(COLORS), "description": "Color name."}),
    ),
    _spec(
        "set_temperature",
        "Set a thermostat's target temperature in degrees Celsius, in steps of 0.5. The thermostat's mode must "
        "not be off (set_thermostat_mode first).",
        _params(
            device_id=_DEVICE_ID,
            celsius={"type": "number", "minimum": 10, "maximum": 30, "multipleOf": 0.5, "description": "10-30."},
        ),
    ),
    _spec(
        "set_thermostat_mode",
        "Set a thermostat's mode: heat, cool, auto, or off (which switches it off).",
        _params(device_id=_DEVICE_ID, mode={"type": "string", "enum": list(THERMOSTAT_MODES)}),
    ),
    _spec("lock_door", "Lock a door lock.", _params(device_id=_DEVICE_ID)),
    _spec(
        "unlock_door",
        "Unlock a door lock. Needs the lock's 4-digit PIN, which only the user knows: ask, never guess.",
        _params(device_id=_DEVICE_ID, pin={"type": "string", "pattern": "^[0-9]{4}$", "description": "4-digit PIN."}),
    ),
    _spec(
        "set_volume",
        "Set a speaker's or TV's volume in percent. The device must be on (set_power) first.",
        _params(device_id=_DEVICE_ID, level={**_PERCENT, "description": "Volume percent, 0-100."}),
    ),
    _spec(
        "set_blind_position",
        "Move a motorised blind: 0 is fully closed, 100 fully open.",
        _params(device_id=_DEVICE_ID, percent={**_PERCENT, "description": "Percent open, 0-100."}),
    ),
    _spec(
        "list_scenes",
        "List scenes with the settings each applies, in order.",
        _params(),
        read_only=True,
    ),
    _spec(
        "activate_scene",
        "Apply a scene's settings in order, switching devices on where a setting needs it.",
        _params(scene_id={"type": "string", "description": "Scene id from list_scenes, e.g. 'movie_night'."}),
    ),
    _spec(
        "get_energy_usage",
        "Current power draw in watts, per device and in total, for the whole home or one room.",
        _params([], room={"type": "string", "description": "Room id; omit for the whole home."}),
        read_only=True,
    ),
    _spec(
        "get_activity_log",
        "Most recent device changes, newest first.",
        _params([], limit={"type": "integer", "minimum": 1, "maximum": 50, "description": "Entries; default 10."}),
        read_only=True,
    ),
)
"""Every tool, in the order the agent sees them."""
