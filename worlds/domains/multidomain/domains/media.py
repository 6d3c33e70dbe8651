"""Media: a catalogue of songs, albums, movies and podcasts, playback on the home's speakers and TVs, and
playlists. Tables: ``media_catalog``, ``playlists``, ``playback`` (data/media.json; ``playback`` is keyed by
the home's device id). Playback targets are home ``devices``: found by list_media_devices, powered on by
set_power, which is the cross-domain edge of the dependency graph."""

from __future__ import annotations

from typing import Any

from worlds.common.errors import ToolError
from worlds.common.tables import Row
from worlds.common.toolbook import action, array, boolean, integer, lookup, optional, string
from worlds.domains.multidomain.state import WorldState

DOMAIN = "media"
TABLES = ("media_catalog", "playlists", "playback")
POLICY = """Media: item ids come from search_media (or get_media_details / get_playlist), playlist ids from
list_playlists, playback device ids from list_media_devices. The device must be switched on (set_power) before
anything plays on it; movies need a TV. Pause, resume, skip, shuffle, repeat and media volume act on what is
already playing on a device. Playlists hold songs only."""

MEDIA_TYPES = ("song", "album", "movie", "podcast")
REPEAT_MODES = ("off", "one", "all")
SEARCH = "search_media"
DEVICES = "list_media_devices"
PLAYLISTS = "list_playlists"

ITEM_ID = string("Media item id from search_media, e.g. 'song_night_bus'.")
DEVICE_ID = string("Speaker or TV id from list_media_devices, e.g. 'kitchen_speaker'.")
PLAYLIST_ID = string("Playlist id from list_playlists, e.g. 'pl_morning_run'.")


def _creator(row: Row) -> str:
    return str(row.get("artist") or row.get("director") or row.get("host") or "")


def _summary(key: str, row: Row) -> dict[str, Any]:
    return {"item_id": key, "type": row["type"], "title": row["title"], "by": _creator(row), "genre": row["genre"]}


def _item(state: WorldState, item_id: str) -> Row:
    return state.require("media_catalog", item_id, "media", SEARCH)


def _song(state: WorldState, item_id: str) -> Row:
    row = _item(state, item_id)
    if row["type"] != "song":
        raise ToolError(
            "invalid_arguments", "not_a_song", f"'{row['title']}' is a {row['type']}; playlists hold songs."
        )
    return row


def _device(state: WorldState, device_id: str, needs_screen: bool = False) -> Row:
    """A media device that is on: the home domain owns it, so powering it is the agent's set_power call."""
    row = state.require("devices", device_id, "device", DEVICES)
    if row["type"] not in ("speaker", "tv"):
        raise ToolError("invalid_arguments", "not_media_device", f"The {row['name']} cannot play media; use {DEVICES}.")
    if needs_screen and row["type"] != "tv":
        raise ToolError("invalid_arguments", "needs_screen", f"Movies need a TV; the {row['name']} is a speaker.")
    if not row["power"]:
        raise ToolError("failed", "device_off", f"The {row['name']} is off. Switch it on with set_power first.")
    return row


def _session(state: WorldState, device_id: str, needs_power: bool = False) -> tuple[Row, Row]:
    device = state.require("devices", device_id, "device", DEVICES)
    session = state.get("playback", device_id)
    if session is None:
        raise ToolError(
            "failed",
            "nothing_playing",
            f"Nothing is playing on the {device['name']}. Start it with play_media or play_playlist.",
        )
    if needs_power and not device["power"]:
        raise ToolError("failed", "device_off", f"The {device['name']} is off. Switch it on with set_power first.")
    return device, session


def _now_playing(state: WorldState, device_id: str, session: Row) -> dict[str, Any]:
    device = state.get("devices", device_id)
    assert device is not None
    item_id = session["queue"][session["index"]]
    return {
        "device_id": device_id,
        "device": device["name"],
        "status": session["status"],
        "item": _summary(item_id, _catalog(state, item_id)),
        "position": session["index"] + 1,
        "queue_length": len(session["queue"]),
        "source_id": session["source_id"],
        "shuffle": session["shuffle"],
        "repeat": session["repeat"],
        "volume": device.get("volume"),
    }


def _catalog(state: WorldState, item_id: str) -> Row:
    row = state.get("media_catalog", item_id)
    assert row is not None
    return row


def _start(state: WorldState, device_id: str, source_id: str, queue: list[str]) -> dict[str, Any]:
    session = {
        "source_id": source_id,
        "queue": queue,
        "index": 0,
        "status": "playing",
        "shuffle": False,
        "repeat": "off",
        "started_at": state.now,
    }
    state.put("playback", device_id, session)
    state.reveal("media", *queue)
    return _now_playing(state, device_id, session)


