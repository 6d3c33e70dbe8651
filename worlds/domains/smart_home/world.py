"""The smart home as a ``World``: one instance per episode, owning its own ``HomeState``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sim.core import ToolCall, ToolResult, ToolSpec, failure
from sim.core.task_state import ABSENT, changed, flatten
from worlds.common.arguments import ArgumentChecker
from worlds.common.errors import ToolError
from worlds.domains.smart_home.specs import SPECS
from worlds.domains.smart_home.state import SETTINGS, HomeState
from worlds.domains.smart_home.tools import TOOL_FUNCTIONS

WORLD_NAME = "smart_home"

INSTRUCTIONS = """\
You are a smart home assistant. You control the user's home only through the tools provided.
- Device, room and scene ids come from list_devices, list_rooms and list_scenes; do not guess them.
- A light, speaker or TV must be switched on (set_power) before its brightness, color or volume can be set.
  A thermostat is switched on by setting its mode (heat, cool or auto) before its temperature is set.
- Temperatures are in degrees Celsius.
- Unlocking a door needs its PIN. Only the user knows it: ask for it, never guess.
- If a tool call fails, tell the user what failed and why, and what they can do about it."""


def argument_checkers() -> dict[str, ArgumentChecker]:
    """One compiled schema validator per tool (about 1 ms each to build, so build them once per pack)."""
    return {spec.name: ArgumentChecker(spec.parameters) for spec in SPECS}


HomeItems = dict[str, dict[str, dict[str, Any]]]
"""rooms, devices, scenes -> id -> the item as JSON: what the home's hash covers (not the clock or the log)."""


def home_items(home: HomeState) -> HomeItems:
    dump = home.model_dump(mode="json", include={"rooms", "devices", "scenes"})
    return {section: {item["id"]: item for item in items} for section, items in dump.items()}


def home_changes(base: HomeItems, home: HomeState, memo: DeviceChanges | None = None) -> dict[str, Any]:
    """The home's changes from ``base``, flat (``sim.core.task_state``). Items equal to the base's (most of them)
    are compared as whole dicts and never flattened: this runs at every goal of every episode. A fork of the
    pack's home (``HomeState.fork``, whose items ``base`` holds) compares only the devices it changed; ``memo``
    (the pack's, over the same ``base``) remembers the changes of devices seen before."""
    owned = home.owned_devices()
    if owned is not home.devices:
        devices = base.get("devices", {})
        flat: dict[str, Any] = {}
        for device in owned:
            old, item = devices.get(device.id), device.model_dump(mode="json")
            if old != item:
                flat |= memo.of(old, item) if memo is not None else _device_changes(old, item)
        return flat
    flat = {}
    for section, items in home_items(home).items():
        before = base.get(section, {})
        for key, item in items.items():
            old = before.get(key)
            if old != item:
                flat |= changed(_paths(section, old) if old else {}, _paths(section, item))
        for key in before.keys() - items.keys():
            flat |= {path: ABSENT for path in _paths(section, before[key])}
    return flat


def _device_changes(old: dict[str, Any] | None, item: dict[str, Any]) -> dict[str, Any]:
    return changed(_paths("devices", old) if old else {}, _paths("devices", item))


class DeviceChanges:
    """A device's flat changes from the pack's home, by what it holds now: the same few changes recur in episode
    after episode, and flattening and comparing them again was most of a task-state read. Owned by a pack, for its
    worlds (whose base is the pack's home); least recently added dropped first."""

    def __init__(self, size: int = 4096) -> None:
        self._size = size
        self._known: dict[tuple[tuple[str, Any], ...], dict[str, Any]] = {}

    def of(self, old: dict[str, Any] | None, item: dict[str, Any]) -> dict[str, Any]:
        # A device's dump is its fields in their declared order, each of its declared type (pydantic coerces on
        # assignment), so equal keys are equal dumps; the id is among them.
        key = tuple(item.items())
        found = self._known.get(key)
        if found is None:
            found = _device_changes(old, item)
            if len(self._known) >= self._size:
                del self._known[next(iter(self._known))]
            self._known[key] = found
        return found


_PLAIN: frozenset[type] = frozenset({str, int, float, bool, type(None)})
"""JSON values flatten keeps as they are."""


def _paths(section: str, item: dict[str, Any]) -> dict[str, Any]:
    """``flatten({section: [item]})``: an item of plain fields (a device's) without flatten's walk."""
    if not all(type(v) in _PLAIN for v in item.values()):
        return flatten({section: [item]})
    prefix = f"{section}/{item['id']}."
    return {prefix + key: value for key, value in item.items() if key != "id"}


