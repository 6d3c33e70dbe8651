"""BFCL's single-turn categories as squall worlds: every category loads with BFCL's entry count, tasks carry the
contract's tags, tools, gold and instructions, and the world answers every call neutrally."""

from __future__ import annotations

import pytest

pytest.importorskip("bfcl_eval")

from sim.core import Task, ToolCall, WorldContext
from worlds.bfcl.single_turn import NEUTRAL, SingleTurnPack, single_turn_pack
from worlds.registry import load_world

COUNTS = {
    "simple_python": 400,
    "multiple": 200,
    "parallel": 200,
    "parallel_multiple": 200,
    "live_simple": 258,
    "live_multiple": 1053,
    "live_parallel": 16,
    "live_parallel_multiple": 24,
    "irrelevance": 240,
    "live_irrelevance": 884,
    "live_relevance": 16,
}


@pytest.mark.parametrize("category", sorted(COUNTS))
def test_every_category_loads_with_its_entries(category: str) -> None:
    pack = single_turn_pack(category)
    tasks = pack.tasks()
    assert pack.name == f"bfcl:{category}" and len(tasks) == COUNTS[category]
    for task in tasks:
        assert task.world == pack.name and task.tags == ["bfcl", f"bfcl:{category}"] and len(task.goals) == 1
        goal = task.goals[0]
        assert goal.tools is not None and {g.name for g in goal.gold} <= set(goal.tools)
        assert (goal.outcome == "decline") == ("irrelevance" in category) and bool(goal.gold) != (
            goal.outcome == "decline"
        )


def by_id(category: str, entry: str) -> tuple[SingleTurnPack, Task]:
    pack = single_turn_pack(category)
    task = next(t for t in pack.tasks() if t.id == entry)
    return pack, task


def test_the_alias_names_the_pack_and_the_registry_finds_it() -> None:
    pack = load_world("bfcl:simple")
    assert pack.name == "bfcl:simple" and pack.tasks()[0].tags == ["bfcl", "bfcl:simple_python"]


def test_gold_takes_each_first_accepted_value_and_keeps_the_whole_list() -> None:
    _, task = by_id("simple_python", "simple_python_89")
    (gold,) = task.goals[0].gold
    assert gold.arguments["conditions"] == {"department": "Science", "school": "Bluebird High School"}
    assert gold.arguments["fetch_limit"] == 0 and gold.accepted["fetch_limit"] == ["", 0]
    _, task = by_id("parallel_multiple", "parallel_multiple_12")
    assert all("permeability" not in g.arguments for g in task.goals[0].gold)
    _, task = by_id("live_multiple", "live_multiple_507-149-4")
    assert task.goals[0].gold[0].arguments["origin_airport"] == ""


def test_dotted_names_are_rewritten_in_tools_and_gold() -> None:
    pack = single_turn_pack("simple_python")
    task = next(t for t in pack.tasks() if t.goals[0].gold[0].name == "math_factorial")  # math.factorial in BFCL
    world = pack.new_world(0, WorldContext(task=task))
    assert [s.name for s in world.specs()] == task.goals[0].tools == ["math_factorial"]
    assert all("." not in s.name for s in pack.tool_specs())


async def test_the_world_answers_neutrally_and_records_calls() -> None:
    pack, task = by_id("live_simple", "live_simple_58-27-0")
    world = pack.new_world(0, WorldContext(task=task))
    assert "movie" in world.instructions()  # the entry's system message
    result = await world.call(ToolCall(id="c1", name=world.specs()[0].name, arguments={"city": "Mumbai"}))
    assert result.ok and result.content == NEUTRAL and len(world.snapshot()) == 1


def test_an_earlier_conversation_goes_to_the_instructions() -> None:
    pack, task = by_id("live_irrelevance", "live_irrelevance_292-72-1")
    world = pack.new_world(0, WorldContext(task=task))
    assert "The conversation so far:" in world.instructions() and "mabar" in world.instructions()
    assert task.goals[0].user.explicit == "ede"
