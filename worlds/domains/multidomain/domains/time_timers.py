"""Notifications and timers, in the time domain. The clock is frozen, so a timer's remaining time is measured
from ``state.now``: a timer whose end has passed is finished and can no longer be cancelled or extended."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from worlds.common.errors import ToolError
from worlds.common.tables import Row
from worlds.common.toolbook import action, integer, lookup, optional, string
from worlds.domains.multidomain.domains.time import now
from worlds.domains.multidomain.state import WorldState

TIMER_ID = string("Timer id from list_timers.")
NOTIFICATION_ID = string("Notification id from list_notifications.")


# notifications -----------------------------------------------------------------------------------------


def _apps(state: WorldState) -> list[str]:
    return sorted({str(r["app"]) for _, r in state.rows("notifications")})


def _check_app(state: WorldState, app: str | None) -> None:
    if app is not None and app not in _apps(state):
        raise ToolError(
            "not_found", "unknown_app", f"No notifications come from '{app}'. Apps: {', '.join(_apps(state))}."
        )


def _active(state: WorldState, app: str | None) -> list[tuple[str, Row]]:
    found = [(k, r) for k, r in state.rows("notifications") if not r["dismissed"] and app in (None, r["app"])]
    return sorted(found, key=lambda kr: (kr[1]["received_at"], kr[0]), reverse=True)


@lookup(
    "The notifications not yet dismissed, newest first, with ids, app, title and text.",
    app=optional(string("Only this app's notifications, e.g. 'Messages' or 'News'.")),
)
def list_notifications(state: WorldState, app: str | None = None) -> dict[str, Any]:
    _check_app(state, app)
    found = [{"notification_id": k, **r} for k, r in _active(state, app)]
    state.reveal("notification", *(n["notification_id"] for n in found))
    return {"notifications": found}


@action("Dismiss one notification.", requires=("list_notifications",), notification_id=NOTIFICATION_ID)
def dismiss_notification(state: WorldState, notification_id: str) -> dict[str, Any]:
    row = state.require("notifications", notification_id, "notification", "list_notifications")
    if row["dismissed"]:
        raise ToolError("failed", "already_dismissed", f"The notification '{row['title']}' is already dismissed.")
    state.update("notifications", notification_id, dismissed=True)
    return {"dismissed": [notification_id]}


@action(
    "Dismiss every notification not yet dismissed, or only one app's; no ids needed.",
    app=optional(string("Only this app's notifications, e.g. 'News'.")),
)
def dismiss_all_notifications(state: WorldState, app: str | None = None) -> dict[str, Any]:
    _check_app(state, app)
    keys = [k for k, _ in _active(state, app)]
    for key in keys:
        state.update("notifications", key, dismissed=True)
    return {"dismissed": keys}


# timers ----------------------------------------------------------------------------------------------


def _status(state: WorldState, row: Row) -> str:
    if row["status"] == "running" and datetime.fromisoformat(row["ends_at"]) <= now(state):
        return "finished"
    return str(row["status"])


def _timer(state: WorldState, key: str, row: Row) -> dict[str, Any]:
    status = _status(state, row)
    left = (datetime.fromisoformat(row["ends_at"]) - now(state)).total_seconds()
    return {
        "timer_id": key,
        "label": row["label"],
        "duration_seconds": row["duration_seconds"],
        "started_at": row["started_at"],
        "ends_at": row["ends_at"],
        "status": status,
        "remaining_seconds": int(left) if status == "running" else 0,
    }


def _running(state: WorldState, timer_id: str) -> Row:
    row = state.require("timers", timer_id, "timer", "list_timers")
    status = _status(state, row)
    if status != "running":
        raise ToolError("failed", f"timer_{status}", f"The '{row['label']}' timer is {status}, not running.")
    return row


@action(
    "Start a countdown timer. Two running timers may not share a label.",
    duration_seconds=integer("Length in seconds, e.g. 600 for 10 minutes.", 1, 86400),
    label=optional(string("Name, e.g. 'pasta' (default 'timer').")),
)
def start_timer(state: WorldState, duration_seconds: int, label: str = "timer") -> dict[str, Any]:
    clash = next((k for k, r in state.rows("timers") if r["label"] == label and _status(state, r) == "running"), None)
    if clash is not None:
        raise ToolError(
            "failed", "duplicate_label", f"A '{label}' timer ({clash}) is already running: pick another label."
        )
    start = now(state)
    row = {
        "label": label,
        "duration_seconds": duration_seconds,
        "started_at": start.isoformat(),
        "ends_at": (start + timedelta(seconds=duration_seconds)).isoformat(),
        "status": "running",
    }
    key = state.new_id("timer")
    state.put("timers", key, row)
    state.reveal("timer", key)
    return _timer(state, key, row)


@lookup("Running and finished timers (not cancelled ones), with ids, labels and seconds remaining.")
def list_timers(state: WorldState) -> dict[str, Any]:
    found = [_timer(state, k, r) for k, r in state.rows("timers") if r["status"] != "cancelled"]
    state.reveal("timer", *(t["timer_id"] for t in found))
    return {"timers": found}


@action(
    "Add time to a running timer.",
    requires=("list_timers",),
    timer_id=TIMER_ID,
    seconds=integer("Seconds to add, e.g. 300 for 5 minutes.", 1, 86400),
)
def extend_timer(state: WorldState, timer_id: str, seconds: int) -> dict[str, Any]:
    row = _running(state, timer_id)
    ends = datetime.fromisoformat(row["ends_at"]) + timedelta(seconds=seconds)
    new = state.update("timers", timer_id, ends_at=ends.isoformat(), duration_seconds=row["duration_seconds"] + seconds)
    return _timer(state, timer_id, new)


@action("Cancel a running timer.", requires=("list_timers",), timer_id=TIMER_ID)
def cancel_timer(state: WorldState, timer_id: str) -> dict[str, Any]:
    _running(state, timer_id)
    return _timer(state, timer_id, state.update("timers", timer_id, status="cancelled"))
