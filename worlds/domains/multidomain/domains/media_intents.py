"""Media intent primitives (see ``intents.py`` for the contract). Playback intents are about a device (so a
later turn can say "pause it"), playlist intents about a playlist, questions answer from the real results."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from sim.core import GoldCall
from worlds.domains.multidomain.gold_calls import core, lookup_if_unknown, support
from worlds.domains.multidomain.intents import Answer, Focus, Intent, Primitive, pick_focus
from worlds.domains.multidomain.state import WorldState
from worlds.domains.multidomain.wording import EntityIntents, said

NEW_PLAYLIST_NAMES = ("Sunday Morning", "Workout Mix", "Rainy Day", "Kitchen Disco", "Study Session", "Summer 2026")


def _device_focus(state: WorldState, device_id: str) -> Focus:
    return Focus(key=f"device:{device_id}", name=str(state.row("devices", device_id)["name"]))


def _find_device(state: WorldState, device_id: str) -> list[GoldCall]:
    return lookup_if_unknown(state, "device", device_id, support("list_media_devices"))


_on_device = EntityIntents("media", _find_device, _device_focus)


def _power_on(state: WorldState, device_id: str) -> list[GoldCall]:
    on = state.row("devices", device_id)["power"]
    return [] if on else [core("set_power", device_id=device_id, on=True)]


def _find_item(state: WorldState, item_id: str) -> list[GoldCall]:
    row = state.row("media_catalog", item_id)
    return lookup_if_unknown(state, "media", item_id, support("search_media", query=row["title"], type=row["type"]))


def _find_playlist(state: WorldState, playlist_id: str) -> list[GoldCall]:
    return lookup_if_unknown(state, "playlist", playlist_id, support("list_playlists"))


def _media_devices(state: WorldState, *types: str) -> list[str]:
    return [key for key, row in state.rows("devices") if row["type"] in (types or ("speaker", "tv"))]


def _sessions(state: WorldState, status: str | None = None) -> list[str]:
    return [key for key, row in state.rows("playback") if status is None or row["status"] == status]


def _label(row: Any) -> str:
    """How a user names an item: 'the album Northern Lights', 'the podcast The Daily Brief'."""
    return f"the {row['type']} {row['title']}"


def play_item(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    device_id = pick_focus(state, focus, "device", _media_devices(state), rng)
    device = state.row("devices", device_id)
    session = state.get("playback", device_id)
    playable = [
        key
        for key, row in state.rows("media_catalog")
        if (row["type"] != "movie" or device["type"] == "tv") and (session is None or session["source_id"] != key)
    ]
    item_id = rng.choice(playable)
    label = _label(state.row("media_catalog", item_id))
    name = device["name"]
    calls = (
        *_find_item(state, item_id),
        *_find_device(state, device_id),
        *_power_on(state, device_id),
        core("play_media", device_id=device_id, item_id=item_id),
    )
    return said("media.play_item", calls, _device_focus(state, device_id), label=label, name=name)


def play_playlist(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    device_id = pick_focus(state, focus, "device", _media_devices(state), rng)
    session = state.get("playback", device_id)
    playlists = [
        (key, row)
        for key, row in state.rows("playlists")
        if row["track_ids"] and (session is None or session["source_id"] != key)
    ]
    if not playlists:
        return None
    playlist_id, playlist = rng.choice(playlists)
    name, title = state.row("devices", device_id)["name"], playlist["name"]
    calls = (
        *_find_playlist(state, playlist_id),
        *_find_device(state, device_id),
        *_power_on(state, device_id),
        core("play_playlist", device_id=device_id, playlist_id=playlist_id),
    )
    return said("media.play_playlist", calls, _device_focus(state, device_id), title=title, name=name)


def _session_change(
    state: WorldState, rng: random.Random, focus: Focus | None, devices: list[str], change: tuple[str, str, bool]
) -> Intent | None:
    """``change`` (primitive, tool, switch on first) to the playback on one of ``devices``; None without one."""
    if not devices:
        return None
    primitive, tool, power = change
    device_id = pick_focus(state, focus, "device", devices, rng)
    name = state.row("devices", device_id)["name"]
    before = _power_on(state, device_id) if power else []
    return _on_device(state, device_id, primitive, *before, core(tool, device_id=device_id), name=name)


def pause_playback(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    return _session_change(state, rng, focus, _sessions(state, "playing"), ("pause_playback", "pause_media", False))


def resume_playback(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    return _session_change(state, rng, focus, _sessions(state, "paused"), ("resume_playback", "resume_media", True))


def skip_track(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    more = [key for key, row in state.rows("playback") if row["index"] + 1 < len(row["queue"])]
    return _session_change(state, rng, focus, more, ("skip_track", "next_track", False))


def music_volume(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    """The media tool or home's set_volume: both set the same device volume."""
    sessions = _sessions(state)
    if not sessions:
        return None
    device_id = pick_focus(state, focus, "device", sessions, rng)
    level = rng.choice([v for v in (15, 25, 35, 50, 65) if v != state.row("devices", device_id)["volume"]])
    name = state.row("devices", device_id)["name"]
    before = (*_find_device(state, device_id), *_power_on(state, device_id))
    calls = (*before, core("set_media_volume", device_id=device_id, level=level))
    paths = ((*before, core("set_volume", device_id=device_id, level=level)),)
    return said(
        "media.music_volume", calls, _device_focus(state, device_id), alternatives=paths, name=name, level=level
    )


