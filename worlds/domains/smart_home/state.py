"""The smart home's state: rooms, devices, scenes, plus a deterministic clock and activity log.

Which settings a device has is decided by its type (``TYPE_FIELDS``); a setting a device lacks is None.
Assignment is validated, so a tool can never leave a device out of range.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

DeviceType = Literal["light", "thermostat", "lock", "speaker", "tv", "plug", "blind"]
ThermostatMode = Literal["heat", "cool", "auto", "off"]
Color = Literal["warm_white", "cool_white", "red", "orange", "yellow", "green", "blue", "purple", "pink"]

DEVICE_TYPES: tuple[str, ...] = get_args(DeviceType)
THERMOSTAT_MODES: tuple[str, ...] = get_args(ThermostatMode)
COLORS: tuple[str, ...] = get_args(Color)

SETTINGS: tuple[str, ...] = (
    "power",
    "brightness",
    "color",
    "mode",
    "target_temperature",
    "current_temperature",
    "locked",
    "pin",
    "volume",
    "position",
)
"""Every per-type device field, in the order scenes apply them (power before what needs power)."""

TYPE_FIELDS: MappingProxyType[str, frozenset[str]] = MappingProxyType(
    {
        "light": frozenset({"power", "brightness", "color"}),
        "thermostat": frozenset({"mode", "target_temperature", "current_temperature"}),
        "lock": frozenset({"locked", "pin"}),
        "speaker": frozenset({"power", "volume"}),
        "tv": frozenset({"power", "volume"}),
        "plug": frozenset({"power"}),
        "blind": frozenset({"position"}),
    }
)
"""Fields a device of each type may have. All are required except a light's color (white-only bulbs)."""

OPTIONAL_FIELDS: frozenset[str] = frozenset({"color"})


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class Room(_Model):
    id: str = Field(description="Stable room id, e.g. living_room.")
    name: str = Field(description="Human name, e.g. Living room.")


class Device(_Model):
    """One device. Fields outside its type's ``TYPE_FIELDS`` stay None."""

    id: str = Field(description="Stable device id, e.g. living_ceiling_light.")
    name: str = Field(description="Human name the user uses.")
    room: str = Field(description="Room id.")
    type: DeviceType
    watts: float = Field(ge=0, description="Rated draw at full output, for energy readings.")
    power: bool | None = Field(default=None, description="True when switched on.")
    brightness: int | None = Field(default=None, ge=0, le=100, description="Percent; kept while off.")
    color: Color | None = Field(default=None, description="None on white-only lights.")
    mode: ThermostatMode | None = Field(default=None, description="Thermostat mode; off is the thermostat's off.")
    target_temperature: float | None = Field(default=None, ge=10, le=30, description="Celsius setpoint.")
    current_temperature: float | None = Field(default=None, description="Celsius reading (static).")
    locked: bool | None = None
    pin: str | None = Field(default=None, description="Unlock PIN. Never shown to the agent.")
    volume: int | None = Field(default=None, ge=0, le=100)
    position: int | None = Field(default=None, ge=0, le=100, description="Blind: percent open.")

    @model_validator(mode="after")
    def _fields_match_type(self) -> Device:
        allowed = TYPE_FIELDS[self.type]
        for name in SETTINGS:
            present = getattr(self, name) is not None
            if present and name not in allowed:
                raise ValueError(f"device {self.id}: a {self.type} has no {name}")
            if not present and name in allowed and name not in OPTIONAL_FIELDS:
                raise ValueError(f"device {self.id}: a {self.type} needs {name}")
        return self

    def has(self, setting: str) -> bool:
        return getattr(self, setting) is not None

    def capabilities(self) -> list[str]:
        """Settings the agent can change, by tool-facing name."""
        return [s for s in SETTINGS if self.has(s) and s not in ("current_temperature", "pin")]

    def public(self) -> dict[str, Any]:
        """What get_device_details shows: every setting the device has, never its PIN."""
        out: dict[str, Any] = {"device_id": self.id, "name": self.name, "room": self.room, "type": self.type}
        for name in SETTINGS:
            value = getattr(self, name)
            if value is None or name == "pin":
                continue
            out[name] = ("on" if value else "off") if name == "power" else value
        out["capabilities"] = self.capabilities()
        return out


class SceneStep(_Model):
    """Settings for one device; only the fields given are applied, in ``SETTINGS`` order."""

    device_id: str
    power: bool | None = None
    brightness: int | None = Field(default=None, ge=0, le=100)
    color: Color | None = None
    mode: ThermostatMode | None = None
    target_temperature: float | None = Field(default=None, ge=10, le=30)
    locked: Literal[True] | None = Field(default=None, description="Scenes may lock, never unlock (no PIN).")
    volume: int | None = Field(default=None, ge=0, le=100)
    position: int | None = Field(default=None, ge=0, le=100)

    def settings(self) -> dict[str, Any]:
        # What model_dump(exclude={"device_id"}) gives, minus the Nones, without a dump per call (every field is a
        # plain value; scenes are read at every activation and listing).
        return {k: v for k in _STEP_SETTINGS if (v := getattr(self, k)) is not None}


_STEP_SETTINGS: tuple[str, ...] = tuple(name for name in SceneStep.model_fields if name != "device_id")


class Scene(_Model):
    id: str
    name: str
    description: str
    steps: list[SceneStep] = Field(min_length=1)


class Activity(_Model):
    """One state change, as the hub's activity log records it."""

    id: str = Field(description="act-0001, act-0002, ... in order.")
    time: str = Field(description="ISO time on the world's own clock.")
    device_id: str
    change: str = Field(description="e.g. 'brightness=30'.")
    via: str = Field(description="Tool that caused it, e.g. 'activate_scene:movie_night'.")


