"""What the tools do: plain functions over ``HomeState``, one per spec in ``specs.py``.

Arguments arrive already checked against the spec's JSON schema (``world.py``); these functions add the
domain checks and raise ``ToolError`` for anything the agent got wrong. Each checks before it changes
anything, so a failed call leaves the state untouched.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from types import MappingProxyType
from typing import Any

from worlds.common.errors import ToolError
from worlds.domains.smart_home.state import Device, HomeState

Result = dict[str, Any]


def _device(state: HomeState, device_id: str) -> Device:
    device = state.device(device_id)
    if device is None:
        raise ToolError("not_found", "unknown_device", f"No device with id '{device_id}'. Use list_devices for ids.")
    return device


def _supports(device: Device, setting: str, what: str, hint: str = "") -> None:
    if not device.has(setting):
        message = f"{device.name} ({device.id}) is a {device.type} and has no {what}."
        raise ToolError("invalid_arguments", "unsupported", f"{message} {hint}".strip())


def _require_on(device: Device) -> None:
    if device.power is False:
        raise ToolError(
            "failed", "device_off", f"{device.name} ({device.id}) is off. Power it on first with set_power."
        )


def _change(state: HomeState, device: Device, setting: str, value: Any, via: str) -> None:
    """Set one field, logging it only when it actually changes."""
    if getattr(device, setting) == value:
        return
    setattr(device, setting, value)
    shown = ("on" if value else "off") if setting == "power" else value
    state.record(device.id, f"{setting}={shown}", via)


# -- lookups -------------------------------------------------------------------------------------


def list_rooms(state: HomeState) -> Result:
    per_room = Counter(d.room for d in state.devices)  # one pass over the devices, not one per room
    rooms = [{"room_id": r.id, "name": r.name, "devices": per_room[r.id]} for r in state.rooms]
    return {"rooms": rooms}


def _check_room(state: HomeState, room: str) -> None:
    if all(r.id != room for r in state.rooms):
        known = ", ".join(r.id for r in state.rooms)
        raise ToolError("not_found", "unknown_room", f"No room with id '{room}'. Known rooms: {known}.")


def list_devices(state: HomeState, room: str | None = None, type: str | None = None) -> Result:
    if room is not None:
        _check_room(state, room)
    devices = [
        {"device_id": d.id, "name": d.name, "room": d.room, "type": d.type}
        for d in state.devices
        if (room is None or d.room == room) and (type is None or d.type == type)
    ]
    return {"devices": devices}


def get_device_details(state: HomeState, device_id: str) -> Result:
    return _device(state, device_id).public()


def list_scenes(state: HomeState) -> Result:
    scenes = [
        {
            "scene_id": s.id,
            "name": s.name,
            "description": s.description,
            "steps": [{"device_id": step.device_id, **step.settings()} for step in s.steps],
        }
        for s in state.scenes
    ]
    return {"scenes": scenes}


def _draw_watts(device: Device) -> float:
    """Instantaneous draw, a pure function of the device's settings."""
    if device.type == "thermostat":
        current, target = device.current_temperature or 0.0, device.target_temperature or 0.0
        heating = device.mode in ("heat", "auto") and current < target
        cooling = device.mode in ("cool", "auto") and current > target
        return device.watts if heating or cooling else 0.0
    if not device.power:
        return 0.0
    if device.type == "light":
        return device.watts * (device.brightness or 0) / 100
    return device.watts


def get_energy_usage(state: HomeState, room: str | None = None) -> Result:
    if room is not None:
        _check_room(state, room)
    draws = [(d.id, round(_draw_watts(d), 1)) for d in state.devices if room is None or d.room == room]
    devices = [{"device_id": device_id, "watts": watts} for device_id, watts in draws if watts > 0]
    return {"room": room or "all", "total_watts": round(sum(w for _, w in draws), 1), "devices": devices}


def get_activity_log(state: HomeState, limit: int = 10) -> Result:
    entries = [a.model_dump() for a in reversed(state.activity[-int(limit) :])]
    return {"now": state.now(), "entries": entries}


# -- actions -------------------------------------------------------------------------------------


def set_power(state: HomeState, device_id: str, on: bool, via: str = "set_power") -> Result:
    device = _device(state, device_id)
    hint = "Use set_thermostat_mode to switch a thermostat on or off." if device.type == "thermostat" else ""
    _supports(device, "power", "power switch", hint)
    _change(state, device, "power", on, via)
    return {"device_id": device.id, "power": "on" if on else "off"}


def set_brightness(state: HomeState, device_id: str, level: int, via: str = "set_brightness") -> Result:
    device = _device(state, device_id)
    _supports(device, "brightness", "brightness")
    _require_on(device)
    _change(state, device, "brightness", int(level), via)
    return {"device_id": device.id, "brightness": device.brightness}


