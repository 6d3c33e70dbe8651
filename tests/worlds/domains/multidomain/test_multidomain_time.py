"""Time domain of the multidomain world: every tool's success and refusal paths (a refusal leaves the state
as it was), and every intent primitive executed against fresh worlds. The clock is Saturday 2026-03-14 09:00."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.support import tool_coverage
from tests.support.intent_checks import propose_and_check
from tests.support.tool_coverage import ToolCoverage
from worlds.domains.multidomain.domains.time_intents import PRIMITIVES
from worlds.domains.multidomain.intents import Focus
from worlds.domains.multidomain.pack import MultiDomainPack
from worlds.domains.multidomain.world import MultiDomainWorld


@pytest.fixture(scope="module")
def pack() -> MultiDomainPack:
    return MultiDomainPack()


@pytest.fixture
def world(pack: MultiDomainPack) -> MultiDomainWorld:
    return pack.new_world(0)


PACK = MultiDomainPack(tasks=[])
call = tool_coverage.call
coverage = ToolCoverage(PACK, "time")
ok, refused, covers = coverage.ok, coverage.refused, coverage.covers
DOMAIN_TOOLS, SUCCESS_TESTED, FAILURE_TESTED = coverage.tools, coverage.success, coverage.failure


def row(world: MultiDomainWorld, table: str, key: str) -> Any:
    found = world.state.get(table, key)
    assert found is not None
    return found


@covers(success=("get_current_time",), failure=("get_current_time",))
async def test_current_time(world: MultiDomainWorld) -> None:
    assert await ok(world, "get_current_time") == {
        "now": "2026-03-14T09:00",
        "weekday": "Saturday",
        "timezone": "Europe/London",
    }
    await refused(world, "invalid_arguments", "unexpected_argument", "get_current_time", zone="UTC")


# alarms ----------------------------------------------------------------------------------------------


@covers(success=("list_alarms",), failure=("list_alarms",))
async def test_list_alarms_with_next_ring(world: MultiDomainWorld) -> None:
    alarms = {a["alarm_id"]: a for a in (await ok(world, "list_alarms"))["alarms"]}
    assert alarms["alarm_weekday_wake"]["next_ring"] == "2026-03-16T06:45"
    assert alarms["alarm_vitamins"]["next_ring"] == "2026-03-15T08:00"
    assert alarms["alarm_bins"]["next_ring"] == "2026-03-18T19:30"
    assert alarms["alarm_weekend"]["next_ring"] is None
    enabled = (await ok(world, "list_alarms", enabled_only=True))["alarms"]
    assert enabled[0]["alarm_id"] == "alarm_gym" and all(a["enabled"] for a in enabled)
    await refused(world, "invalid_arguments", "wrong_type", "list_alarms", enabled_only="yes")


@covers(success=("create_alarm",), failure=("create_alarm",))
async def test_create_alarm(world: MultiDomainWorld) -> None:
    alarm = await ok(world, "create_alarm", time="07:30", label="Run", days=["sat", "mon"])
    assert (alarm["alarm_id"], alarm["days"], alarm["next_ring"]) == ("alarm-0001", ["mon", "sat"], "2026-03-16T07:30")
    assert row(world, "alarms", "alarm-0001")["enabled"] is True
    once = await ok(world, "create_alarm", time="08:59")
    assert (once["label"], once["next_ring"]) == ("Alarm", "2026-03-15T08:59")
    await refused(
        world, "failed", "duplicate_alarm", "create_alarm", time="06:45", days=["mon", "tue", "wed", "thu", "fri"]
    )
    await refused(world, "invalid_arguments", "invalid_value", "create_alarm", time="25:00")


@covers(success=("list_alarms", "update_alarm"), failure=("update_alarm",))
async def test_update_alarm(world: MultiDomainWorld) -> None:
    await refused(world, "failed", "not_looked_up", "update_alarm", alarm_id="alarm_gym", time="06:30")
    await ok(world, "list_alarms")
    updated = await ok(world, "update_alarm", alarm_id="alarm_gym", time="06:30", days=["thu", "mon"])
    assert (updated["time"], updated["days"], updated["label"]) == ("06:30", ["mon", "thu"], "Gym")
    await refused(world, "invalid_arguments", "nothing_to_change", "update_alarm", alarm_id="alarm_gym")
    await refused(world, "failed", "duplicate_alarm", "update_alarm", alarm_id="alarm_nap", time="04:30")


@covers(success=("list_alarms", "toggle_alarm"), failure=("toggle_alarm",))
async def test_toggle_alarm(world: MultiDomainWorld) -> None:
    await refused(world, "not_found", "unknown_alarm", "toggle_alarm", alarm_id="alarm_x", enabled=True)
    await ok(world, "list_alarms")
    assert (await ok(world, "toggle_alarm", alarm_id="alarm_weekend", enabled=True))["next_ring"] == "2026-03-14T09:30"
    assert row(world, "alarms", "alarm_weekend")["enabled"] is True


@covers(success=("delete_alarm", "list_alarms"), failure=("delete_alarm",))
async def test_delete_alarm(world: MultiDomainWorld) -> None:
    await refused(world, "failed", "not_looked_up", "delete_alarm", alarm_id="alarm_bins")
    await ok(world, "list_alarms")
    assert (await ok(world, "delete_alarm", alarm_id="alarm_bins"))["label"] == "Put the bins out"
    assert world.state.get("alarms", "alarm_bins") is None
    await refused(world, "not_found", "unknown_alarm", "delete_alarm", alarm_id="alarm_bins")


# reminders -------------------------------------------------------------------------------------------


@covers(success=("list_reminders",), failure=("list_reminders",))
async def test_list_reminders(world: MultiDomainWorld) -> None:
    pending = (await ok(world, "list_reminders"))["reminders"]
    assert pending[0]["reminder_id"] == "rem_return_book" and all(r["status"] == "pending" for r in pending)
    assert len((await ok(world, "list_reminders", status="completed"))["reminders"]) == 2
    assert len((await ok(world, "list_reminders", status="all"))["reminders"]) == len(pending) + 2
    await refused(world, "invalid_arguments", "invalid_value", "list_reminders", status="overdue")


@covers(success=("create_reminder",), failure=("create_reminder",))
async def test_create_reminder_with_a_contact(world: MultiDomainWorld) -> None:
    made = await ok(world, "create_reminder", text="Call Jamie Li", due="2026-03-15T18:00", contact_name="Jamie Li")
    assert made["reminder_id"] == "reminder-0001"
    assert row(world, "reminders", "reminder-0001")["contact_name"] == "Jamie Li"
    await refused(world, "invalid_arguments", "due_in_past", "create_reminder", text="x", due="2026-03-14T08:00")
    await refused(world, "invalid_arguments", "bad_due", "create_reminder", text="x", due="2026-02-30T10:00")
    await refused(world, "invalid_arguments", "empty_text", "create_reminder", text=" ", due="2026-03-15T10:00")


@covers(success=("list_reminders", "reschedule_reminder"), failure=("reschedule_reminder",))
async def test_reschedule_reminder(world: MultiDomainWorld) -> None:
    await ok(world, "list_reminders", status="all")
    moved = await ok(world, "reschedule_reminder", reminder_id="rem_pay_rent", due="2026-03-26T09:00")
    assert moved["due"] == row(world, "reminders", "rem_pay_rent")["due"] == "2026-03-26T09:00"
    await refused(
        world,
        "invalid_arguments",
        "due_in_past",
        "reschedule_reminder",
        reminder_id="rem_pay_rent",
        due="2026-03-01T09:00",
    )
    await refused(
        world, "failed", "already_completed", "reschedule_reminder", reminder_id="rem_passport", due="2026-03-20T09:00"
    )


@covers(success=("complete_reminder", "list_reminders"), failure=("complete_reminder",))
async def test_complete_reminder(world: MultiDomainWorld) -> None:
    await refused(world, "failed", "not_looked_up", "complete_reminder", reminder_id="rem_plants")
    await ok(world, "list_reminders")
    done = await ok(world, "complete_reminder", reminder_id="rem_plants")
    assert (done["status"], done["completed_at"]) == ("completed", "2026-03-14T09:00:00")
    await refused(world, "failed", "already_completed", "complete_reminder", reminder_id="rem_plants")


@covers(success=("delete_reminder", "list_reminders"), failure=("delete_reminder",))
async def test_delete_reminder(world: MultiDomainWorld) -> None:
    await ok(world, "list_reminders")
    await ok(world, "delete_reminder", reminder_id="rem_car_tax")
    assert world.state.get("reminders", "rem_car_tax") is None
    await refused(world, "not_found", "unknown_reminder", "delete_reminder", reminder_id="rem_car_tax")


# notifications ---------------------------------------------------------------------------------------


@covers(success=("list_notifications",), failure=("list_notifications",))
async def test_list_notifications(world: MultiDomainWorld) -> None:
    active = (await ok(world, "list_notifications"))["notifications"]
    assert len(active) == 9 and active[0]["notification_id"] == "notif_msg_priya"
    news = (await ok(world, "list_notifications", app="News"))["notifications"]
    assert [n["notification_id"] for n in news] == ["notif_news_scotland", "notif_news_rates"]
    await refused(world, "not_found", "unknown_app", "list_notifications", app="Pager")


@covers(success=("dismiss_notification", "list_notifications"), failure=("dismiss_notification",))
async def test_dismiss_notification(world: MultiDomainWorld) -> None:
    await refused(world, "failed", "not_looked_up", "dismiss_notification", notification_id="notif_delivery")
    await ok(world, "list_notifications")
    await ok(world, "dismiss_notification", notification_id="notif_delivery")
    assert row(world, "notifications", "notif_delivery")["dismissed"] is True
    await refused(world, "failed", "already_dismissed", "dismiss_notification", notification_id="notif_delivery")


@covers(success=("dismiss_all_notifications", "list_notifications"), failure=("dismiss_all_notifications",))
async def test_dismiss_all_notifications(world: MultiDomainWorld) -> None:
    assert (await ok(world, "dismiss_all_notifications", app="Messages"))["dismissed"] == [
        "notif_msg_priya",
        "notif_msg_leo",
    ]
    assert len((await ok(world, "dismiss_all_notifications"))["dismissed"]) == 7
    assert (await ok(world, "list_notifications"))["notifications"] == []
    await refused(world, "not_found", "unknown_app", "dismiss_all_notifications", app="Pager")


# timers ----------------------------------------------------------------------------------------------


@covers(success=("start_timer",), failure=("start_timer",))
async def test_start_timer(world: MultiDomainWorld) -> None:
    timer = await ok(world, "start_timer", duration_seconds=600, label="eggs")
    assert (timer["timer_id"], timer["ends_at"], timer["remaining_seconds"]) == (
        "timer-0001",
        "2026-03-14T09:10:00",
        600,
    )
    assert row(world, "timers", "timer-0001")["status"] == "running"
    await refused(world, "failed", "duplicate_label", "start_timer", duration_seconds=60, label="pasta")
    await refused(world, "invalid_arguments", "out_of_range", "start_timer", duration_seconds=0)
    await ok(world, "start_timer", duration_seconds=60, label="tea")  # the old tea timer has finished


@covers(success=("list_timers",), failure=("list_timers",))
async def test_list_timers(world: MultiDomainWorld) -> None:
    timers = {t["timer_id"]: t for t in (await ok(world, "list_timers"))["timers"]}
    assert (timers["timer_pasta"]["status"], timers["timer_pasta"]["remaining_seconds"]) == ("running", 420)
    assert (timers["timer_tea"]["status"], timers["timer_tea"]["remaining_seconds"]) == ("finished", 0)
    await refused(world, "invalid_arguments", "unexpected_argument", "list_timers", status="running")


@covers(success=("extend_timer", "list_timers"), failure=("extend_timer",))
async def test_extend_timer(world: MultiDomainWorld) -> None:
    await refused(world, "failed", "not_looked_up", "extend_timer", timer_id="timer_pasta", seconds=60)
    await ok(world, "list_timers")
    extended = await ok(world, "extend_timer", timer_id="timer_pasta", seconds=300)
    assert (extended["ends_at"], extended["remaining_seconds"], extended["duration_seconds"]) == (
        "2026-03-14T09:12:00",
        720,
        1200,
    )
    await refused(world, "failed", "timer_finished", "extend_timer", timer_id="timer_tea", seconds=60)


@covers(success=("cancel_timer", "list_timers"), failure=("cancel_timer",))
async def test_cancel_timer(world: MultiDomainWorld) -> None:
    await ok(world, "list_timers")
    assert (await ok(world, "cancel_timer", timer_id="timer_laundry"))["status"] == "cancelled"
    assert "timer_laundry" not in [t["timer_id"] for t in (await ok(world, "list_timers"))["timers"]]
    await refused(world, "failed", "timer_cancelled", "cancel_timer", timer_id="timer_laundry")
    await refused(world, "not_found", "unknown_timer", "cancel_timer", timer_id="timer_x")


def test_every_time_tool_has_both_paths_tested() -> None:
    time = {name for name, tool in MultiDomainPack(tasks=[]).toolkit.tools.items() if tool.domain == "time"}
    assert time == SUCCESS_TESTED
    assert time == FAILURE_TESTED


# intent primitives -----------------------------------------------------------------------------------


async def check_intent(world: MultiDomainWorld, primitive: Any, rng: random.Random, focus: Focus | None) -> Any:
    """The shared checks, plus: a created alarm, reminder or timer that is the focus is known to the session."""
    intent = await propose_and_check(world, primitive, rng, focus)
    if intent is not None and intent.focus is not None:
        kind, key = intent.focus.key.split(":", 1)
        assert (
            kind not in ("alarm", "reminder", "timer")
            or world.state.is_known(kind, key)
            or key not in [k for k, _ in world.state.rows(kind + "s")]
        )
    return intent


@pytest.mark.parametrize("primitive", PRIMITIVES, ids=lambda p: p.__name__)
async def test_primitive_on_fresh_worlds(pack: MultiDomainPack, primitive: Any) -> None:
    produced = 0
    for seed in range(40):
        produced += await check_intent(pack.new_world(0), primitive, random.Random(seed), None) is not None
    assert produced > 0


async def test_created_rows_are_the_focus(pack: MultiDomainPack) -> None:
    """A create intent's focus names the id the world then gives the new row, so follow-ups can act on it."""
    world = pack.new_world(0)
    for primitive in (PRIMITIVES[0], PRIMITIVES[5], PRIMITIVES[10]):
        intent = await check_intent(world, primitive, random.Random(3), None)
        kind, key = intent.focus.key.split(":", 1)
        assert world.state.get(kind + "s", key) is not None and world.state.is_known(kind, key)


async def test_primitives_chained_with_follow_ups(pack: MultiDomainPack) -> None:
    """A conversation's worth of turns on one world, each offered the previous turn's focus."""
    for seed in range(8):
        world, rng, focus = pack.new_world(0), random.Random(seed), None
        for _ in range(25):
            intent = await check_intent(world, rng.choice(PRIMITIVES), rng, focus)
            focus = intent.focus if intent is not None else None


def test_primitives_do_not_mutate(pack: MultiDomainPack) -> None:
    world = pack.new_world(0)
    before = world.snapshot()
    for seed, primitive in enumerate(PRIMITIVES):
        primitive(world.state, random.Random(seed), None)
    assert world.snapshot() == before