class HomeState(_Model):
    """The whole mutable world. The clock and log record how the home got here; the hash ignores them."""

    start_time: datetime = Field(description="Wall time the episode's clock starts at (fixed in data).")
    clock_s: int = Field(default=0, ge=0, description="Seconds elapsed; each tool call takes one second.")
    next_activity: int = Field(default=1, ge=1, description="Id counter for the activity log.")
    rooms: list[Room]
    devices: list[Device]
    scenes: list[Scene]
    activity: list[Activity] = Field(default_factory=list)
    _shared: set[int] | None = PrivateAttr(default=None)
    """Copy-on-write (``fork``): ids of the devices still shared with the template; None when this home owns all."""
    _item_json: dict[int, str] = PrivateAttr(default_factory=dict)
    """Canonical JSON of the template's items by id, shared by the template and its forks (items never mutated)."""

    @model_validator(mode="after")
    def _references_resolve(self) -> HomeState:
        for kind, ids in (("room", [r.id for r in self.rooms]), ("device", [d.id for d in self.devices])):
            if len(ids) != len(set(ids)):
                raise ValueError(f"duplicate {kind} ids")
        room_ids = {r.id for r in self.rooms}
        devices = {d.id: d for d in self.devices}
        for device in self.devices:
            if device.room not in room_ids:
                raise ValueError(f"device {device.id}: unknown room {device.room}")
        for scene in self.scenes:
            for step in scene.steps:
                _check_step(scene.id, step, devices.get(step.device_id))
        return self

    def fork(self) -> HomeState:
        """A home equal to this one that shares its rooms, scenes and devices until it changes a device
        (``device`` copies that one device first). For a template nobody mutates: a world pack's home.

        Why: a deep copy of the whole home per episode cost more CPU than the episode's tool calls."""
        fork = self.model_copy(update={"devices": list(self.devices), "activity": list(self.activity)})
        fork._shared = {id(d) for d in self.devices}
        fork._item_json = self._item_json
        return fork

    def own_everything(self) -> None:
        """Copy every device still shared with the template: whoever holds the live state may change it."""
        for d in list(self.devices):
            self.device(d.id)

    def device(self, device_id: str) -> Device | None:
        """The device, this home's own (copied from the template first in a fork): callers may change it."""
        for i, d in enumerate(self.devices):
            if d.id == device_id:
                if self._shared is not None and id(d) in self._shared:
                    self._shared.discard(id(d))
                    d = self.devices[i] = d.model_copy()
                return d
        return None

    def scene(self, scene_id: str) -> Scene | None:
        return next((s for s in self.scenes if s.id == scene_id), None)

    def now(self) -> str:
        return (self.start_time + timedelta(seconds=self.clock_s)).isoformat()

    def tick(self) -> None:
        self._count("clock_s", self.clock_s + 1)

    def record(self, device_id: str, change: str, via: str) -> None:
        entry_id = f"act-{self.next_activity:04d}"
        self.activity.append(Activity(id=entry_id, time=self.now(), device_id=device_id, change=change, via=via))
        self._count("next_activity", self.next_activity + 1)

    def _count(self, name: str, value: int) -> None:
        """Set a counter as a validated assignment would, without validating the whole home again (its model
        validator walks every scene: most of a tool call's CPU). A counter that only grows stays in range."""
        self.__dict__[name] = value
        self.__pydantic_fields_set__.add(name)

    def home_hash(self) -> str:
        """sha256 of the canonical JSON of what the home looks like (rooms, devices, scenes).

        The same bytes as ``json.dumps(model_dump(include=rooms, devices, scenes), sort_keys=True)``, built item by
        item so that a fork encodes only the devices it changed (the template's items are encoded once)."""
        # Private attributes read once: each read goes through pydantic's __getattr__.
        shared, cache = self._shared, self._item_json
        sections = [
            f'"{name}":[{",".join(_json_of(item, shared, cache) for item in items)}]'
            for name, items in (("devices", self.devices), ("rooms", self.rooms), ("scenes", self.scenes))
        ]
        return hashlib.sha256(("{" + ",".join(sections) + "}").encode()).hexdigest()

    def owned_devices(self) -> list[Device]:
        """The devices that may differ from the template's (all of them outside a fork)."""
        shared = self._shared
        return self.devices if shared is None else [d for d in self.devices if id(d) not in shared]


def _json_of(item: BaseModel, shared: set[int] | None, cache: dict[int, str]) -> str:
    """An item's canonical JSON; a fork's items still shared with the template (rooms, scenes and the devices it
    never changed) are encoded once, in ``cache`` (the template's, keyed by id)."""
    kept = shared is not None and (not isinstance(item, Device) or id(item) in shared)
    if kept and (cached := cache.get(id(item))) is not None:
        return cached
    text = json.dumps(item.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    if kept:
        cache[id(item)] = text
    return text


def _check_step(scene_id: str, step: SceneStep, device: Device | None) -> None:
    """Scene data must be applicable in any state, so activation can never fail half-way."""
    where = f"scene {scene_id}, device {step.device_id}"
    if device is None:
        raise ValueError(f"{where}: unknown device")
    settings = step.settings()
    if not settings:
        raise ValueError(f"{where}: step sets nothing")
    for name in settings:
        if not device.has(name):
            raise ValueError(f"{where}: a {device.type} has no {name}")
    if settings.get("power") is False and len(settings) > 1:
        raise ValueError(f"{where}: a step that powers off sets nothing else")
    if "target_temperature" in settings and settings.get("mode") in (None, "off"):
        raise ValueError(f"{where}: a setpoint needs a mode other than off in the same step")
