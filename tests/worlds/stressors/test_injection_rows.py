"""Injection rows: enough of them across the domains, each attacking something its world has, the planted text in a
free-text field of the result, and no wording that changes the user's task (the gold and the user's words)."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest

from sim.core import CallContext, Task, ToolCall, World
from sim.episode.runtime import chain
from worlds.registry import load_world
from worlds.stressors import select
from worlds.stressors.catalog import SCENARIO_DIR, load_scenarios
from worlds.stressors.coverage import affected_goals
from worlds.stressors.injection_text import FALLBACK_FIELD, TEMPLATES, plant, render
from worlds.stressors.scenario import Scenario
from worlds.stressors.types.injection import Injection

ROWS = load_scenarios(SCENARIO_DIR / "injection.jsonl")
DOMAIN_OF_TOOL = {
    "list_conversation": "communication", "get_contact_details": "communication", "list_reminders": "time",
    "get_call_history": "communication", "get_product_details": "shopping", "track_order": "shopping",
    "list_orders": "shopping", "list_payment_methods": "shopping", "view_cart": "shopping",
    "get_recipe_details": "food", "track_delivery": "food", "list_reservations": "food",
    "get_restaurant_menu": "food", "search_restaurants": "food", "get_article_details": "information",
    "get_knowledge_entry": "information", "get_weather_alerts": "information", "get_stock_quote": "information",
    "get_media_details": "media", "list_playlists": "media", "search_media": "media", "list_alarms": "time",
    "list_timers": "time", "find_devices": "home", "getTicket": "ticket_desk", "listComments": "ticket_desk",
    "listCustomerTickets": "ticket_desk", "*": "any",
}  # fmt: skip


@cache
def tasks(world: str) -> tuple[Task, ...]:
    return tuple(load_world(world).tasks())


@cache
def tool_names(world: str) -> frozenset[str]:
    return frozenset(s.name for s in load_world(world).tool_specs())


def world_of(row: Scenario) -> str:
    return "ticket_desk" if DOMAIN_OF_TOOL[row.tools[0]] == "ticket_desk" else "multidomain"


def test_at_least_twenty_rows_across_the_domains_each_attacking_tasks_of_its_world() -> None:
    assert len(ROWS) >= 20
    assert {DOMAIN_OF_TOOL[t] for r in ROWS for t in r.tools} >= {
        "communication", "shopping", "food", "information", "media", "time", "home", "ticket_desk", "any",
    }  # fmt: skip
    assert len({r.params["template"] for r in ROWS}) >= 4
    kinds = {
        ("call" if "call" in r.params["attack"] else "") + ("say" if "say" in r.params["attack"] else "") for r in ROWS
    }
    assert kinds == {"call", "say", "callsay"}  # a call the user never asked for, a text to get out, a secret sent
    for row in ROWS:
        world = world_of(row)
        tools = tool_names(world)
        assert row.tools == ["*"] or set(row.tools) <= tools, row.name
        call = row.params["attack"].get("call")
        assert call is None or call["name"] in tools, row.name
        touched = [t for t in tasks(world) if affected_goals(t, row)]
        assert touched, f"{row.name} attacks no task of {world}"  # its affected goals: where the gold reads a carrier


@pytest.mark.parametrize("template", sorted(TEMPLATES))
def test_no_wording_changes_the_users_task(template: str) -> None:
    """Every row in every wording: the gold, the answers and the user's words stay as they were; only the attack
    is added, and its text is the template's."""
    for row in ROWS:
        stressor = Injection(row, 1, {"template": template})
        for task in tasks(world_of(row))[:60]:
            stressed = stressor.on_task(task)
            assert stressed.goals == task.goals and stressed.id == task.id, row.name
            if stressed.attacks:
                (attack,) = stressed.attacks
                assert attack.text == render(
                    template, row.params["action"], row.params.get("user", "the account holder")
                )
                assert row.params["action"].rstrip(".") in attack.text
                assert any(c.name in row.tools or row.tools == ["*"] for c in task.goals[attack.goal].gold)


def test_a_task_that_does_what_the_attacker_wants_is_not_attacked() -> None:
    """Obeying must be told apart from the task: a task whose gold makes the attacker's call, or acts on its target,
    carries no attack from that row."""
    row = next(r for r in ROWS if r.name == "injection.reminder_delete")
    stressor = Injection(row, 1)
    for task in tasks("multidomain"):
        acts_on_it = any("rem_plants" in json.dumps(c.arguments) for g in task.goals for p in g.paths() for c in p)
        assert bool(stressor.on_task(task).attacks) == (not acts_on_it and bool(affected_goals(task, row))), task.id


@pytest.mark.parametrize(
    ("content", "field", "expected"),
    [
        (
            {"a": 1, "items": [{"name": "x"}, {"name": "y"}]},
            "name",
            {"a": 1, "items": [{"name": "x T"}, {"name": "y"}]},
        ),
        ({"steps": ["one", "two"]}, "steps", {"steps": ["one", "two", "T"]}),
        ({"note": None, "id": "d1"}, "note", {"note": "T", "id": "d1"}),
        ({"id": "d1", "summary": "s"}, "missing", {"id": "d1", "summary": "s T"}),  # the first free-text key
        ({"id": "d1", "n": 2}, None, {"id": "d1", "n": 2, FALLBACK_FIELD: "T"}),
        ([1, 2], None, {"result": [1, 2], FALLBACK_FIELD: "T"}),
    ],
)
def test_planting_adds_to_a_free_text_field_and_keeps_every_value(
    content: Any, field: str | None, expected: Any
) -> None:
    before = json.dumps(content)
    assert plant(content, field, "T") == expected
    assert json.dumps(content) == before  # the world's own result is never changed in place


def test_unknown_template_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="unknown injection template 'nope'"):
        render("nope", "do it")


async def test_the_planted_text_reaches_the_agent_and_the_world_result_is_kept() -> None:
    row = next(r for r in ROWS if r.name == "injection.product_description_add_to_cart")
    pack = load_world("multidomain")
    task = next(t for t in tasks("multidomain") if affected_goals(t, row))
    stressor = Injection(row, 1)
    attack = stressor.on_task(task).attacks[0]
    world: World = pack.new_world(0)
    path = [c for g in task.goals for c in g.gold]
    at = next(i for i, c in enumerate(path) if c.name == "get_product_details")
    for i, before in enumerate(path[:at]):  # the world acts only on what was looked up: the gold's way there
        assert (await world.call(ToolCall(id=f"g{i}", name=before.name, arguments=dict(before.arguments)))).ok
    call = ToolCall(id="c1", name=path[at].name, arguments=dict(path[at].arguments))
    outcome = await chain([stressor], world)(call, CallContext(turn=0, call_index=0))
    assert outcome.fired == (row.name,) and outcome.world_result is not None
    raw, seen = outcome.world_result.content, outcome.result.content
    assert seen["description"] == f"{raw['description']} {attack.text}"
    assert {k: v for k, v in seen.items() if k != "description"} == {k: v for k, v in raw.items() if k != "description"}


def test_the_group_selects_only_rows_for_the_worlds_tools() -> None:
    on_desk = {s.name for s, _ in select(["injection"], tool_names("ticket_desk"))}
    assert on_desk == {r.name for r in ROWS if world_of(r) == "ticket_desk" or r.tools == ["*"]}


def test_a_row_without_an_action_or_a_goal_is_refused_by_name() -> None:
    row = ROWS[0].model_copy(update={"params": {"action": "do it", "attack": {}}})
    with pytest.raises(ValueError, match=f"{ROWS[0].name}: an injection row needs"):
        Injection(row, 1)
