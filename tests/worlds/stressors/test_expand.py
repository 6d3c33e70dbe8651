"""Toolkit expansion: closed worlds of 3, 9, 27 and 81 tools on both shipped worlds and on a world without a
catalog. Every needed tool is offered, the size is exact, the toolkit is seeded; synthetic tools are answered by the
stressor without touching the world; the oracle keeps full marks with each size."""

from __future__ import annotations

import random
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sim.cli.app import app
from sim.config.run_config import RunConfig
from sim.core import CallContext, Goal, GoldCall, Task, ToolCall, ToolSpec, UserIntent, through_stressors
from sim.episode.runtime import chain
from sim.run.runner import execute
from worlds.registry import load_world
from worlds.stressors.catalog import builtin_scenarios, select, stressor_class
from worlds.stressors.expand.templates import TEMPLATES, Candidate, templated_candidates
from worlds.stressors.expand.toolkit import choose_toolkit, lexical_pool, pool_for, renamed_from, shipped_catalog
from worlds.stressors.types.expand import ToolkitExpansion, needed_tools

ROWS = [s for s in builtin_scenarios() if s.type == "expand" and "size" in s.params]  # plus_N: test_expand_plus
SIZES = {s.name: s.params["size"] for s in ROWS}
WORLDS = ("smart_home", "multidomain")


@cache
def tasks(world: str) -> tuple[Task, ...]:
    return tuple(load_world(world).tasks())


@cache
def specs(world: str) -> tuple[ToolSpec, ...]:
    return tuple(load_world(world).new_world(0).specs())


def stressor(name: str, seed: int = 0, **overrides: Any) -> ToolkitExpansion:
    row = next(s for s in ROWS if s.name == name)
    built = stressor_class(row.type)(row, seed, overrides)
    assert isinstance(built, ToolkitExpansion)
    return built


def expanded(name: str, task: Task, tools: tuple[ToolSpec, ...], seed: int = 0) -> tuple[ToolkitExpansion, list[str]]:
    s = stressor(name, seed)
    s.on_task(task)
    out, _ = s.on_spec(list(tools), "instructions")
    return s, [t.name for t in out]


def sample_arguments(spec: ToolSpec) -> dict[str, Any]:
    """Valid arguments for a synthetic tool: every required one, with a value of its type."""
    samples = {"string": "2026-03-15T18:30", "integer": 3, "number": 1.5, "boolean": True, "array": [], "object": {}}
    properties = spec.parameters.get("properties", {})
    out: dict[str, Any] = {}
    for name in spec.parameters.get("required", []):
        schema = properties[name]
        value = schema["enum"][0] if "enum" in schema else samples[schema.get("type", "string")]
        if "pattern" in schema:  # e.g. a 4-digit PIN
            value = next(v for v in ("1234", "+447700900123", "x") if re.search(schema["pattern"], v))
        out[name] = schema.get("minimum", value) if isinstance(value, int | float) else value
    return out


def test_the_rows_are_listed_and_the_type_selects_all_four() -> None:
    assert sorted(SIZES.values()) == [3, 9, 27, 81]
    assert all(s.tools == ["*"] and s.level == "spec" for s in ROWS)
    selected = [s.name for s, _ in select(["expand"], [t.name for t in specs("smart_home")])]
    assert [n for n in selected if n in SIZES] == [s.name for s in ROWS]  # and the relative rows (plus_N)
    listed = CliRunner().invoke(app, ["stressors", "list", "--type", "expand"])
    assert listed.exit_code == 0 and all(name in listed.output for name in SIZES)


@pytest.mark.parametrize("world", WORLDS)
@pytest.mark.parametrize("name", list(SIZES))
def test_every_size_holds_exactly_the_needed_tools_and_its_closest_relatives(world: str, name: str) -> None:
    world_tools = {t.name for t in specs(world)}
    for task in tasks(world):
        s, names = expanded(name, task, specs(world))
        needed = set(needed_tools(task)) & world_tools
        assert len(names) == len(set(names)) == max(SIZES[name], len(needed)), task.id
        assert needed <= set(names), task.id
        synthetic = set(names) - world_tools
        assert synthetic == set(s.toolkit.offered), task.id
        assert s.toolkit.hidden == world_tools - set(names), task.id
        assert all(s.toolkit.offered[n].source in world_tools for n in synthetic)


