"""Smart-home intent primitives (see ``intents.py`` for the contract)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from sim.core import GoldCall
from worlds.domains.multidomain.gold_calls import core, lookup_if_unknown, support
from worlds.domains.multidomain.intents import Focus, Intent, Primitive, pick_focus
from worlds.domains.multidomain.state import WorldState
from worlds.domains.multidomain.wording import EntityIntents, said


def _devices(state: WorldState, *types: str) -> list[str]:
    return [key for key, row in state.rows("devices") if row["type"] in types]


def _find(state: WorldState, device_id: str) -> list[GoldCall]:
    row = state.row("devices", device_id)
    return lookup_if_unknown(state, "device", device_id, support("find_devices", room=row["room"], type=row["type"]))


def _focus(state: WorldState, device_id: str) -> Focus:
    row = state.row("devices", device_id)
    return Focus(key=f"device:{device_id}", name=str(row["name"]))


_about = EntityIntents("home", _find, _focus)


def _power_on(state: WorldState, device_id: str) -> list[GoldCall]:
    row = state.get("devices", device_id)
    return [] if row is not None and row.get("power") else [core("set_power", device_id=device_id, on=True)]


def switch_power(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    device_id = pick_focus(state, focus, "device", _devices(state, "light", "tv", "speaker", "plug"), rng)
    row = state.row("devices", device_id)
    on = not row["power"]
    word = "on" if on else "off"
    name = row["name"]
    return _about(state, device_id, "switch_power", core("set_power", device_id=device_id, on=on), word=word, name=name)


def _set_light(
    state: WorldState, rng: random.Random, focus: Focus | None, lights: list[str], setting: tuple[Any, ...]
) -> Intent:
    """A light set to a new value of ``setting`` (primitive, field, tool, choices), switched on first if off."""
    primitive, field, tool, choices = setting
    device_id = pick_focus(state, focus, "device", lights, rng)
    row = state.row("devices", device_id)
    value = rng.choice([v for v in choices if v != row[field]])
    change = core(tool, device_id=device_id, **{"level" if field == "brightness" else field: value})
    shown = str(value).replace("_", " ")
    return _about(state, device_id, primitive, *_power_on(state, device_id), change, name=row["name"], value=shown)


def set_light_level(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    levels = (10, 20, 30, 40, 50, 70, 90)
    calls = ("set_light_level", "brightness", "set_brightness", levels)
    return _set_light(state, rng, focus, _devices(state, "light"), calls)


def set_light_color(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    colored = [key for key, row in state.rows("devices") if row["type"] == "light" and "color" in row]
    colors = ("red", "blue", "green", "purple", "orange", "warm_white")
    return _set_light(state, rng, focus, colored, ("set_light_color", "color", "set_color", colors))


def heat_room(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    device_id = pick_focus(state, focus, "device", _devices(state, "thermostat"), rng)
    row = state.row("devices", device_id)
    celsius = rng.choice([c for c in (17, 18, 19, 20, 21, 22, 23) if c != row["target_temperature"]])
    mode = [] if row["mode"] == "heat" else [core("set_thermostat_mode", device_id=device_id, mode="heat")]
    name = row["name"]
    act = core("set_temperature", device_id=device_id, celsius=celsius)
    return _about(state, device_id, "heat_room", *mode, act, name=name, celsius=celsius)


def _lock_answer(name: str) -> Any:
    def answer(results: Sequence[Any]) -> str:
        locked = results[-1]["locked"]
        return f"The {name} is {'locked' if locked else 'unlocked'}."

    return answer


def ask_lock(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    device_id = pick_focus(state, focus, "device", _devices(state, "lock"), rng)
    row = state.row("devices", device_id)
    name = row["name"]
    details = core("get_device_details", device_id=device_id)
    return _about(state, device_id, "ask_lock", details, answer=_lock_answer(name), name=name)


def lock_up(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    unlocked = [key for key, row in state.rows("devices") if row["type"] == "lock" and not row["locked"]]
    if not unlocked:
        return None
    device_id = pick_focus(state, focus, "device", unlocked, rng)
    name = _focus(state, device_id).name
    return _about(state, device_id, "lock_up", core("lock_door", device_id=device_id), name=name)


def speaker_volume(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    device_id = pick_focus(state, focus, "device", _devices(state, "speaker", "tv"), rng)
    row = state.row("devices", device_id)
    level = rng.choice([v for v in (10, 15, 20, 35, 45, 60) if v != row["volume"]])
    media = lookup_if_unknown(state, "device", device_id, support("list_media_devices"))
    name = row["name"]
    calls = (*media, *_power_on(state, device_id), core("set_volume", device_id=device_id, level=level))
    return said("home.speaker_volume", calls, _focus(state, device_id), name=name, level=level)


def movie_night(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    """A scene or its direct calls: two paths to one state, so an outage of either is survivable."""
    scene = state.row("scenes", "movie_night")
    lookups = lookup_if_unknown(state, "scene", "movie_night", support("list_scenes"))
    direct: list[GoldCall] = []
    for change in scene["changes"]:
        device_id = change["device_id"]
        direct += [c for c in _find(state, device_id) if c not in direct]
    for change in scene["changes"]:
        (field, value), device_id = next((k, v) for k, v in change.items() if k != "device_id"), change["device_id"]
        tool = {"power": "set_power", "brightness": "set_brightness", "position": "set_blinds"}[field]
        arg = {"power": "on", "brightness": "level", "position": "percent"}[field]
        direct.append(core(tool, device_id=device_id, **{arg: value}))
    return Intent(
        primitive="home.movie_night",
        explicit="Set up the living room for movie night: the living room ceiling light on at 20%, the living room "
        "floor lamp off, the living room blinds closed and the living room TV on.",
        paraphrases=("Get the living room ready for a movie, please: the movie night setup.",),
        calls=(*lookups, core("activate_scene", scene_id="movie_night")),
        alternatives=(tuple(direct),),
    )


PRIMITIVES: tuple[Primitive, ...] = (
    switch_power,
    set_light_level,
    set_light_color,
    heat_room,
    ask_lock,
    lock_up,
    speaker_volume,
    movie_night,
)