def set_color(state: HomeState, device_id: str, color: str, via: str = "set_color") -> Result:
    device = _device(state, device_id)
    what = "color (it is a white-only light)" if device.type == "light" else "color"
    _supports(device, "color", what)
    _require_on(device)
    _change(state, device, "color", color, via)
    return {"device_id": device.id, "color": device.color}


def set_temperature(state: HomeState, device_id: str, celsius: float, via: str = "set_temperature") -> Result:
    device = _device(state, device_id)
    _supports(device, "target_temperature", "temperature setpoint")
    if device.mode == "off":
        raise ToolError(
            "failed",
            "device_off",
            f"{device.name} ({device.id}) is off. Power it on first by setting its mode to heat, cool or auto "
            "with set_thermostat_mode.",
        )
    _change(state, device, "target_temperature", float(celsius), via)
    return {"device_id": device.id, "target_temperature": device.target_temperature, "mode": device.mode}


def set_thermostat_mode(state: HomeState, device_id: str, mode: str, via: str = "set_thermostat_mode") -> Result:
    device = _device(state, device_id)
    _supports(device, "mode", "thermostat mode")
    _change(state, device, "mode", mode, via)
    return {"device_id": device.id, "mode": device.mode}


def lock_door(state: HomeState, device_id: str, via: str = "lock_door") -> Result:
    device = _device(state, device_id)
    _supports(device, "locked", "lock")
    _change(state, device, "locked", True, via)
    return {"device_id": device.id, "locked": True}


def unlock_door(state: HomeState, device_id: str, pin: str, via: str = "unlock_door") -> Result:
    device = _device(state, device_id)
    _supports(device, "locked", "lock")
    if pin != device.pin:
        raise ToolError("unauthorized", "wrong_pin", f"Wrong PIN for {device.name} ({device.id}). Ask the user.")
    _change(state, device, "locked", False, via)
    return {"device_id": device.id, "locked": False}


def set_volume(state: HomeState, device_id: str, level: int, via: str = "set_volume") -> Result:
    device = _device(state, device_id)
    _supports(device, "volume", "volume")
    _require_on(device)
    _change(state, device, "volume", int(level), via)
    return {"device_id": device.id, "volume": device.volume}


def set_blind_position(state: HomeState, device_id: str, percent: int, via: str = "set_blind_position") -> Result:
    device = _device(state, device_id)
    _supports(device, "position", "blind position")
    _change(state, device, "position", int(percent), via)
    return {"device_id": device.id, "position": device.position}


def activate_scene(state: HomeState, scene_id: str) -> Result:
    """Replays the scene through the same actions as the direct calls, so both paths end in the same state."""
    scene = state.scene(scene_id)
    if scene is None:
        known = ", ".join(s.id for s in state.scenes)
        raise ToolError("not_found", "unknown_scene", f"No scene with id '{scene_id}'. Known scenes: {known}.")
    via, first_new = f"activate_scene:{scene.id}", len(state.activity)
    for step in scene.steps:
        settings, device_id = step.settings(), step.device_id
        device = _device(state, device_id)
        if device.power is False and "power" not in settings:
            set_power(state, device_id, True, via)
        for setting, value in settings.items():
            setter, arg = _SCENE_SETTERS[setting]
            setter(state, device_id, **({arg: value} if arg else {}), via=via)
    changes = [f"{a.device_id}: {a.change}" for a in state.activity[first_new:]]
    return {"scene_id": scene.id, "changes": changes}


_SCENE_SETTERS: MappingProxyType[str, tuple[Callable[..., Result], str | None]] = MappingProxyType(
    {
        "power": (set_power, "on"),
        "brightness": (set_brightness, "level"),
        "color": (set_color, "color"),
        "mode": (set_thermostat_mode, "mode"),
        "target_temperature": (set_temperature, "celsius"),
        "locked": (lock_door, None),
        "volume": (set_volume, "level"),
        "position": (set_blind_position, "percent"),
    }
)
"""Scene setting -> (action, its argument name). SceneStep.settings() yields them in SETTINGS order."""

TOOL_FUNCTIONS: MappingProxyType[str, Callable[..., Result]] = MappingProxyType(
    {
        fn.__name__: fn
        for fn in (
            list_rooms,
            list_devices,
            get_device_details,
            set_power,
            set_brightness,
            set_color,
            set_temperature,
            set_thermostat_mode,
            lock_door,
            unlock_door,
            set_volume,
            set_blind_position,
            list_scenes,
            activate_scene,
            get_energy_usage,
            get_activity_log,
        )
    }
)
"""Tool name -> implementation; called as ``fn(state, **arguments)``."""
