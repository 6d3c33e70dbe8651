"""BFCL's multi-turn categories as a squall world, checked against BFCL's own executor and state comparison.

BFCL's functions are imported here, in tests only: the world itself never runs BFCL's checker code."""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence
from typing import Any

import pytest

pytest.importorskip("bfcl_eval")

from bfcl_eval.constants.default_prompts import DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC
from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import _compare_instances
from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import execute_multi_turn_func_call

from sim.core import Task, ToolCall, WorldContext
from worlds.bfcl.multi_turn_pack import MultiTurnPack
from worlds.bfcl.multi_turn_world import BfclWorld
from worlds.bfcl.source import data_file, read_lines
from worlds.registry import WorldLoadError, load_world

CATEGORIES = ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context")


@pytest.fixture(scope="module")
def pack() -> MultiTurnPack:
    return MultiTurnPack("bfcl:multi_turn", CATEGORIES)


def world_for(pack: MultiTurnPack, task: Task) -> BfclWorld:
    return pack.new_world(0, WorldContext(task=task))


def run(world: BfclWorld, name: str, **arguments: Any) -> Any:
    return world.execute(ToolCall(id="c", name=name, arguments=arguments))


def test_all_800_entries_load_with_the_contract_names_and_tags(pack: MultiTurnPack) -> None:
    tasks = pack.tasks()
    assert len(tasks) == 800 and len({t.id for t in tasks}) == 800
    for category in CATEGORIES:
        mine = [t for t in tasks if t.id.rsplit("_", 1)[0] == category]
        assert len(mine) == 200
        assert all(t.world == "bfcl:multi_turn" and {"bfcl", f"bfcl:{category}"} <= set(t.tags) for t in mine)
    assert sum(len(g.gold) for t in tasks for g in t.goals) == 4625
    assert all(c.role == "core" and c.result is not None for t in tasks for g in t.goals for c in g.gold)
    assert len(pack.tool_specs()) == 128


def test_goals_are_the_turns_and_positional_gold_is_named(pack: MultiTurnPack) -> None:
    task = next(t for t in pack.tasks() if t.id == "multi_turn_base_0")
    raw = next(e for e in read_lines(data_file("multi_turn_base")) if e["id"] == "multi_turn_base_0")
    assert [g.user.explicit for g in task.goals] == [turn[0]["content"] for turn in raw["question"]]
    sort = task.goals[2].gold[0]  # BFCL writes sort('final_report.pdf')
    assert (sort.name, sort.arguments) == ("sort", {"file_name": "final_report.pdf"})


def test_gold_results_are_what_bfcl_executes_on_every_entry(pack: MultiTurnPack) -> None:
    entries = {e["id"]: e for c in CATEGORIES for e in read_lines(data_file(c))}
    for task in pack.tasks():
        entry = entries[task.id]
        for t, goal in enumerate(task.goals):
            source = pack.entry(task.id)
            assert source is not None
            expected, _ = execute_multi_turn_func_call(
                list(source.ground_truth[t]),
                entry["initial_config"],
                entry["involved_classes"],
                "squall_test",
                task.id,
                long_context="long_context" in task.id,
            )
            assert [c.result for c in goal.gold] == expected, (task.id, t)


def test_miss_func_hides_the_function_until_the_turn_that_adds_it_back(pack: MultiTurnPack) -> None:
    task = next(t for t in pack.tasks() if t.id == "multi_turn_miss_func_0")  # sort held out until turn 3
    tools = [g.tools for g in task.goals]
    assert all(t is not None for t in tools)
    assert [("sort" in t) for t in tools if t is not None] == [False, False, False, True, True]
    assert [g.outcome for g in task.goals] == ["solve", "solve", "decline", "solve", "solve"]
    assert task.goals[2].gold == []
    assert task.goals[3].user.explicit == DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC
    assert all(g.tools is None for t in pack.tasks() if "miss_func" not in t.id for g in t.goals)
    declines = [g for t in pack.tasks() if "miss_func" in t.id for g in t.goals if g.outcome == "decline"]
    assert len(declines) == 200 and all(not g.gold for g in declines)


