"""The media domain of the multi-domain world: every tool's success path and a failure path that changes
nothing, the power and lookup prerequisites, and the intent primitives executed on live worlds."""

from __future__ import annotations

import random
from typing import Any

import pytest

from sim.core import ToolCall, ToolResult
from tests.support.intent_checks import check_intent
from worlds.domains.multidomain import MultiDomainPack
from worlds.domains.multidomain.domains.media_intents import PRIMITIVES
from worlds.domains.multidomain.intents import Focus
from worlds.domains.multidomain.world import MultiDomainWorld

PACK = MultiDomainPack(tasks=[])
Step = tuple[str, dict[str, Any]]

DEVICES: Step = ("list_media_devices", {})
PLAYLISTS: Step = ("list_playlists", {})


def _search(query: str, **extra: Any) -> Step:
    return ("search_media", {"query": query, **extra})


async def _call(world: MultiDomainWorld, name: str, /, **arguments: Any) -> ToolResult:
    return await world.call(ToolCall(id="c", name=name, arguments=arguments))


async def _world(*steps: Step) -> MultiDomainWorld:
    world = PACK.new_world(0)
    for name, arguments in steps:
        result = await _call(world, name, **arguments)
        assert result.ok, (name, result.content)
    return world


def _playback(world: MultiDomainWorld, device_id: str) -> Any:
    return world.state.get("playback", device_id)


SUCCESS: list[tuple[str, tuple[Step, ...], dict[str, Any], Any]] = [
    (
        "search_media",
        (),
        {"query": "night bus"},
        lambda c, w: [r["item_id"] for r in c["results"]] == ["song_night_bus"],
    ),
    (
        "get_media_details",
        (_search("northern lights", type="album"),),
        {"item_id": "album_northern_lights"},
        lambda c, w: c["tracks"][0]["title"] == "First Frost" and len(c["tracks"]) == 4,
    ),
    (
        "play_media",
        (_search("first frost"), DEVICES),
        {"device_id": "kitchen_speaker", "item_id": "song_first_frost"},
        lambda c, w: _playback(w, "kitchen_speaker")["queue"] == ["song_first_frost"] and c["status"] == "playing",
    ),
    (
        "get_now_playing",
        (DEVICES,),
        {"device_id": "kitchen_speaker"},
        lambda c, w: c["item"]["title"] == "Blue Hour" and c["status"] == "playing",
    ),
    ("pause_media", (DEVICES,), {"device_id": "kitchen_speaker"}, lambda c, w: c["status"] == "paused"),
    (
        "resume_media",
        (DEVICES, ("set_power", {"device_id": "bedroom_speaker", "on": True})),
        {"device_id": "bedroom_speaker"},
        lambda c, w: _playback(w, "bedroom_speaker")["status"] == "playing",
    ),
    ("next_track", (DEVICES,), {"device_id": "kitchen_speaker"}, lambda c, w: c["item"]["title"] == "Rain on Soho"),
    (
        "previous_track",
        (DEVICES, ("next_track", {"device_id": "kitchen_speaker"})),
        {"device_id": "kitchen_speaker"},
        lambda c, w: c["position"] == 1,
    ),
    ("set_shuffle", (DEVICES,), {"device_id": "kitchen_speaker", "on": True}, lambda c, w: c["shuffle"] is True),
    ("set_repeat", (DEVICES,), {"device_id": "kitchen_speaker", "mode": "all"}, lambda c, w: c["repeat"] == "all"),
    (
        "set_media_volume",
        (DEVICES,),
        {"device_id": "kitchen_speaker", "level": 55},
        lambda c, w: c["volume"] == 55 and w.state.get("devices", "kitchen_speaker")["volume"] == 55,
    ),
    ("list_playlists", (), {}, lambda c, w: len(c["playlists"]) == 4),
    (
        "get_playlist",
        (PLAYLISTS,),
        {"playlist_id": "pl_dinner_party"},
        lambda c, w: [t["item_id"] for t in c["tracks"]] == ["song_late_train", "song_glass_harbour"],
    ),
    (
        "create_playlist",
        (_search("kettle"),),
        {"name": "Sunday Morning", "track_ids": ["song_kettle_on"]},
        lambda c, w: (
            c["playlist_id"] == "playlist-0001"
            and w.state.get("playlists", "playlist-0001")["track_ids"] == ["song_kettle_on"]
        ),
    ),
    (
        "add_to_playlist",
        (PLAYLISTS, _search("paper crowns")),
        {"playlist_id": "pl_road_trip", "item_id": "song_paper_crowns"},
        lambda c, w: [t["item_id"] for t in c["tracks"]] == ["song_paper_crowns"],
    ),
    (
        "remove_from_playlist",
        (PLAYLISTS, ("get_playlist", {"playlist_id": "pl_dinner_party"})),
        {"playlist_id": "pl_dinner_party", "item_id": "song_late_train"},
        lambda c, w: w.state.get("playlists", "pl_dinner_party")["track_ids"] == ["song_glass_harbour"],
    ),
    (
        "play_playlist",
        (PLAYLISTS, DEVICES, ("set_power", {"device_id": "living_tv", "on": True})),
        {"device_id": "living_tv", "playlist_id": "pl_morning_run"},
        lambda c, w: (
            c["item"]["title"] == "Summer Static" and _playback(w, "living_tv")["source_id"] == "pl_morning_run"
        ),
    ),
]

