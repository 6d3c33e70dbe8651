"""The smart home's fast paths give what the plain formulas give: counters, scene settings, task state, hash."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from typing import Any

from sim.core import ToolCall
from sim.core.task_state import changed, flatten
from worlds.domains.smart_home.pack import SmartHomePack
from worlds.domains.smart_home.state import HomeState
from worlds.domains.smart_home.world import SmartHomeWorld, home_changes


def _calls(world: SmartHomeWorld, rng: random.Random, count: int) -> list[ToolCall]:
    """Calls that change the home (and some that fail), drawn from its own devices and scenes."""
    home = world.state
    devices = [d.id for d in home.devices]
    scenes = [s.id for s in home.scenes]
    menu: list[tuple[str, dict[str, Any]]] = []
    for _ in range(count):
        device = rng.choice(devices)
        options: list[tuple[str, dict[str, Any]]] = [
            ("set_power", {"device_id": device, "on": rng.random() < 0.6}),
            ("set_brightness", {"device_id": device, "level": rng.randrange(0, 101)}),
            ("set_volume", {"device_id": device, "level": rng.randrange(0, 101)}),
            ("set_blind_position", {"device_id": device, "percent": rng.randrange(0, 101)}),
            ("set_thermostat_mode", {"device_id": device, "mode": rng.choice(["heat", "cool", "off"])}),
            ("activate_scene", {"scene_id": rng.choice(scenes)}),
            ("get_device_details", {"device_id": device}),
        ]
        menu.append(rng.choice(options))
    return [ToolCall(id=f"c{i}", name=name, arguments=args) for i, (name, args) in enumerate(menu)]


def _plain_changes(pack: SmartHomePack, home: HomeState) -> dict[str, Any]:
    """Every device compared through ``flatten``, as task states were computed before the fast paths."""
    base = {d.id: d.model_dump(mode="json") for d in pack.new_world(0).state.devices}
    flat: dict[str, Any] = {}
    for device in home.devices:
        old, item = base[device.id], device.model_dump(mode="json")
        if old != item:
            flat |= changed(flatten({"devices": [old]}), flatten({"devices": [item]}))
    return flat


def test_task_state_and_hash_match_the_plain_formulas() -> None:
    pack = SmartHomePack()
    rng = random.Random(7)
    for seed in range(12):
        world = pack.new_world(seed)
        for call in _calls(pack.new_world(0), rng, 8):
            asyncio.run(world.call(call))
            changes = world.task_state()
            assert changes == _plain_changes(pack, world._state)
            assert list(changes) == list(home_changes(world._base_items, world._state))  # the memo's order too
        dump = world._state.model_dump(mode="json", include={"rooms", "devices", "scenes"})
        text = json.dumps(dump, sort_keys=True, separators=(",", ":"))
        assert world.state_hash() == hashlib.sha256(text.encode()).hexdigest()


def test_counters_set_as_a_validated_assignment_would() -> None:
    home = SmartHomePack().new_world(0).state
    other = home.model_copy(deep=True)
    home.tick()
    home.record("living_tv", "power=on", "set_power")
    other.clock_s += 1
    other.activity.append(home.activity[-1])
    other.next_activity += 1
    assert home.model_dump() == other.model_dump()
    assert home.model_fields_set == other.model_fields_set


def test_scene_settings_are_the_dump_without_nones() -> None:
    for scene in SmartHomePack().new_world(0).state.scenes:
        for step in scene.steps:
            plain = {k: v for k, v in step.model_dump(exclude={"device_id"}).items() if v is not None}
            assert step.settings() == plain and list(step.settings()) == list(plain)
