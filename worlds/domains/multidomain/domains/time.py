"""Time: the clock, alarms and reminders (a reminder may name a contact as plain text). Notifications and
timers live in ``time_timers``, the same domain. Tables: ``alarms``, ``reminders``, ``notifications``,
``timers`` (data/time.json). All times are local (Europe/London) on the frozen clock."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from worlds.common.errors import ToolError
from worlds.common.tables import Row
from worlds.common.toolbook import action, array, boolean, lookup, optional, string
from worlds.domains.multidomain.state import WorldState

DOMAIN = "time"
TABLES = ("alarms", "reminders", "notifications", "timers")
POLICY = """Time: alarm ids come from list_alarms, reminder ids from list_reminders, notification ids from
list_notifications and timer ids from list_timers; ids not looked up in this session are refused. Times are
local 24-hour times (HH:MM; reminders YYYY-MM-DDTHH:MM) and a reminder's due time must be in the future
(get_current_time gives the date). Two alarms may not share a time and days; only a running timer can be
cancelled or extended."""

TIMEZONE = "Europe/London"
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
SOUNDS = ("chimes", "sunrise", "birdsong", "radar", "classic")
REMINDER_STATUSES = ("pending", "completed", "all")

ALARM_ID = string("Alarm id from list_alarms.")
REMINDER_ID = string("Reminder id from list_reminders.")
TIME = string("Time of day, 24-hour HH:MM, e.g. '06:45'.", pattern=r"^([01][0-9]|2[0-3]):[0-5][0-9]$")
DAYS = array("Weekdays it repeats on; empty for a one-off alarm.", string("Weekday.", enum=WEEKDAYS))
DUE = string(
    "Local date and time, YYYY-MM-DDTHH:MM, e.g. '2026-03-15T18:30'.", pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$"
)


def now(state: WorldState) -> datetime:
    return datetime.fromisoformat(state.now)


def _ordered(days: list[str]) -> list[str]:
    return [d for d in WEEKDAYS if d in days]


def _next_ring(state: WorldState, row: Row) -> str | None:
    """When an enabled alarm next goes off: the first matching day (today included) after the clock."""
    if not row["enabled"]:
        return None
    hour, minute = (int(p) for p in row["time"].split(":"))
    start = now(state)
    for offset in range(8):
        ring = (start + timedelta(days=offset)).replace(hour=hour, minute=minute, second=0)
        if ring > start and (not row["days"] or WEEKDAYS[ring.weekday()] in row["days"]):
            return ring.isoformat(timespec="minutes")
    return None


def _alarm(state: WorldState, key: str, row: Row) -> dict[str, Any]:
    return {
        "alarm_id": key,
        "label": row["label"],
        "time": row["time"],
        "days": list(row["days"]),
        "enabled": row["enabled"],
        "sound": row["sound"],
        "next_ring": _next_ring(state, row),
    }


def _check_clash(state: WorldState, time: str, days: list[str], own: str | None = None) -> None:
    for key, row in state.rows("alarms"):
        if key != own and row["time"] == time and list(row["days"]) == days:
            raise ToolError(
                "failed",
                "duplicate_alarm",
                f"Alarm '{row['label']}' ({key}) already rings at {time} on the same days: "
                "update or enable that one instead.",
            )


@lookup("The current local date, time, weekday and time zone.")
def get_current_time(state: WorldState) -> dict[str, Any]:
    clock = now(state)
    return {"now": clock.isoformat(timespec="minutes"), "weekday": clock.strftime("%A"), "timezone": TIMEZONE}


# alarms ----------------------------------------------------------------------------------------------


@lookup(
    "The user's alarms, earliest time first, with ids, days, on/off and when each next rings.",
    enabled_only=optional(boolean("Only alarms that are switched on (default false).")),
)
def list_alarms(state: WorldState, enabled_only: bool = False) -> dict[str, Any]:
    found = [_alarm(state, k, r) for k, r in state.rows("alarms") if r["enabled"] or not enabled_only]
    found.sort(key=lambda a: (a["time"], a["alarm_id"]))
    state.reveal("alarm", *(a["alarm_id"] for a in found))
    return {"alarms": found}


@action(
    "Create an alarm (switched on). No other alarm may ring at the same time on the same days.",
    time=TIME,
    label=optional(string("Short name shown when it rings (default 'Alarm').")),
    days=optional(DAYS),
    sound=optional(string("Ring sound (default 'chimes').", enum=SOUNDS)),
)
def create_alarm(
    state: WorldState, time: str, label: str = "Alarm", days: list[str] | None = None, sound: str = "chimes"
) -> dict[str, Any]:
    ordered = _ordered(days or [])
    _check_clash(state, time, ordered)
    row = {"label": label, "time": time, "days": ordered, "enabled": True, "sound": sound}
    key = state.new_id("alarm")
    state.put("alarms", key, row)
    state.reveal("alarm", key)
    return _alarm(state, key, row)


@action(
    "Change an alarm's time, label, days and/or sound (give at least one); the rest stays as it was.",
    requires=("list_alarms",),
    alarm_id=ALARM_ID,
    time=optional(TIME),
    label=optional(string("New label.")),
    days=optional(DAYS),
    sound=optional(string("Ring sound.", enum=SOUNDS)),
)
def update_alarm(
    state: WorldState,
    alarm_id: str,
    time: str | None = None,
    label: str | None = None,
    days: list[str] | None = None,
    sound: str | None = None,
) -> dict[str, Any]:
    row = state.require("alarms", alarm_id, "alarm", "list_alarms")
    changes: dict[str, Any] = {k: v for k, v in (("time", time), ("label", label), ("sound", sound)) if v is not None}
    if days is not None:
        changes["days"] = _ordered(days)
    if not changes:
        raise ToolError("invalid_arguments", "nothing_to_change", "Give a new time, label, days or sound.")
    new_time = time if time is not None else str(row["time"])
    _check_clash(state, new_time, changes.get("days", list(row["days"])), own=alarm_id)
    return _alarm(state, alarm_id, state.update("alarms", alarm_id, **changes))


@action(
    "Switch an alarm on or off without deleting it.",
    requires=("list_alarms",),
    alarm_id=ALARM_ID,
    enabled=boolean("True to switch it on, false to switch it off."),
)
def toggle_alarm(state: WorldState, alarm_id: str, enabled: bool) -> dict[str, Any]:
    state.require("alarms", alarm_id, "alarm", "list_alarms")
    return _alarm(state, alarm_id, state.update("alarms", alarm_id, enabled=enabled))


@action("Delete an alarm for good.", requires=("list_alarms",), alarm_id=ALARM_ID)
def delete_alarm(state: WorldState, alarm_id: str) -> dict[str, Any]:
    row = state.require("alarms", alarm_id, "alarm", "list_alarms")
    state.delete("alarms", alarm_id)
    return {"deleted": alarm_id, "label": row["label"]}


# reminders -------------------------------------------------------------------------------------------


def _reminder(key: str, row: Row) -> dict[str, Any]:
    return {"reminder_id": key, **row}


def _due(state: WorldState, due: str) -> str:
    try:
        when = datetime.fromisoformat(due)
    except ValueError as error:
        raise ToolError("invalid_arguments", "bad_due", f"'{due}' is not a valid date and time: {error}.") from error
    if when <= now(state):
        raise ToolError("invalid_arguments", "due_in_past", f"{due} is not in the future: it is now {state.now[:16]}.")
    return due


def _pending(state: WorldState, reminder_id: str) -> Row:
    row = state.require("reminders", reminder_id, "reminder", "list_reminders")
    if row["status"] != "pending":
        raise ToolError("failed", "already_completed", f"The reminder '{row['text']}' is already completed.")
    return row


@lookup(
    "The user's reminders, soonest due first, with ids, text, due time, any contact named, and status.",
    status=optional(string("Which reminders (default 'pending').", enum=REMINDER_STATUSES)),
)
def list_reminders(state: WorldState, status: str = "pending") -> dict[str, Any]:
    found = [_reminder(k, r) for k, r in state.rows("reminders") if status in ("all", r["status"])]
    found.sort(key=lambda r: (r["due"], r["reminder_id"]))
    state.reveal("reminder", *(r["reminder_id"] for r in found))
    return {"reminders": found}


@action(
    "Create a reminder due at a future local time. A person it concerns may be named as plain text.",
    text=string("What to remind the user of, e.g. 'Call Priya Shah'."),
    due=DUE,
    contact_name=optional(string("The contact's name as the user said it, e.g. 'Priya Shah'.")),
)
def create_reminder(state: WorldState, text: str, due: str, contact_name: str | None = None) -> dict[str, Any]:
    if not text.strip():
        raise ToolError("invalid_arguments", "empty_text", "The reminder text is empty: ask what to remind about.")
    row = {
        "text": text,
        "due": _due(state, due),
        "contact_name": contact_name,
        "status": "pending",
        "created_at": state.now,
        "completed_at": None,
    }
    key = state.new_id("reminder")
    state.put("reminders", key, row)
    state.reveal("reminder", key)
    return _reminder(key, row)


@action(
    "Move a pending reminder to a new future due time.",
    requires=("list_reminders",),
    reminder_id=REMINDER_ID,
    due=DUE,
)
def reschedule_reminder(state: WorldState, reminder_id: str, due: str) -> dict[str, Any]:
    _pending(state, reminder_id)
    return _reminder(reminder_id, state.update("reminders", reminder_id, due=_due(state, due)))


@action("Mark a pending reminder as done.", requires=("list_reminders",), reminder_id=REMINDER_ID)
def complete_reminder(state: WorldState, reminder_id: str) -> dict[str, Any]:
    _pending(state, reminder_id)
    return _reminder(reminder_id, state.update("reminders", reminder_id, status="completed", completed_at=state.now))


@action("Delete a reminder, pending or completed.", requires=("list_reminders",), reminder_id=REMINDER_ID)
def delete_reminder(state: WorldState, reminder_id: str) -> dict[str, Any]:
    row = state.require("reminders", reminder_id, "reminder", "list_reminders")
    state.delete("reminders", reminder_id)
    return {"deleted": reminder_id, "text": row["text"]}
