"""The smart home as a ``World``: one instance per episode, owning its own ``HomeState``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sim.core import ToolCall, ToolResult, ToolSpec, failure
from sim.core.task_state import ABSENT, changed, flatten
from worlds.common.arguments import ArgumentChecker
from worlds.common.errors import ToolError
from worlds.domains.smart_home.specs import SPECS
from worlds.domains.smart_home.state import HomeState
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


def home_changes(base: HomeItems, home: HomeState) -> dict[str, Any]:
    """The home's changes from ``base``, flat (``sim.core.task_state``). Items equal to the base's (most of them)
    are compared as whole dicts and never flattened: this runs at every goal of every episode. A fork of the
    pack's home (``HomeState.fork``, whose items ``base`` holds) compares only the devices it changed."""
    if home.owned_devices() is not home.devices:
        devices = base.get("devices", {})
        flat: dict[str, Any] = {}
        for device in home.owned_devices():
            old, item = devices.get(device.id), device.model_dump(mode="json")
            if old != item:
                flat |= changed(flatten({"devices": [old]}) if old else {}, flatten({"devices": [item]}))
        return flat
    flat = {}
    for section, items in home_items(home).items():
        before = base.get(section, {})
        for key, item in items.items():
            old = before.get(key)
            if old != item:
                flat |= changed(flatten({section: [old]}) if old else {}, flatten({section: [item]}))
        for key in before.keys() - items.keys():
            flat |= {path: ABSENT for path in flatten({section: [before[key]]})}
    return flat


class SmartHomeWorld:
    """Deterministic: the state holds its own clock and id counter, and nothing here is random."""

    name: str = WORLD_NAME

    def __init__(
        self,
        state: HomeState,
        seed: int = 0,
        checkers: Mapping[str, ArgumentChecker] | None = None,
        base_items: HomeItems | None = None,
    ) -> None:
        """``checkers`` (from ``argument_checkers()``) are stateless: a pack builds them once for all its worlds, and
        ``base_items`` (``home_items`` of the pack's home), which ``task_state`` reports changes from."""
        self.seed = seed  # nothing in the home is random; kept so episodes can report it
        self._state = state
        self._checkers = checkers if checkers is not None else argument_checkers()
        self._base_items = base_items if base_items is not None else home_items(state)
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
            self._changes = home_changes(self._base_items, self._state)
        return dict(self._changes)

    @property
    def state(self) -> HomeState:
        """The live state, for tests and judges' replay checks; agents only see tool results."""
        self._changes = None  # whoever holds the live state may change it
        self._state.own_everything()  # ... so none of its devices may still be the pack's
        return self._state