FAILURE: list[tuple[str, tuple[Step, ...], dict[str, Any], str]] = [
    ("search_media", (), {}, "empty_search"),
    ("get_media_details", (), {"item_id": "movie_long_orbit"}, "not_looked_up"),
    (
        "play_media",
        (_search("night bus"), DEVICES),
        {"device_id": "living_speaker", "item_id": "song_night_bus"},
        "device_off",
    ),
    (
        "play_media",
        (_search("orbit"), DEVICES),
        {"device_id": "kitchen_speaker", "item_id": "movie_long_orbit"},
        "needs_screen",
    ),
    ("play_media", (DEVICES,), {"device_id": "kitchen_speaker", "item_id": "song_made_up"}, "unknown_media"),
    ("get_now_playing", (DEVICES,), {"device_id": "living_tv"}, "nothing_playing"),
    ("pause_media", (DEVICES,), {"device_id": "bedroom_speaker"}, "already_paused"),
    ("resume_media", (DEVICES,), {"device_id": "bedroom_speaker"}, "device_off"),
    ("resume_media", (DEVICES,), {"device_id": "kitchen_speaker"}, "already_playing"),
    ("next_track", (DEVICES,), {"device_id": "bedroom_speaker"}, "end_of_queue"),
    ("previous_track", (DEVICES,), {"device_id": "living_tv"}, "nothing_playing"),
    ("set_shuffle", (), {"device_id": "kitchen_speaker", "on": True}, "not_looked_up"),
    ("set_repeat", (DEVICES,), {"device_id": "kitchen_speaker", "mode": "forever"}, "invalid_value"),
    ("set_media_volume", (DEVICES,), {"device_id": "bedroom_speaker", "level": 30}, "device_off"),
    ("list_playlists", (), {"owner": "sam"}, "unexpected_argument"),
    ("get_playlist", (), {"playlist_id": "pl_dinner_party"}, "not_looked_up"),
    ("create_playlist", (), {"name": "morning run"}, "duplicate_playlist"),
    (
        "create_playlist",
        (_search("city of brass"),),
        {"name": "Brass", "track_ids": ["album_city_of_brass"]},
        "not_a_song",
    ),
    (
        "add_to_playlist",
        (PLAYLISTS, _search("night bus")),
        {"playlist_id": "pl_morning_run", "item_id": "song_night_bus"},
        "already_in_playlist",
    ),
    (
        "remove_from_playlist",
        (PLAYLISTS, _search("night bus")),
        {"playlist_id": "pl_dinner_party", "item_id": "song_night_bus"},
        "not_in_playlist",
    ),
    (
        "play_playlist",
        (PLAYLISTS, DEVICES),
        {"device_id": "kitchen_speaker", "playlist_id": "pl_road_trip"},
        "empty_playlist",
    ),
]


@pytest.mark.parametrize(("tool", "steps", "arguments", "check"), SUCCESS, ids=[r[0] for r in SUCCESS])
async def test_success_path(tool: str, steps: tuple[Step, ...], arguments: dict[str, Any], check: Any) -> None:
    world = await _world(*steps)
    before = world.state_hash()
    result = await _call(world, tool, **arguments)
    assert result.ok, result.content
    assert check(result.content, world), result.content
    spec = next(s for s in world.specs() if s.name == tool)
    assert (world.state_hash() == before) == spec.read_only


@pytest.mark.parametrize(("tool", "steps", "arguments", "code"), FAILURE, ids=[f"{r[0]}-{r[3]}" for r in FAILURE])
async def test_failure_path_changes_nothing(
    tool: str, steps: tuple[Step, ...], arguments: dict[str, Any], code: str
) -> None:
    world = await _world(*steps)
    before = world.state_hash()
    result = await _call(world, tool, **arguments)
    assert not result.ok and result.error_code == code, result.content
    assert world.state_hash() == before


def test_every_media_tool_has_both_paths_tested() -> None:
    media = {name for name, tool in PACK.toolkit.tools.items() if tool.domain == "media"}
    assert len(media) >= 13
    assert {r[0] for r in SUCCESS} == media
    assert {r[0] for r in FAILURE} == media


async def test_album_queue_and_repeat_all_wraps_around() -> None:
    world = await _world(_search("city of brass", type="album"), DEVICES)
    assert (await _call(world, "play_media", device_id="kitchen_speaker", item_id="album_city_of_brass")).ok
    for _ in range(2):
        assert (await _call(world, "next_track", device_id="kitchen_speaker")).ok
    assert (await _call(world, "next_track", device_id="kitchen_speaker")).error_code == "end_of_queue"
    assert (await _call(world, "set_repeat", device_id="kitchen_speaker", mode="all")).ok
    wrapped = await _call(world, "next_track", device_id="kitchen_speaker")
    assert wrapped.content["item"]["item_id"] == "song_city_of_brass"


async def test_now_playing_without_device_lists_every_session() -> None:
    world = await _world()
    result = await _call(world, "get_now_playing")
    assert {s["device_id"] for s in result.content["playing"]} == {"kitchen_speaker", "bedroom_speaker"}


@pytest.mark.parametrize("primitive", PRIMITIVES, ids=[p.__name__ for p in PRIMITIVES])
async def test_primitives_execute_on_fresh_worlds(primitive: Any) -> None:
    produced = 0
    for seed in range(25):
        world = PACK.new_world(0)
        snapshot = world.snapshot()
        intent = primitive(world.state, random.Random(seed), None)
        assert world.snapshot() == snapshot, "a primitive must not change the state"
        if intent is None:
            continue
        produced += 1
        await check_intent(world, intent)
    assert produced, "the seed data offers this primitive no variation"


async def test_primitive_chains_with_follow_ups() -> None:
    """Many intents in one world, each offered the previous focus: later states (new playlists, paused or
    wrapped queues) stay valid for every primitive."""
    for seed in range(12):
        rng = random.Random(seed)
        world = PACK.new_world(0)
        focus: Focus | None = None
        for _ in range(14):
            intent = rng.choice(PRIMITIVES)(world.state, rng, focus)
            if intent is None:
                continue
            await check_intent(world, intent)
            focus = intent.focus
