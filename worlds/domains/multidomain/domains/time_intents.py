"""Time intent primitives (see ``intents.py`` for the contract): alarms, reminders, notifications, timers."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from worlds.domains.multidomain.intents import Focus, Intent, Primitive, core, lookup_if_unknown, pick_focus, support
from worlds.domains.multidomain.state import WorldState

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


def _list_alarms(state: WorldState, alarm_id: str) -> list[Any]:
    return lookup_if_unknown(state, "alarm", alarm_id, support("list_alarms"))


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
    return Intent(
        primitive="time.create_alarm",
        explicit=f"Set a {label} alarm for {time} {when}.",
        paraphrases=(f"Wake me at {time} {when}; label the alarm {label}.",),
        calls=(core("create_alarm", time=time, label=label, **repeat),),
        focus=Focus(key=f"alarm:{_next_id(state, 'alarm')}", name=f"{label} alarm"),
    )


def move_alarm(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    alarms = [k for k, _ in state.rows("alarms")]
    if not alarms:
        return None
    alarm_id = pick_focus(state, focus, "alarm", alarms, rng)
    row = state.row("alarms", alarm_id)
    time = _free_time(state, rng, list(row["days"]), skip=row["time"])
    if time is None:
        return None
    name = _alarm_focus(state, alarm_id).name
    return Intent(
        primitive="time.move_alarm",
        explicit=f"Change my {name} to {time}.",
        coreferential=f"Move that one to {time}.",
        paraphrases=(f"Can you make the {name} go off at {time} instead?",),
        calls=(*_list_alarms(state, alarm_id), core("update_alarm", alarm_id=alarm_id, time=time)),
        focus=_alarm_focus(state, alarm_id),
    )


def switch_alarm(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    alarms = [k for k, _ in state.rows("alarms")]
    if not alarms:
        return None
    alarm_id = pick_focus(state, focus, "alarm", alarms, rng)
    enabled = not state.row("alarms", alarm_id)["enabled"]
    word, name = ("on" if enabled else "off"), _alarm_focus(state, alarm_id).name
    return Intent(
        primitive="time.switch_alarm",
        explicit=f"Turn {word} my {name}.",
        coreferential=f"Switch it {word}.",
        paraphrases=(f"Please switch the {name} {word}, but keep it.",),
        calls=(*_list_alarms(state, alarm_id), core("toggle_alarm", alarm_id=alarm_id, enabled=enabled)),
        focus=_alarm_focus(state, alarm_id),
    )


def delete_alarm(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    alarms = [k for k, _ in state.rows("alarms")]
    if not alarms:
        return None
    alarm_id = pick_focus(state, focus, "alarm", alarms, rng)
    name = _alarm_focus(state, alarm_id).name
    return Intent(
        primitive="time.delete_alarm",
        explicit=f"Delete my {name}.",
        coreferential="Actually, delete that alarm altogether.",
        paraphrases=(f"I don't need the {name} any more; remove it.",),
        calls=(*_list_alarms(state, alarm_id), core("delete_alarm", alarm_id=alarm_id)),
        focus=_alarm_focus(state, alarm_id),
    )


def next_alarm(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    if not any(r["enabled"] for _, r in state.rows("alarms")):
        return None

    def answer(results: Sequence[Any]) -> str:
        first = min((a for a in results[-1]["alarms"] if a["next_ring"]), key=lambda a: a["next_ring"])
        return f"Your next alarm is '{first['label']}' at {first['next_ring'].replace('T', ' ')}."

    return Intent(
        primitive="time.next_alarm",
        explicit="When does my next alarm go off?",
        paraphrases=("What's the next alarm I have set?",),
        calls=(core("list_alarms", enabled_only=True),),
        alternatives=((core("list_alarms"),),),
        answer=answer,
    )


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
    return Intent(
        primitive="time.create_reminder",
        explicit=f"Remind me to {task} on {_spoken(due)}.",
        paraphrases=(f"Set a reminder for {_spoken(due)}: {task}.",),
        calls=(core("create_reminder", text=text, due=due.isoformat(timespec="minutes"), **named),),
        focus=Focus(key=f"reminder:{_next_id(state, 'reminder')}", name=task, pronoun="that reminder"),
    )


def _pending(state: WorldState) -> list[str]:
    return [k for k, r in state.rows("reminders") if r["status"] == "pending"]


def _reminder_focus(state: WorldState, reminder_id: str) -> Focus:
    text = str(state.row("reminders", reminder_id)["text"])
    return Focus(key=f"reminder:{reminder_id}", name=text[0].lower() + text[1:], pronoun="that reminder")


def complete_reminder(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    pending = _pending(state)
    if not pending:
        return None
    reminder_id = pick_focus(state, focus, "reminder", pending, rng)
    task = _reminder_focus(state, reminder_id).name
    return Intent(
        primitive="time.complete_reminder",
        explicit=f"Mark my reminder to {task} as done.",
        coreferential="That one's done now, tick it off.",
        paraphrases=(f"I've done it: {task}. Complete that reminder.",),
        calls=(
            *lookup_if_unknown(state, "reminder", reminder_id, support("list_reminders")),
            core("complete_reminder", reminder_id=reminder_id),
        ),
        focus=_reminder_focus(state, reminder_id),
    )


def postpone_reminder(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    pending = _pending(state)
    if not pending:
        return None
    reminder_id = pick_focus(state, focus, "reminder", pending, rng)
    row, task = state.row("reminders", reminder_id), _reminder_focus(state, reminder_id).name
    due = datetime.fromisoformat(row["due"]) + timedelta(days=rng.choice([1, 2, 7]))
    return Intent(
        primitive="time.postpone_reminder",
        explicit=f"Reschedule my reminder to {task} for {_spoken(due)}.",
        coreferential=f"Move that reminder to {_spoken(due)}.",
        paraphrases=(f"Can the reminder to {task} wait until {_spoken(due)}?",),
        calls=(
            *lookup_if_unknown(state, "reminder", reminder_id, support("list_reminders")),
            core("reschedule_reminder", reminder_id=reminder_id, due=due.isoformat(timespec="minutes")),
        ),
        focus=_reminder_focus(state, reminder_id),
    )


def upcoming_reminders(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    def answer(results: Sequence[Any]) -> str:
        found = results[-1]["reminders"]
        if not found:
            return "You have no pending reminders."
        return "Pending reminders: " + "; ".join(f"{r['text']} ({r['due'].replace('T', ' ')})" for r in found) + "."

    return Intent(
        primitive="time.upcoming_reminders",
        explicit="What reminders do I still have coming up?",
        paraphrases=("List my pending reminders, please.",),
        calls=(core("list_reminders"),),
        alternatives=((core("list_reminders", status="pending"),),),
        answer=answer,
    )


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
    return Intent(
        primitive="time.clear_app_notifications",
        explicit=f"Clear all my {app} notifications.",
        paraphrases=(f"Dismiss every notification from {app}.",),
        calls=(core("dismiss_all_notifications", app=app),),
        alternatives=(
            (support("list_notifications", app=app), *(core("dismiss_notification", notification_id=k) for k in ids)),
        ),
    )


def _running(state: WorldState) -> list[str]:
    now = datetime.fromisoformat(state.now)
    return [
        k for k, r in state.rows("timers") if r["status"] == "running" and datetime.fromisoformat(r["ends_at"]) > now
    ]


def _timer_focus(state: WorldState, timer_id: str) -> Focus:
    return Focus(key=f"timer:{timer_id}", name=f"{state.row('timers', timer_id)['label']} timer")


def start_timer(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    busy = {state.row("timers", k)["label"] for k in _running(state)}
    free = [label for label in TIMER_LABELS if label not in busy]
    if not free:
        return None
    label = rng.choice(free)
    seconds = TIMER_LABELS[label]
    return Intent(
        primitive="time.start_timer",
        explicit=f"Start the {label} timer: {_minutes(seconds)}.",
        paraphrases=(f"Time {_minutes(seconds)} for the {label}, please.",),
        calls=(core("start_timer", duration_seconds=seconds, label=label),),
        focus=Focus(key=f"timer:{_next_id(state, 'timer')}", name=f"{label} timer"),
    )


def timer_left(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    running = _running(state)
    if not running:
        return None
    timer_id = pick_focus(state, focus, "timer", running, rng)
    name = _timer_focus(state, timer_id).name

    def answer(results: Sequence[Any]) -> str:
        timer = next(t for t in results[-1]["timers"] if t["timer_id"] == timer_id)
        return f"The {name} has {_minutes(timer['remaining_seconds'])} left."

    return Intent(
        primitive="time.timer_left",
        explicit=f"How long is left on the {name}?",
        coreferential="How much time is left on it?",
        paraphrases=(f"Check the {name} for me: how long to go?",),
        calls=(core("list_timers"),),
        focus=_timer_focus(state, timer_id),
        answer=answer,
    )


def extend_timer(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    running = _running(state)
    if not running:
        return None
    timer_id = pick_focus(state, focus, "timer", running, rng)
    name, seconds = _timer_focus(state, timer_id).name, rng.choice([60, 120, 300, 600])
    return Intent(
        primitive="time.extend_timer",
        explicit=f"Add {_minutes(seconds)} to the {name}.",
        coreferential=f"Give it another {_minutes(seconds)}.",
        paraphrases=(f"Extend the {name} by {_minutes(seconds)}.",),
        calls=(
            *lookup_if_unknown(state, "timer", timer_id, support("list_timers")),
            core("extend_timer", timer_id=timer_id, seconds=seconds),
        ),
        focus=_timer_focus(state, timer_id),
    )


def cancel_timer(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    running = _running(state)
    if not running:
        return None
    timer_id = pick_focus(state, focus, "timer", running, rng)
    name = _timer_focus(state, timer_id).name
    return Intent(
        primitive="time.cancel_timer",
        explicit=f"Cancel the {name}.",
        coreferential="Stop that timer.",
        paraphrases=(f"I don't need the {name} any more, cancel it.",),
        calls=(
            *lookup_if_unknown(state, "timer", timer_id, support("list_timers")),
            core("cancel_timer", timer_id=timer_id),
        ),
        focus=_timer_focus(state, timer_id),
    )


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