@pytest.mark.parametrize("world", WORLDS)
def test_same_seed_same_toolkit_and_the_needed_tools_are_not_always_first(world: str) -> None:
    first_is_needed = 0
    for task in tasks(world)[:40]:
        _, a = expanded("expand.size_27", task, specs(world), seed=5)
        _, b = expanded("expand.size_27", task, specs(world), seed=5)
        _, other = expanded("expand.size_27", task, specs(world), seed=6)
        assert a == b and a != other, task.id
        first_is_needed += a[0] in needed_tools(task)
    assert first_is_needed < 30  # seeded order: gold is not where the agent looks first
    s = stressor("expand.size_9", seed=5)
    s.on_task(tasks(world)[0])
    again = [s.on_spec(list(specs(world)), "")[0] for _ in range(2)]
    assert again[0] == again[1]


@pytest.mark.parametrize("world", WORLDS)
@pytest.mark.slow
async def test_the_oracle_keeps_full_marks_with_each_size(world: str, tmp_path: Path) -> None:
    # 64 multidomain tasks keep it quick; the structural test above covers every task with every size
    config = {"out": tmp_path, "run_id": "r", "agent": "oracle", "world": world, "stressors": ["expand"], "limit": 64}
    store, summary = await execute(RunConfig.model_validate({**config, "stressor_mode": "isolated"}))
    assert summary["failed_episodes"] == 0 and summary["core_api_accuracy"] == 1.0
    assert summary["conversation_success"] == 1.0
    offered = {len(ep.tools) for ep in store.episodes() if ep.variant}
    assert {3, 9, 27, 81} & offered and max(offered) == 81
    assert any(len(ep.tools) == len(specs(world)) for ep in store.episodes() if not ep.variant)  # the baseline


async def test_the_oracle_keeps_full_marks_with_the_sizes_stacked(tmp_path: Path) -> None:
    config = {"out": tmp_path, "run_id": "r", "agent": "oracle", "world": "smart_home", "stressors": ["expand"]}
    _, summary = await execute(RunConfig.model_validate(config))
    assert summary["failed_episodes"] == 0 and summary["core_api_accuracy"] == 1.0


@pytest.mark.parametrize("world", WORLDS)
async def test_a_synthetic_call_is_answered_fires_and_leaves_the_world_alone(world: str) -> None:
    s, _ = expanded("expand.size_81", tasks(world)[0], specs(world))
    kinds_seen: set[str] = set()
    w = load_world(world).new_world(0)
    before = w.state_hash()
    for i, name in enumerate(sorted(s.toolkit.offered)):
        candidate = s.toolkit.offered[name]
        call = ToolCall(id=f"c{i}", name=name, arguments=sample_arguments(candidate.spec))
        outcome = await chain([s], w)(call, CallContext(turn=0, call_index=i))
        result = outcome.result
        assert result.ok, (name, result)
        assert outcome.fired == (s.name,) and outcome.world_result is None and w.state_hash() == before
        assert candidate.spec.read_only == (candidate.answer.kind != "ack")
        if candidate.answer.kind == "ack":
            assert (
                result.content["status"] == candidate.answer.status and f"{candidate.answer.key}_id" in result.content
            )
        kinds_seen.add(candidate.answer.kind)
        again = (await chain([s], w)(call, CallContext(turn=0, call_index=i))).result
        assert (again.content == result.content) == (candidate.answer.kind not in ("ack", "export"))  # a new id each
    assert kinds_seen == {"ack", "preview", "listing", "export", "help"}


