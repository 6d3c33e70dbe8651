"""Timed world events, piece by piece: when a change falls due, what each world makes of an edit, and the errors a
bad row or a bad edit gets (file, line and field named; nothing applied)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sim.core import ToolCall, WorldChange
from sim.episode.world_events import EventSchedule, WorldEventError
from worlds.registry import load_world
from worlds.stressors import builtin_scenarios
from worlds.stressors.catalog import load_scenarios
from worlds.stressors.types.events import WorldEvents


def _change(goal: int = 1, after_calls: int = 2) -> WorldChange:
    edit = {"device": "living_tv", "set": {"power": True}}
    return WorldChange(event="events.x", kind="switched", what="w", edit=edit, goal=goal, after_calls=after_calls)


def test_a_change_falls_due_at_its_call_of_its_goal_or_any_later_goal() -> None:
    change = _change()
    assert not change.due(0, 9) and not change.due(1, 1)
    assert change.due(1, 2) and change.due(2, 0)


def test_a_schedule_applies_each_change_once_before_the_call_that_makes_it_due() -> None:
    world = load_world("smart_home").new_world(0)
    schedule = EventSchedule([_change(goal=0, after_calls=1)])
    assert schedule.before_call(world, 0) == []
    assert [c.event for c in schedule.before_call(world, 0)] == ["events.x"]
    assert world.snapshot()["devices"][[d["id"] for d in world.snapshot()["devices"]].index("living_tv")]["power"]
    assert not schedule and schedule.before_call(world, 0) == []


def test_the_isolated_setup_settles_the_changes_of_earlier_goals() -> None:
    schedule = EventSchedule([_change(goal=0), _change(goal=2)])
    schedule.settled_before(1)
    assert schedule  # goal 2's is still to come
    schedule.settled_before(3)
    assert not schedule


@pytest.mark.parametrize(
    ("world", "edit", "says"),
    [
        ("multidomain", {"table": "products", "key": "prod_nope", "set": {"stock": 0}}, "no row products/prod_nope"),
        ("multidomain", {"table": "products", "key": "prod_pancetta", "set": {"stok": 0}}, "no field(s) stok"),
        ("multidomain", {"table": "products", "key": "prod_pancetta"}, "exactly one of"),
        ("smart_home", {"device": "living_tv", "set": {"brightness": 5}}, "has no setting 'brightness'"),
        ("smart_home", {"device": "nope", "set": {"power": True}}, "no device 'nope'"),
        ("smart_home", {"scene": "nope", "delete": True}, "a scene edit deletes a scene that exists"),
        ("sql_sample", {"db": "library", "sql": "UPDATE nope SET x = 1"}, "the statement failed on library"),
        ("sql_sample", {"db": "nope", "sql": "DELETE FROM book"}, "no database 'nope'"),
    ],
)
def test_a_world_refuses_an_edit_it_cannot_apply_and_says_why(world: str, edit: dict[str, Any], says: str) -> None:
    target = load_world(world).new_world(0)
    before = target.state_hash()
    schedule = EventSchedule([WorldChange(event="events.bad", kind="removed", what="w", edit=edit, goal=0)])
    with pytest.raises(WorldEventError, match=r"events\.bad") as caught:
        schedule.before_call(target, 0)
    assert says in str(caught.value)
    assert target.state_hash() == before


async def test_a_sql_world_changed_by_an_event_answers_from_its_own_copy_only() -> None:
    pack = load_world("sql_sample")
    changed, other = pack.new_world(0), pack.new_world(0)
    count = ToolCall(id="c", name="count_book", arguments={})
    changed.apply_change({"db": "library", "sql": "DELETE FROM book WHERE book_id = 1"})
    assert (await changed.call(count)).content != (await other.call(count)).content
    copy = pack.new_world(0)
    copy.restore(changed.snapshot())  # the isolated setup's restore carries the change
    assert (await copy.call(count)).content == (await changed.call(count)).content
    assert copy.state_hash() == changed.state_hash() != other.state_hash()


def _row(**params: Any) -> dict[str, Any]:
    base = next(s for s in builtin_scenarios() if s.name == "events.sh_tv_switched_off").model_dump()
    return {**base, "params": {**base["params"], **params}}


@pytest.mark.parametrize(
    ("params", "says"),
    [
        ({"behaviour": "wait"}, "params.behaviour"),
        ({"goals": {"1": {"gold": []}}}, "goals.1: a gold path or a decline reply"),
        ({"goals": {"1": {"decline": "gone"}}}, "a decline reply is the whole gold of a tell_user row's goal"),
        ({"also_affects": [0]}, "also_affects names later goals"),
    ],
)
def test_a_bad_row_is_named_by_file_line_and_field(tmp_path: Path, params: dict[str, Any], says: str) -> None:
    table = tmp_path / "events.jsonl"
    table.write_text("\n" + json.dumps(_row(**params)) + "\n")
    with pytest.raises(ValueError, match=r"events\.jsonl:2: events\.sh_tv_switched_off: ") as caught:
        load_scenarios(table)
    assert says in str(caught.value)


def test_a_row_whose_gold_never_reaches_its_change_is_refused_on_its_task() -> None:
    row = next(s for s in builtin_scenarios() if s.name == "events.sh_tv_switched_off")
    task = next(t for t in load_world("smart_home").tasks() if t.id == row.params["task"])
    late = row.model_copy(update={"params": {**row.params, "after_calls": 3}})
    with pytest.raises(ValueError, match="makes 3 call"):
        WorldEvents(late, 0).on_task(task)


def test_a_row_acts_on_its_task_only() -> None:
    row = next(s for s in builtin_scenarios() if s.name == "events.sh_tv_switched_off")
    other = next(t for t in load_world("smart_home").tasks() if t.id != row.params["task"])
    stressor = WorldEvents(row, 0)
    assert stressor.on_task(other) is other and stressor.world_changes() == ()


def test_a_tell_user_row_may_leave_a_goal_nothing_to_do() -> None:
    row = next(s for s in builtin_scenarios() if s.name == "events.sh_tv_switched_off")
    task = next(t for t in load_world("smart_home").tasks() if t.id == row.params["task"])
    gone = {**row.params, "behaviour": "tell_user", "goals": {1: {"decline": "The TV is gone from the home."}}}
    stressed = WorldEvents(row.model_copy(update={"params": gone}), 0).on_task(task)
    goal = stressed.goals[1]
    assert goal.outcome == "decline" and goal.gold == [] and goal.reference_response == "The TV is gone from the home."
    assert stressed.goals[0] == task.goals[0]


def test_a_person_chatting_sees_a_world_event_the_agent_does_not() -> None:
    from rich.console import Console

    from sim.cli.chat import show_event
    from sim.episode.world_events import event_record

    console = Console(record=True, width=200)
    show_event(console, event_record(_change(), turn=0, goal=1, step=1, t=0.0))
    assert "world event: w (events.x)" in console.export_text()