class SmartHomeWorld:
    """Deterministic: the state holds its own clock and id counter, and nothing here is random."""

    name: str = WORLD_NAME

    def __init__(
        self,
        state: HomeState,
        seed: int = 0,
        checkers: Mapping[str, ArgumentChecker] | None = None,
        base_items: HomeItems | None = None,
        memo: DeviceChanges | None = None,
    ) -> None:
        """``checkers`` (from ``argument_checkers()``) are stateless: a pack builds them once for all its worlds, and
        ``base_items`` (``home_items`` of the pack's home), which ``task_state`` reports changes from, with ``memo``
        (the pack's: only for worlds forked from the home ``base_items`` was taken from)."""
        self.seed = seed  # nothing in the home is random; kept so episodes can report it
        self._state = state
        self._checkers = checkers if checkers is not None else argument_checkers()
        self._base_items = base_items if base_items is not None else home_items(state)
        self._memo = memo if base_items is not None else None
        self._changes: dict[str, Any] | None = None  # task_state, until the next call may change the home

    def specs(self) -> list[ToolSpec]:
        return list(SPECS)

    def instructions(self) -> str:
        return INSTRUCTIONS

    async def call(self, call: ToolCall) -> ToolResult:
        """Never raises on bad input: every mistake becomes a failed ToolResult the agent can read."""
        self._state.tick()
        self._changes = None
        function = TOOL_FUNCTIONS.get(call.name)
        if function is None:
            known = ", ".join(spec.name for spec in SPECS)
            return failure(call, "not_found", "unknown_tool", f"No tool named '{call.name}'. Available: {known}.")
        problem = self._checkers[call.name].problems(call.arguments)
        if problem is not None:
            code, message = problem
            return failure(call, "invalid_arguments", code, message)
        try:
            content = function(self._state, **self._checkers[call.name].normalised(call.arguments))
        except ToolError as error:
            return failure(call, error.status, error.code, error.message)
        return ToolResult(call_id=call.id, status="success", content=content)

    def snapshot(self) -> dict[str, Any]:
        return self._state.model_dump(mode="json")

    def restore(self, snapshot: Any) -> None:
        self._state = HomeState.model_validate(snapshot)
        self._changes = None

    def state_hash(self) -> str:
        """Hash of the home itself: two call sequences that leave the home alike hash alike, however long."""
        return self._state.home_hash()

    def task_state(self) -> dict[str, Any]:
        """What differs from the pack's home, flat (``sim.core.task_state``): a few paths, not the whole home,
        so an episode holds little however many are in flight."""
        if self._changes is None:
            self._changes = home_changes(self._base_items, self._state, self._memo)
        return dict(self._changes)

    def apply_change(self, edit: dict[str, Any]) -> None:
        """A timed world event (``sim.core.ChangeableWorld``): ``{"device": id, "set": {setting: value}}``, as
        someone at home would change it (logged in the activity log under ``via: household``), or ``{"scene": id,
        "delete": true}``: a scene deleted from another device."""
        if "scene" in edit:
            scene_id = edit["scene"]
            if edit.get("delete") is not True or self._state.scene(scene_id) is None:
                raise ValueError(f"a scene edit deletes a scene that exists ('delete': true), got {edit}")
            # Through a snapshot: a fork of the pack's home reports device changes only, and a scene is not one.
            home = self.snapshot()
            self.restore({**home, "scenes": [sc for sc in home["scenes"] if sc["id"] != scene_id]})
            return
        device_id, changes = edit.get("device"), edit.get("set")
        if not isinstance(device_id, str) or not isinstance(changes, dict) or not changes:
            raise ValueError("an edit names a 'device' and the settings it 'set's")
        device = self._state.device(device_id)
        if device is None:
            raise ValueError(f"no device {device_id!r}")
        for setting, value in changes.items():
            if setting not in SETTINGS or not device.has(setting):
                raise ValueError(f"{device_id} has no setting {setting!r}")
            setattr(device, setting, value)  # validated: a value out of range raises ValueError
            self._state.record(device_id, f"{setting}={value}", "household")
        self._changes = None

    @property
    def state(self) -> HomeState:
        """The live state, for tests and judges' replay checks; agents only see tool results."""
        self._changes = None  # whoever holds the live state may change it
        self._state.own_everything()  # ... so none of its devices may still be the pack's
        return self._state