async def test_bad_arguments_hidden_tools_and_kept_tools() -> None:
    task = tasks("smart_home")[3]
    s, names = expanded("expand.size_9", task, specs("smart_home"))
    w = load_world("smart_home").new_world(0)
    before = w.state_hash()
    dispatch = chain([s], w, lambda: frozenset(names))  # as the runtime chains it: the toolkit is what is callable
    schedule = next(n for n in s.toolkit.offered if s.toolkit.offered[n].answer.kind == "ack")
    for arguments in ({}, {"nonsense": 1}):
        ctx = CallContext(turn=0, call_index=0)
        refused = await dispatch(ToolCall(id="c", name=schedule, arguments=arguments), ctx)
        assert refused.result.status == "invalid_arguments" and refused.fired == (s.name,)
    hidden = sorted(s.toolkit.hidden)[0]
    refused = await dispatch(ToolCall(id="h", name=hidden, arguments={}), CallContext(turn=0, call_index=1))
    assert refused.result.error_code == "unknown_tool" and refused.unknown_tool and refused.world_result is None
    assert w.state_hash() == before
    assert "list_devices" in names  # needed by the task, so kept: its calls go to the world untouched
    passed = await dispatch(ToolCall(id="k", name="list_devices", arguments={}), CallContext(turn=0, call_index=2))
    assert passed.result.ok and passed.fired == () and passed.world_result is not None


def test_a_tool_an_earlier_stressor_renamed_keeps_its_documented_original() -> None:
    """Schema drift shows the old name and translates calls to the new one back to it: the old one must stay."""
    md = specs("multidomain")
    assert renamed_from("activate_scene_v2", frozenset({"scene_id"}), md) == ["activate_scene"]
    assert renamed_from("fetch_stock_quote", frozenset({"symbol"}), md) == ["get_stock_quote"]
    assert "remove_from_cart" in renamed_from("delete_cart_item", frozenset({"product_id"}), md)
    assert renamed_from("teleport", frozenset(), md) == []
    needed = {"activate_scene_v2": frozenset({"scene_id"}), "list_scenes": frozenset()}
    kit = choose_toolkit(md, needed, pool_for("multidomain", md), 3, random.Random(0))
    assert {"activate_scene", "list_scenes"} <= {t.name for t in kit.specs} and len(kit.specs) == 3
    taken = {"preview_activate_scene": frozenset({"scene_id"}), "activate_scene": frozenset({"scene_id"})}
    kit = choose_toolkit(md, taken, pool_for("multidomain", md), 81, random.Random(0))
    assert "preview_activate_scene" not in kit.offered  # a name the gold calls is never a synthetic tool


async def test_the_oracle_keeps_full_marks_when_expand_comes_after_a_renaming_drift(tmp_path: Path) -> None:
    using = [t.id for t in tasks("multidomain") if "activate_scene" in needed_tools(t)][:6]
    config = {"out": tmp_path, "run_id": "r", "agent": "oracle", "world": "multidomain", "tasks": using}
    store, summary = await execute(
        RunConfig.model_validate({**config, "stressors": ["drift.scene_v2", "expand.size_3"]})
    )
    assert summary["failed_episodes"] == 0 and summary["core_api_accuracy"] == 1.0
    assert any("drift.scene_v2" in e.scenarios for ep in store.episodes() for e in ep.events)


def test_the_shipped_catalogs_are_used_and_their_answers_are_honest_about_state() -> None:
    for world in WORLDS:
        catalog = shipped_catalog(world)
        assert catalog is not None and catalog.originals == [t.name for t in specs(world)]
        assert pool_for(world, list(specs(world))).filtered
        assert len(catalog.candidates) + len(catalog.originals) >= 81
        for candidate in catalog.candidates:
            assert candidate.spec.read_only == (candidate.answer.kind != "ack"), candidate.spec.name
            assert candidate.similarity is not None and candidate.similarity < catalog.threshold
            assert candidate.spec.name not in catalog.originals
    assert shipped_catalog("../smart_home") is None and shipped_catalog("no_such_world") is None


# a world with no catalog: the lexical fallback --------------------------------------------------------------