@lookup(
    "Search the media catalogue by words of the title or artist/director/host, and/or by type or genre. "
    "Returns item ids; call this before playing or adding an item.",
    query=optional(string("Words of the title or creator, e.g. 'night bus'.")),
    type=optional(string("Media type.", enum=MEDIA_TYPES)),
    genre=optional(string("Genre, e.g. 'jazz'.")),
)
def search_media(
    state: WorldState, query: str | None = None, type: str | None = None, genre: str | None = None
) -> dict[str, Any]:
    if not (query or type or genre):
        raise ToolError("invalid_arguments", "empty_search", "Give a query, a type or a genre to search for.")
    words = (query or "").lower().split()
    found = [
        _summary(key, row)
        for key, row in state.rows("media_catalog")
        if (type is None or row["type"] == type)
        and (genre is None or row["genre"].lower() == genre.lower())
        and all(w in f"{row['title']} {_creator(row)}".lower() for w in words)
    ]
    state.reveal("media", *(f["item_id"] for f in found))
    return {"results": found}


@lookup("Full details of a media item (an album lists its tracks with their ids).", requires=(SEARCH,), item_id=ITEM_ID)
def get_media_details(state: WorldState, item_id: str) -> dict[str, Any]:
    row = _item(state, item_id)
    details: dict[str, Any] = {"item_id": item_id, **{k: v for k, v in row.items() if k != "track_ids"}}
    if row["type"] == "album":
        details["tracks"] = [_summary(t, _catalog(state, t)) for t in row["track_ids"]]
        state.reveal("media", *row["track_ids"])
    return details


@action(
    "Play a song, album, podcast or movie on a speaker or TV (movies need a TV). The device must be on.",
    requires=(SEARCH, DEVICES, "set_power"),
    device_id=DEVICE_ID,
    item_id=ITEM_ID,
)
def play_media(state: WorldState, device_id: str, item_id: str) -> dict[str, Any]:
    row = _item(state, item_id)
    _device(state, device_id, needs_screen=row["type"] == "movie")
    queue = list(row["track_ids"]) if row["type"] == "album" else [item_id]
    return _start(state, device_id, item_id, queue)


@lookup(
    "What is playing on a media device, or on every device when no device_id is given.",
    device_id=optional(string("Speaker or TV id from list_media_devices; omit for all devices.")),
)
def get_now_playing(state: WorldState, device_id: str | None = None) -> dict[str, Any]:
    if device_id is not None:
        _, session = _session(state, device_id)
        return _now_playing(state, device_id, session)
    sessions = [_now_playing(state, key, row) for key, row in state.rows("playback")]
    state.reveal("device", *(s["device_id"] for s in sessions))
    return {"playing": sessions}


@action("Pause what is playing on a device.", requires=("play_media",), device_id=DEVICE_ID)
def pause_media(state: WorldState, device_id: str) -> dict[str, Any]:
    device, session = _session(state, device_id)
    if session["status"] != "playing":
        raise ToolError("failed", "already_paused", f"Playback on the {device['name']} is already paused.")
    return _now_playing(state, device_id, state.update("playback", device_id, status="paused"))


@action(
    "Resume paused playback on a device. The device must be on.",
    requires=("play_media", "set_power"),
    device_id=DEVICE_ID,
)
def resume_media(state: WorldState, device_id: str) -> dict[str, Any]:
    device, session = _session(state, device_id, needs_power=True)
    if session["status"] == "playing":
        raise ToolError("failed", "already_playing", f"The {device['name']} is already playing.")
    return _now_playing(state, device_id, state.update("playback", device_id, status="playing"))


@action("Skip to the next item of the device's queue.", requires=("play_media",), device_id=DEVICE_ID)
def next_track(state: WorldState, device_id: str) -> dict[str, Any]:
    device, session = _session(state, device_id)
    index = session["index"] + 1
    if index >= len(session["queue"]):
        if session["repeat"] != "all":
            raise ToolError(
                "failed",
                "end_of_queue",
                f"The {device['name']} is on the last item; set repeat to 'all' to wrap around.",
            )
        index = 0
    return _now_playing(state, device_id, state.update("playback", device_id, index=index))


@action(
    "Go back to the previous item of the device's queue (the first item restarts).",
    requires=("play_media",),
    device_id=DEVICE_ID,
)
def previous_track(state: WorldState, device_id: str) -> dict[str, Any]:
    _, session = _session(state, device_id)
    index = session["index"] - 1
    if index < 0:
        index = len(session["queue"]) - 1 if session["repeat"] == "all" else 0
    return _now_playing(state, device_id, state.update("playback", device_id, index=index))


@action(
    "Turn shuffle on or off for what is playing on a device.",
    requires=("play_media",),
    device_id=DEVICE_ID,
    on=boolean("True for shuffle on."),
)
def set_shuffle(state: WorldState, device_id: str, on: bool) -> dict[str, Any]:
    _session(state, device_id)
    return _now_playing(state, device_id, state.update("playback", device_id, shuffle=on))


@action(
    "Set repeat for what is playing on a device: off, one (the current item) or all (the whole queue).",
    requires=("play_media",),
    device_id=DEVICE_ID,
    mode=string("Repeat mode.", enum=REPEAT_MODES),
)
def set_repeat(state: WorldState, device_id: str, mode: str) -> dict[str, Any]:
    _session(state, device_id)
    return _now_playing(state, device_id, state.update("playback", device_id, repeat=mode))