def test_a_held_out_function_the_gold_calls_early_stays_callable(pack: MultiTurnPack) -> None:
    task = next(t for t in pack.tasks() if t.id == "multi_turn_miss_func_49")  # BFCL's gold calls tail in turn 1
    assert task.goals[1].tools is not None and "tail" in task.goals[1].tools
    assert task.goals[0].tools is not None and "tail" not in task.goals[0].tools


def test_miss_param_turns_withhold_and_the_next_turn_gives(pack: MultiTurnPack) -> None:
    task = next(t for t in pack.tasks() if t.id == "multi_turn_miss_param_0")
    withheld = [g for g, goal in enumerate(task.goals) if goal.user.withheld]
    assert withheld == [3] and task.goals[3].gold == [] and task.goals[3].outcome == "solve"
    assert task.goals[4].user.gives == task.goals[3].user.withheld
    marked = [t for t in pack.tasks() if any(g.user.withheld for g in t.goals)]
    assert {t.id.rsplit("_", 1)[0] for t in marked} == {"multi_turn_miss_param"} and len(marked) == 200


async def test_calls_answer_as_bfcl_and_statuses_say_what_happened(pack: MultiTurnPack) -> None:
    task = next(t for t in pack.tasks() if t.id == "multi_turn_base_0")
    world = world_for(pack, task)
    ok = await world.call(ToolCall(id="1", name="cd", arguments={"folder": "document"}))
    assert ok.status == "success" and ok.content == '{"current_working_directory": "document"}'
    unknown = await world.call(ToolCall(id="2", name="launch", arguments={}))
    assert unknown.status == "not_found" and unknown.content == "Error during execution: name 'launch' is not defined"
    bad = await world.call(ToolCall(id="3", name="cd", arguments={"dir": "x"}))
    assert bad.status == "invalid_arguments" and bad.content.startswith("Error during execution: ")
    assert "unexpected keyword argument 'dir'" in bad.content
    missing = await world.call(ToolCall(id="4", name="mv", arguments={"source": "final_report.pdf"}))
    assert missing.status == "invalid_arguments" and "destination" in missing.content
    crash = await world.call(ToolCall(id="5", name="cd", arguments={"folder": 5}))  # the backend raises
    assert crash.status == "failed"
    assert crash.content == "Error during execution: 'int' object has no attribute 'rstrip'"
    refused = await world.call(ToolCall(id="6", name="tail", arguments={"file_name": "nowhere.txt"}))
    assert refused.status == "success" and refused.content.startswith('{"error": ')  # BFCL's refusals are results


def test_a_world_without_a_task_offers_every_tool_and_runs(pack: MultiTurnPack) -> None:
    world = pack.new_world(3)
    assert len(world.specs()) == 128 and set(world.instances) == set(pack.backends.classes)
    assert run(world, "add", a=2, b=3).status == "success"


def test_each_episode_gets_fresh_instances_and_snapshots_restore(pack: MultiTurnPack) -> None:
    task = next(t for t in pack.tasks() if t.id == "multi_turn_base_0")
    first, second = world_for(pack, task), world_for(pack, task)
    before = first.state_hash()
    snap = first.snapshot()
    assert run(first, "cd", folder="document").ok and run(first, "mkdir", dir_name="temp").ok
    assert first.task_state() and not second.task_state() and second.state_hash() == before
    first.restore(snap)
    assert first.state_hash() == before and first.task_state() == {}
    assert run(first, "ls").content == run(second, "ls").content  # the working directory came back too