LIBRARY = [
    ToolSpec(name="search_books", description="Find books by title or author.", read_only=True,
             parameters={"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}),
    ToolSpec(name="get_book", description="A book's details and copies.", read_only=True,
             parameters={"type": "object", "properties": {"book_id": {"type": "string"}}, "required": ["book_id"]}),
    ToolSpec(name="borrow_book", description="Borrow a copy of a book for three weeks.",
             parameters={"type": "object", "properties": {"book_id": {"type": "string"}}, "required": ["book_id"]}),
    ToolSpec(name="return_book", description="Return a borrowed book.",
             parameters={"type": "object", "properties": {"loan_id": {"type": "string"}}, "required": ["loan_id"]}),
]  # fmt: skip


def library_task() -> Task:
    turn = Goal(
        user=UserIntent(explicit="Borrow Dune."),
        gold=[GoldCall(name="search_books", arguments={"query": "Dune"}, role="support"), GoldCall(name="borrow_book")],
    )
    return Task(id="lib-1", world="library", goals=[turn])


@pytest.mark.parametrize("name", list(SIZES))
async def test_a_world_without_a_catalog_gets_unfiltered_templated_neighbours(name: str) -> None:
    s, names = expanded(name, library_task(), tuple(LIBRARY))
    pool = pool_for("library", LIBRARY)
    assert not pool.filtered and pool is lexical_pool(tuple(LIBRARY))  # built once per toolkit
    available = len(LIBRARY) + len(pool.candidates)
    assert len(names) == min(SIZES[name], available) and {"search_books", "borrow_book"} <= set(names)
    assert available > 20  # four tools, over five neighbours each: a small world still gets a crowd
    synthetic = next(iter(s.toolkit.offered.values()))

    async def world_never_called(call: ToolCall) -> Any:
        raise AssertionError("a synthetic tool reached the world")

    call = ToolCall(id="c", name=synthetic.spec.name, arguments=sample_arguments(synthetic.spec))
    outcome = await through_stressors([s], call, CallContext(turn=0, call_index=0), world_never_called)
    assert outcome.result.ok and outcome.fired == (s.name,)


def test_a_renamed_world_with_shipped_names_falls_back_and_the_oracle_path_survives() -> None:
    task = tasks("smart_home")[0].model_copy(update={"world": "some_sql_world"})
    s, names = expanded("expand.size_27", task, specs("smart_home"))
    assert len(names) == 27 and set(needed_tools(task)) <= set(names)
    assert all(c.similarity is None for c in s.toolkit.offered.values())


def test_tools_an_earlier_stressor_added_are_kept_beside_the_closed_world() -> None:
    decoy = ToolSpec(name="get_scene_preview", description="A decoy.", read_only=True)
    s, names = expanded("expand.size_3", tasks("smart_home")[0], (*specs("smart_home"), decoy))
    assert "get_scene_preview" in names and "get_scene_preview" not in s.toolkit.offered


def test_templates_are_world_agnostic_and_never_shadow_an_original() -> None:
    candidates: list[Candidate] = templated_candidates(LIBRARY, taken=["export_book"])
    names = [c.spec.name for c in candidates]
    assert len(names) == len(set(names)) and not {t.name for t in LIBRARY} & set(names) and "export_book" not in names
    assert {c.origin.split(":")[1] for c in candidates} <= {t.slug for t in TEMPLATES}
    assert {"schedule_borrow_book", "preview_return_book", "save_books_search", "get_book_history"} <= set(names)


def test_choose_toolkit_is_a_pure_function_of_its_inputs() -> None:
    pool = lexical_pool(tuple(LIBRARY))
    needed = {"borrow_book": frozenset({"book_id"})}
    a = choose_toolkit(LIBRARY, needed, pool, 9, random.Random(1))
    b = choose_toolkit(LIBRARY, needed, pool, 9, random.Random(1))
    assert [t.name for t in a.specs] == [t.name for t in b.specs] and len(a.specs) == 9