def repeat_mode(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    sessions = _sessions(state)
    if not sessions:
        return None
    device_id = pick_focus(state, focus, "device", sessions, rng)
    mode = rng.choice([m for m in ("one", "all", "off") if m != state.row("playback", device_id)["repeat"]])
    words = {"one": "repeat the current track", "all": "repeat the whole queue", "off": "stop repeating"}[mode]
    name = state.row("devices", device_id)["name"]
    act = core("set_repeat", device_id=device_id, mode=mode)
    return _on_device(state, device_id, "repeat_mode", act, name=name, words=words, mode=mode)


def new_playlist(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    """One call with the songs, or create-then-add: the same playlist row either way."""
    taken = {row["name"].lower() for _, row in state.rows("playlists")}
    names = [n for n in NEW_PLAYLIST_NAMES if n.lower() not in taken]
    if not names:
        return None
    name = rng.choice(names)
    songs = rng.sample([key for key, row in state.rows("media_catalog") if row["type"] == "song"], rng.choice((1, 2)))
    playlist_id = f"playlist-{sum(1 for key, _ in state.rows('playlists') if key.startswith('playlist-')) + 1:04d}"
    lookups = [call for song in songs for call in _find_item(state, song)]
    titles = " and ".join(state.row("media_catalog", s)["title"] for s in songs)
    calls = (*lookups, GoldCall(name="create_playlist", arguments={"name": name, "track_ids": songs}))
    paths = (
        (
            *lookups,
            GoldCall(name="create_playlist", arguments={"name": name}),
            *(core("add_to_playlist", playlist_id=playlist_id, item_id=s) for s in songs),
        ),
    )
    return said(
        "media.new_playlist",
        calls,
        Focus(key=f"playlist:{playlist_id}", name=name),
        alternatives=paths,
        name=name,
        titles=titles,
    )


def add_song(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    playlist_id = pick_focus(state, focus, "playlist", [key for key, _ in state.rows("playlists")], rng)
    playlist = state.row("playlists", playlist_id)
    songs = [k for k, r in state.rows("media_catalog") if r["type"] == "song" and k not in playlist["track_ids"]]
    song = rng.choice(songs)
    title, name = state.row("media_catalog", song)["title"], playlist["name"]
    calls = (
        *_find_playlist(state, playlist_id),
        *_find_item(state, song),
        core("add_to_playlist", playlist_id=playlist_id, item_id=song),
    )
    return said("media.add_song", calls, Focus(key=f"playlist:{playlist_id}", name=name), title=title, name=name)


def remove_song(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    filled = [key for key, row in state.rows("playlists") if row["track_ids"]]
    if not filled:
        return None
    playlist_id = pick_focus(state, focus, "playlist", filled, rng)
    playlist = state.row("playlists", playlist_id)
    song = rng.choice(list(playlist["track_ids"]))
    title, name = state.row("media_catalog", song)["title"], playlist["name"]
    calls = (
        *_find_playlist(state, playlist_id),
        *lookup_if_unknown(state, "media", song, support("get_playlist", playlist_id=playlist_id)),
        core("remove_from_playlist", playlist_id=playlist_id, item_id=song),
    )
    return said("media.remove_song", calls, Focus(key=f"playlist:{playlist_id}", name=name), title=title, name=name)


def _now_playing_answer(results: Sequence[Any]) -> str:
    last = results[-1]
    sessions = last.get("playing", [last])
    return " ".join(f"The {s['device']} is {s['status']}: {s['item']['title']} by {s['item']['by']}." for s in sessions)


def ask_now_playing(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    sessions = _sessions(state)
    if not sessions:
        return None
    device_id = pick_focus(state, focus, "device", sessions, rng)
    name = state.row("devices", device_id)["name"]
    act = core("get_now_playing", device_id=device_id)
    return _on_device(
        state,
        device_id,
        "ask_now_playing",
        act,
        answer=_device_answer(device_id),
        alternatives=((core("get_now_playing"),),),
        name=name,
    )


def _device_answer(device_id: str) -> Answer:
    def answer(results: Sequence[Any]) -> str:
        last = results[-1]
        sessions = [s for s in last.get("playing", [last]) if s["device_id"] == device_id]
        return _now_playing_answer([{"playing": sessions}])

    return answer


def _info_answer(results: Sequence[Any]) -> str:
    item = results[-1]
    if item["type"] == "movie":
        minutes, director = item["duration_min"], item["director"]
        return f"{item['title']} ({item['year']}) runs {minutes} minutes and was directed by {director}."
    if item["type"] == "album":
        tracks = ", ".join(t["title"] for t in item["tracks"])
        return f"{item['title']} by {item['artist']} has {len(item['tracks'])} tracks: {tracks}."
    return f"The latest episode of {item['title']} is '{item['latest_episode']}' ({item['duration_min']} minutes)."


def ask_media_info(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    items = [key for key, row in state.rows("media_catalog") if row["type"] in ("movie", "album", "podcast")]
    item_id = pick_focus(state, focus, "media", items, rng)
    row = state.row("media_catalog", item_id)
    title = row["title"]
    question, pronoun = {
        "movie": (
            f"How long is the movie {title}, and who directed it?",
            "How long is that movie, and who directed it?",
        ),
        "album": (f"What tracks are on the album {title}?", "What tracks are on that album?"),
        "podcast": (f"What's the latest episode of the podcast {title}?", "What's its latest episode?"),
    }[row["type"]]
    calls = (*_find_item(state, item_id), core("get_media_details", item_id=item_id))
    about, label = Focus(key=f"media:{item_id}", name=title), _label(row)
    return said("media.ask_media_info", calls, about, _info_answer, question=question, pronoun=pronoun, label=label)


def _playlist_answer(results: Sequence[Any]) -> str:
    playlist = results[-1]
    if not playlist["tracks"]:
        return f"Your {playlist['name']} playlist is empty."
    songs = "; ".join(f"{t['title']} by {t['by']}" for t in playlist["tracks"])
    return f"Your {playlist['name']} playlist has {len(playlist['tracks'])} songs: {songs}."


def ask_playlist(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    playlist_id = pick_focus(state, focus, "playlist", [key for key, _ in state.rows("playlists")], rng)
    name = state.row("playlists", playlist_id)["name"]
    calls = (*_find_playlist(state, playlist_id), core("get_playlist", playlist_id=playlist_id))
    return said(
        "media.ask_playlist", calls, Focus(key=f"playlist:{playlist_id}", name=name), _playlist_answer, name=name
    )


PRIMITIVES: tuple[Primitive, ...] = (
    play_item,
    play_playlist,
    pause_playback,
    resume_playback,
    skip_track,
    music_volume,
    repeat_mode,
    new_playlist,
    add_song,
    remove_song,
    ask_now_playing,
    ask_media_info,
    ask_playlist,
)
