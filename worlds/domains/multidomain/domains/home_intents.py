"""Smart-home intent primitives (see ``intents.py`` for the contract)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from sim.core import GoldCall
from worlds.domains.multidomain.intents import Focus, Intent, Primitive, core, lookup_if_unknown, pick_focus, support
from worlds.domains.multidomain.state import WorldState


def _devices(state: WorldState, *types: str) -> list[str]:
    return [key for key, row in state.rows("devices") if row["type"] in types]


def _find(state: WorldState, device_id: str) -> list[GoldCall]:
    row = state.row("devices", device_id)
    return lookup_if_unknown(state, "device", device_id, support("find_devices", room=row["room"], type=row["type"]))


def _focus(state: WorldState, device_id: str) -> Focus:
    row = state.row("devices", device_id)
    return Focus(key=f"device:{device_id}", name=str(row["name"]))


def _power_on(state: WorldState, device_id: str) -> list[GoldCall]:
    row = state.get("devices", device_id)
    return [] if row is not None and row.get("power") else [core("set_power", device_id=device_id, on=True)]


def switch_power(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    device_id = pick_focus(state, focus, "device", _devices(state, "light", "tv", "speaker", "plug"), rng)
    row = state.row("devices", device_id)
    on = not row["power"]
    word = "on" if on else "off"
    name = row["name"]
    return Intent(
        primitive="home.switch_power",
        explicit=f"Turn {word} the {name}.",
        coreferential=f"Switch it {word}.",
        paraphrases=(f"Could you switch the {name} {word}?", f"Please turn the {name} {word} for me."),
        calls=(*_find(state, device_id), core("set_power", device_id=device_id, on=on)),
        focus=_focus(state, device_id),
    )


def set_light_level(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    device_id = pick_focus(state, focus, "device", _devices(state, "light"), rng)
    row = state.row("devices", device_id)
    level = rng.choice([v for v in (10, 20, 30, 40, 50, 70, 90) if v != row["brightness"]])
    name = row["name"]
    return Intent(
        primitive="home.set_light_level",
        explicit=f"Set the {name} to {level}% brightness.",
        coreferential=f"Make it {level}% bright.",
        paraphrases=(f"Dim or brighten the {name} to {level} percent.", f"I'd like the {name} at {level}%."),
        calls=(
            *_find(state, device_id),
            *_power_on(state, device_id),
            core("set_brightness", device_id=device_id, level=level),
        ),
        focus=_focus(state, device_id),
    )


def set_light_color(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    colored = [key for key, row in state.rows("devices") if row["type"] == "light" and "color" in row]
    device_id = pick_focus(state, focus, "device", colored, rng)
    row = state.row("devices", device_id)
    color = rng.choice([c for c in ("red", "blue", "green", "purple", "orange", "warm_white") if c != row["color"]])
    shown = color.replace("_", " ")
    name = row["name"]
    return Intent(
        primitive="home.set_light_color",
        explicit=f"Change the {name} to {shown}.",
        coreferential=f"Now make it {shown}.",
        paraphrases=(f"Can the {name} go {shown}?", f"Switch the color of the {name} to {shown}."),
        calls=(
            *_find(state, device_id),
            *_power_on(state, device_id),
            core("set_color", device_id=device_id, color=color),
        ),
        focus=_focus(state, device_id),
    )


def heat_room(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    device_id = pick_focus(state, focus, "device", _devices(state, "thermostat"), rng)
    row = state.row("devices", device_id)
    celsius = rng.choice([c for c in (17, 18, 19, 20, 21, 22, 23) if c != row["target_temperature"]])
    mode = [] if row["mode"] == "heat" else [core("set_thermostat_mode", device_id=device_id, mode="heat")]
    name = row["name"]
    return Intent(
        primitive="home.heat_room",
        explicit=f"Set the {name} to heat at {celsius} degrees.",
        coreferential=f"Have it heat to {celsius} degrees.",
        paraphrases=(f"I want the {name} heating to {celsius} °C.",),
        calls=(*_find(state, device_id), *mode, core("set_temperature", device_id=device_id, celsius=celsius)),
        focus=_focus(state, device_id),
    )


def _lock_answer(name: str) -> Any:
    def answer(results: Sequence[Any]) -> str:
        locked = results[-1]["locked"]
        return f"The {name} is {'locked' if locked else 'unlocked'}."

    return answer


def ask_lock(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    device_id = pick_focus(state, focus, "device", _devices(state, "lock"), rng)
    row = state.row("devices", device_id)
    name = row["name"]
    return Intent(
        primitive="home.ask_lock",
        explicit=f"Is the {name} locked?",
        coreferential="Is it locked right now?",
        paraphrases=(f"Can you check whether the {name} is locked?",),
        calls=(*_find(state, device_id), core("get_device_details", device_id=device_id)),
        focus=_focus(state, device_id),
        answer=_lock_answer(name),
    )


def lock_up(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    unlocked = [key for key, row in state.rows("devices") if row["type"] == "lock" and not row["locked"]]
    if not unlocked:
        return None
    device_id = pick_focus(state, focus, "device", unlocked, rng)
    name = _focus(state, device_id).name
    return Intent(
        primitive="home.lock_up",
        explicit=f"Lock the {name}.",
        coreferential="Lock it, please.",
        paraphrases=(f"Please make sure the {name} gets locked.",),
        calls=(*_find(state, device_id), core("lock_door", device_id=device_id)),
        focus=_focus(state, device_id),
    )


def speaker_volume(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    device_id = pick_focus(state, focus, "device", _devices(state, "speaker", "tv"), rng)
    row = state.row("devices", device_id)
    level = rng.choice([v for v in (10, 15, 20, 35, 45, 60) if v != row["volume"]])
    media = lookup_if_unknown(state, "device", device_id, support("list_media_devices"))
    name = row["name"]
    return Intent(
        primitive="home.speaker_volume",
        explicit=f"Set the {name} volume to {level}.",
        coreferential=f"Put its volume at {level}.",
        paraphrases=(f"Change the volume of the {name} to {level} percent.",),
        calls=(*media, *_power_on(state, device_id), core("set_volume", device_id=device_id, level=level)),
        focus=_focus(state, device_id),
    )


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
