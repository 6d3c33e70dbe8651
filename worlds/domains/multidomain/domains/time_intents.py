"""Time intent primitives (see ``intents.py`` for the contract): alarms, reminders, notifications, timers."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from worlds.domains.multidomain.gold_calls import ListLookup, core, support
from worlds.domains.multidomain.intents import Focus, Intent, Primitive, pick_any
from worlds.domains.multidomain.state import WorldState
from worlds.domains.multidomain.wording import EntityIntents, said

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
DAY_SETS: dict[str, list[str]] = {
    "every weekday": list(WEEKDAYS[:5]),
    "at weekends": ["sat", "sun"],
    "on Mondays": ["mon"],
    "on Fridays": ["fri"],
    "as a one-off": [],
}
ALARM_LABELS = ("Morning run", "Yoga", "School run", "Medication", "Call home", "Train")
FALLBACK_CONTACTS = ("Priya Shah", "Ben Walsh", "Helen Rivera")
ERRANDS = ("call {}", "text {} about dinner", "send {} the photos", "ask {} about the weekend")
CHORES = ("water the plants", "take the bins out", "book a haircut", "pay the electricity bill", "renew the gym pass")
TIMER_LABELS = {"eggs": 420, "rice": 900, "oven": 1800, "tea": 240, "parking": 3600, "nap": 1200}


def _next_id(state: WorldState, prefix: str) -> str:
    """The id the world will give the next row it creates with this prefix (read, never advanced here)."""
    return f"{prefix}-{state.snapshot()['counters'].get(prefix, 0) + 1:04d}"


def _spoken(when: datetime) -> str:
    return f"{when:%A} {when.day} {when:%B} at {when:%H:%M}"


def _minutes(seconds: int) -> str:
    minutes, rest = divmod(seconds, 60)
    return f"{minutes} min {rest} s" if rest else f"{minutes} minutes"


# alarms ----------------------------------------------------------------------------------------------


def _alarm_focus(state: WorldState, alarm_id: str) -> Focus:
    return Focus(key=f"alarm:{alarm_id}", name=f"{state.row('alarms', alarm_id)['label']} alarm")


def _free_time(state: WorldState, rng: random.Random, days: list[str], skip: str = "") -> str | None:
    taken = {r["time"] for _, r in state.rows("alarms") if list(r["days"]) == days}
    free = [t for t in ("05:45", "06:15", "06:30", "07:00", "07:15", "07:45", "08:30", "10:00") if t not in taken]
    free = [t for t in free if t != skip]
    return rng.choice(free) if free else None


def create_alarm(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    when, days = rng.choice(list(DAY_SETS.items()))
    time, label = _free_time(state, rng, days), rng.choice(ALARM_LABELS)
    if time is None:
        return None
    repeat = {} if not days else {"days": days}
    calls = (core("create_alarm", time=time, label=label, **repeat),)
    return said(
        "time.create_alarm",
        calls,
        Focus(key=f"alarm:{_next_id(state, 'alarm')}", name=f"{label} alarm"),
        label=label,
        time=time,
        when=when,
    )


_on_alarm = EntityIntents("time", ListLookup("alarm", "list_alarms"), _alarm_focus)


def move_alarm(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    alarm_id = pick_any(state, focus, "alarm", [k for k, _ in state.rows("alarms")], rng)
    if alarm_id is None:
        return None
    row = state.row("alarms", alarm_id)
    time = _free_time(state, rng, list(row["days"]), skip=row["time"])
    if time is None:
        return None
    name = _alarm_focus(state, alarm_id).name
    return _on_alarm(
        state, alarm_id, "move_alarm", core("update_alarm", alarm_id=alarm_id, time=time), name=name, time=time
    )


def switch_alarm(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    alarm_id = pick_any(state, focus, "alarm", [k for k, _ in state.rows("alarms")], rng)
    if alarm_id is None:
        return None
    enabled = not state.row("alarms", alarm_id)["enabled"]
    word, name = ("on" if enabled else "off"), _alarm_focus(state, alarm_id).name
    act = core("toggle_alarm", alarm_id=alarm_id, enabled=enabled)
    return _on_alarm(state, alarm_id, "switch_alarm", act, word=word, name=name)


def delete_alarm(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    alarm_id = pick_any(state, focus, "alarm", [k for k, _ in state.rows("alarms")], rng)
    if alarm_id is None:
        return None
    name = _alarm_focus(state, alarm_id).name
    return _on_alarm(state, alarm_id, "delete_alarm", core("delete_alarm", alarm_id=alarm_id), name=name)


def next_alarm(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    if not any(r["enabled"] for _, r in state.rows("alarms")):
        return None

    def answer(results: Sequence[Any]) -> str:
        first = min((a for a in results[-1]["alarms"] if a["next_ring"]), key=lambda a: a["next_ring"])
        return f"Your next alarm is '{first['label']}' at {first['next_ring'].replace('T', ' ')}."

    calls = (core("list_alarms", enabled_only=True),)
    return said("time.next_alarm", calls, answer=answer, alternatives=((core("list_alarms"),),))


# reminders -------------------------------------------------------------------------------------------


def _contacts(state: WorldState) -> list[str]:
    try:
        return [str(r["name"]) for _, r in state.rows("contacts")]
    except KeyError:  # the communication domain is not loaded
        return list(FALLBACK_CONTACTS)


def create_reminder(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    now = datetime.fromisoformat(state.now)
    due = (now + timedelta(days=rng.randint(1, 6))).replace(hour=rng.choice([8, 12, 17, 18, 20]), minute=0)
    contact = rng.choice(_contacts(state)) if rng.random() < 0.6 else None
    task = rng.choice(ERRANDS).format(contact) if contact else rng.choice(CHORES)
    text = task[0].upper() + task[1:]
    named = {"contact_name": contact} if contact else {}
    calls = (core("create_reminder", text=text, due=due.isoformat(timespec="minutes"), **named),)
    return said(
        "time.create_reminder",
        calls,
        Focus(key=f"reminder:{_next_id(state, 'reminder')}", name=task, pronoun="that reminder"),
        task=task,
        when=_spoken(due),
    )


def _pending(state: WorldState) -> list[str]:
    return [k for k, r in state.rows("reminders") if r["status"] == "pending"]


def _reminder_focus(state: WorldState, reminder_id: str) -> Focus:
    text = str(state.row("reminders", reminder_id)["text"])
    return Focus(key=f"reminder:{reminder_id}", name=text[0].lower() + text[1:], pronoun="that reminder")


_on_reminder = EntityIntents("time", ListLookup("reminder", "list_reminders"), _reminder_focus)


def complete_reminder(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    reminder_id = pick_any(state, focus, "reminder", _pending(state), rng)
    if reminder_id is None:
        return None
    task = _reminder_focus(state, reminder_id).name
    return _on_reminder(
        state, reminder_id, "complete_reminder", core("complete_reminder", reminder_id=reminder_id), task=task
    )


def postpone_reminder(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    reminder_id = pick_any(state, focus, "reminder", _pending(state), rng)
    if reminder_id is None:
        return None
    row, task = state.row("reminders", reminder_id), _reminder_focus(state, reminder_id).name
    due = datetime.fromisoformat(row["due"]) + timedelta(days=rng.choice([1, 2, 7]))
    act = core("reschedule_reminder", reminder_id=reminder_id, due=due.isoformat(timespec="minutes"))
    return _on_reminder(state, reminder_id, "postpone_reminder", act, task=task, when=_spoken(due))


def upcoming_reminders(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    def answer(results: Sequence[Any]) -> str:
        found = results[-1]["reminders"]
        if not found:
            return "You have no pending reminders."
        return "Pending reminders: " + "; ".join(f"{r['text']} ({r['due'].replace('T', ' ')})" for r in found) + "."

    calls = (core("list_reminders"),)
    paths = ((core("list_reminders", status="pending"),),)
    return said("time.upcoming_reminders", calls, answer=answer, alternatives=paths)


# notifications and timers ----------------------------------------------------------------------------


def clear_app_notifications(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    """The bundle tool or a lookup and one dismissal each: two paths to one state."""
    active = {str(r["app"]) for _, r in state.rows("notifications") if not r["dismissed"]}
    if not active:
        return None
    app = rng.choice(sorted(active))
    ids = [
        k
        for k, r in sorted(state.rows("notifications"), key=lambda kr: (kr[1]["received_at"], kr[0]), reverse=True)
        if r["app"] == app and not r["dismissed"]
    ]
    calls = (core("dismiss_all_notifications", app=app),)
    paths = ((support("list_notifications", app=app), *(core("dismiss_notification", notification_id=k) for k in ids)),)
    return said("time.clear_app_notifications", calls, alternatives=paths, app=app)


def _running(state: WorldState) -> list[str]:
    now = datetime.fromisoformat(state.now)
    return [
        k for k, r in state.rows("timers") if r["status"] == "running" and datetime.fromisoformat(r["ends_at"]) > now
    ]


def _timer_focus(state: WorldState, timer_id: str) -> Focus:
    return Focus(key=f"timer:{timer_id}", name=f"{state.row('timers', timer_id)['label']} timer")


_on_timer = EntityIntents("time", ListLookup("timer", "list_timers"), _timer_focus)


def start_timer(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    busy = {state.row("timers", k)["label"] for k in _running(state)}
    free = [label for label in TIMER_LABELS if label not in busy]
    if not free:
        return None
    label = rng.choice(free)
    seconds = TIMER_LABELS[label]
    calls = (core("start_timer", duration_seconds=seconds, label=label),)
    return said(
        "time.start_timer",
        calls,
        Focus(key=f"timer:{_next_id(state, 'timer')}", name=f"{label} timer"),
        label=label,
        duration=_minutes(seconds),
    )


def timer_left(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    timer_id = pick_any(state, focus, "timer", _running(state), rng)
    if timer_id is None:
        return None
    name = _timer_focus(state, timer_id).name

    def answer(results: Sequence[Any]) -> str:
        timer = next(t for t in results[-1]["timers"] if t["timer_id"] == timer_id)
        return f"The {name} has {_minutes(timer['remaining_seconds'])} left."

    return said("time.timer_left", (core("list_timers"),), _timer_focus(state, timer_id), answer, name=name)


def extend_timer(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    timer_id = pick_any(state, focus, "timer", _running(state), rng)
    if timer_id is None:
        return None
    name, seconds = _timer_focus(state, timer_id).name, rng.choice([60, 120, 300, 600])
    act = core("extend_timer", timer_id=timer_id, seconds=seconds)
    return _on_timer(state, timer_id, "extend_timer", act, duration=_minutes(seconds), name=name)


def cancel_timer(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    timer_id = pick_any(state, focus, "timer", _running(state), rng)
    if timer_id is None:
        return None
    name = _timer_focus(state, timer_id).name
    return _on_timer(state, timer_id, "cancel_timer", core("cancel_timer", timer_id=timer_id), name=name)


PRIMITIVES: tuple[Primitive, ...] = (
    create_alarm,
    move_alarm,
    switch_alarm,
    delete_alarm,
    next_alarm,
    create_reminder,
    complete_reminder,
    postpone_reminder,
    upcoming_reminders,
    clear_app_notifications,
    start_timer,
    timer_left,
    extend_timer,
    cancel_timer,
)