@action(
    "Set the playback volume (percent) of a device that is playing; the same level as home's set_volume. "
    "The device must be on.",
    requires=("play_media", "set_power"),
    device_id=DEVICE_ID,
    level=integer("Volume, percent.", 0, 100),
)
def set_media_volume(state: WorldState, device_id: str, level: int) -> dict[str, Any]:
    _, session = _session(state, device_id, needs_power=True)
    state.update("devices", device_id, volume=level)
    return _now_playing(state, device_id, session)


def _playlist(state: WorldState, playlist_id: str) -> Row:
    return state.require("playlists", playlist_id, "playlist", PLAYLISTS)


def _playlist_view(state: WorldState, playlist_id: str, row: Row) -> dict[str, Any]:
    tracks = [_summary(t, _catalog(state, t)) for t in row["track_ids"]]
    return {"playlist_id": playlist_id, "name": row["name"], "tracks": tracks, "created_at": row["created_at"]}


@lookup("List the user's playlists with their ids and track counts.")
def list_playlists(state: WorldState) -> dict[str, Any]:
    found = [
        {"playlist_id": key, "name": row["name"], "track_count": len(row["track_ids"])}
        for key, row in state.rows("playlists")
    ]
    state.reveal("playlist", *(p["playlist_id"] for p in found))
    return {"playlists": found}


@lookup("A playlist's tracks, in order, with their item ids.", requires=(PLAYLISTS,), playlist_id=PLAYLIST_ID)
def get_playlist(state: WorldState, playlist_id: str) -> dict[str, Any]:
    row = _playlist(state, playlist_id)
    state.reveal("media", *row["track_ids"])
    return _playlist_view(state, playlist_id, row)


@action(
    "Create a playlist, optionally with songs (ids from search_media). Names must be unique. Returns its id.",
    name=string("Playlist name."),
    track_ids=optional(array("Song ids from search_media, in order.", string("Song id."))),
)
def create_playlist(state: WorldState, name: str, track_ids: list[str] | None = None) -> dict[str, Any]:
    name = name.strip()
    if not name:
        raise ToolError("invalid_arguments", "empty_name", "Give the playlist a name.")
    clash = next((key for key, row in state.rows("playlists") if row["name"].lower() == name.lower()), None)
    if clash is not None:
        raise ToolError("failed", "duplicate_playlist", f"A playlist named '{name}' already exists ({clash}).")
    tracks = list(track_ids or [])
    for track in tracks:
        _song(state, track)
    if len(set(tracks)) != len(tracks):
        raise ToolError("invalid_arguments", "duplicate_track", "A song appears twice in track_ids.")
    playlist_id = state.new_id("playlist")
    row = {"name": name, "track_ids": tracks, "created_at": state.now}
    state.put("playlists", playlist_id, row)
    state.reveal("playlist", playlist_id)
    return _playlist_view(state, playlist_id, row)


@action(
    "Add a song to the end of a playlist.",
    requires=(PLAYLISTS, SEARCH),
    playlist_id=PLAYLIST_ID,
    item_id=string("Song id from search_media."),
)
def add_to_playlist(state: WorldState, playlist_id: str, item_id: str) -> dict[str, Any]:
    row = _playlist(state, playlist_id)
    song = _song(state, item_id)
    if item_id in row["track_ids"]:
        raise ToolError("failed", "already_in_playlist", f"'{song['title']}' is already in {row['name']}.")
    new = state.update("playlists", playlist_id, track_ids=[*row["track_ids"], item_id])
    return _playlist_view(state, playlist_id, new)


@action(
    "Remove a song from a playlist.",
    requires=("get_playlist",),
    playlist_id=PLAYLIST_ID,
    item_id=string("Song id from get_playlist or search_media."),
)
def remove_from_playlist(state: WorldState, playlist_id: str, item_id: str) -> dict[str, Any]:
    row = _playlist(state, playlist_id)
    song = _item(state, item_id)
    if item_id not in row["track_ids"]:
        raise ToolError("failed", "not_in_playlist", f"'{song['title']}' is not in {row['name']}; see get_playlist.")
    new = state.update("playlists", playlist_id, track_ids=[t for t in row["track_ids"] if t != item_id])
    return _playlist_view(state, playlist_id, new)


@action(
    "Play a playlist from its first song on a speaker or TV. The device must be on; the playlist must not be empty.",
    requires=(PLAYLISTS, DEVICES, "set_power"),
    device_id=DEVICE_ID,
    playlist_id=PLAYLIST_ID,
)
def play_playlist(state: WorldState, device_id: str, playlist_id: str) -> dict[str, Any]:
    row = _playlist(state, playlist_id)
    _device(state, device_id)
    if not row["track_ids"]:
        raise ToolError("failed", "empty_playlist", f"{row['name']} has no songs yet; add some with add_to_playlist.")
    return _start(state, device_id, playlist_id, list(row["track_ids"]))