def test_gold_argument_lists_are_never_shared_with_a_backend(pack: MultiTurnPack) -> None:
    task = next(t for t in pack.tasks() if t.id == "multi_turn_base_147")  # post_tweet keeps its mentions list
    gold = [c for g in task.goals for c in g.gold]
    frozen = copy.deepcopy([c.arguments for c in gold])
    for _ in range(2):
        world = world_for(pack, task)
        for call in gold:
            assert world.execute(ToolCall(id="g", name=call.name, arguments=call.arguments)).ok
    assert [c.arguments for c in gold] == frozen


def _replay(world: BfclWorld, calls: Sequence[tuple[str, dict[str, Any]]]) -> None:
    for name, arguments in calls:
        world.execute(ToolCall(id="r", name=name, arguments=arguments))


def _bfcl_equal(a: BfclWorld, b: BfclWorld) -> bool:
    return all(_compare_instances(a.instances[name], b.instances[name])[0] for name in b.instances)


def _damaged(calls: list[tuple[str, dict[str, Any]]], rng: random.Random) -> list[tuple[str, dict[str, Any]]]:
    out = [(n, copy.deepcopy(a)) for n, a in calls]
    kind = rng.choice(["drop", "swap", "value", "repeat"])
    i = rng.randrange(len(out))
    if kind == "drop":
        del out[i]
    elif kind == "swap" and len(out) > 1:
        j = rng.randrange(len(out))
        out[i], out[j] = out[j], out[i]
    elif kind == "repeat":
        out.insert(i, out[i])
    else:
        _, arguments = out[i]
        for key, value in arguments.items():
            if isinstance(value, str):
                arguments[key] = value + "x"
            elif isinstance(value, bool):
                arguments[key] = not value
            elif isinstance(value, int | float):
                arguments[key] = value + 1
            break
    return out


def test_task_states_are_equal_exactly_when_bfcl_compares_the_instances_equal(pack: MultiTurnPack) -> None:
    rng = random.Random(20)
    agreed = differed = 0
    for task in pack.tasks()[::4]:
        gold = [(c.name, c.arguments) for g in task.goals for c in g.gold]
        if not gold:
            continue
        reference = world_for(pack, task)
        _replay(reference, gold)
        for _ in range(3):
            other = world_for(pack, task)
            _replay(other, _damaged(gold, rng))
            same_state = other.task_state() == reference.task_state()
            assert same_state == _bfcl_equal(other, reference), task.id
            agreed += 1
            differed += not same_state
    assert agreed > 500 and differed > 100  # the damage moved the state often enough to test both answers


def test_the_registry_hook_names_the_pack_as_the_spec_and_explains_what_it_cannot_load() -> None:
    pack = load_world("bfcl:multi_turn_miss_param")
    assert pack.name == "bfcl:multi_turn_miss_param" and len(pack.tasks()) == 200
    assert {t.world for t in pack.tasks()} == {"bfcl:multi_turn_miss_param"}
    with pytest.raises(WorldLoadError, match="not supported: needs live web search"):
        load_world("bfcl:web_search")
    with pytest.raises(WorldLoadError, match="unknown BFCL category"):
        load_world("bfcl:nothing")


def test_refusals_and_errors_read_exactly_as_bfcl_executes_them(pack: MultiTurnPack) -> None:
    task = next(t for t in pack.tasks() if t.id == "multi_turn_base_0")
    entry = next(e for e in read_lines(data_file("multi_turn_base")) if e["id"] == task.id)
    calls = [
        ("launch()", "launch", {}),
        ("cd(dir='x')", "cd", {"dir": "x"}),
        ("mv(source='final_report.pdf')", "mv", {"source": "final_report.pdf"}),
        ("cd(folder=5)", "cd", {"folder": 5}),
        ("tail(file_name='nowhere.txt')", "tail", {"file_name": "nowhere.txt"}),
        ("cd(folder='document')", "cd", {"folder": "document"}),
    ]
    expected, _ = execute_multi_turn_func_call(
        [text for text, _, _ in calls], entry["initial_config"], entry["involved_classes"], "squall_errors", task.id
    )
    world = world_for(pack, task)
    assert [run(world, name, **arguments).content for _, name, arguments in calls] == expected
