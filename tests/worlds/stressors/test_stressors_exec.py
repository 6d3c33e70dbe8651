"""Execution-level scenarios (notice, irrelevant, limitation, failure), every row of the table, on the real
multi-domain world through the real call chain; gold rewrites checked by executing them."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest

from sim.core import CallContext, CallOutcome, GoldCall, Task, ToolCall, ToolResult, World
from sim.episode.runtime import chain
from worlds.domains.multidomain.pack import MultiDomainPack
from worlds.gold_check import check_task
from worlds.stressors.catalog import SCENARIO_DIR, load_scenarios, stressor_class
from worlds.stressors.scenario import Scenario, ScenarioStressor
from worlds.stressors.types.failure import Failure
from worlds.stressors.types.irrelevant import Irrelevant
from worlds.stressors.types.limitation import Limitation
from worlds.stressors.types.notice import Notice

MINE = ("notice", "irrelevant", "limitation", "failure")
ROWS = [s for path in sorted(SCENARIO_DIR.glob("*.jsonl")) for s in load_scenarios(path) if s.type in MINE]
"""The shared table's rows (a world's own, such as τ²'s, are tested with that world)."""
ERROR_STATUSES = {"invalid_arguments", "not_found", "unavailable", "rate_limited", "timeout", "unauthorized", "failed"}
Site = tuple[Task, int, list[GoldCall], int]


@cache
def pack() -> MultiDomainPack:
    return MultiDomainPack()


def row(name: str) -> Scenario:
    return next(s for s in ROWS if s.name == name)


def build(scenario: Scenario, seed: int = 1, **overrides: Any) -> ScenarioStressor:
    return stressor_class(scenario.type)(scenario, seed, overrides)


def sites(tool: str, where: Callable[[GoldCall], bool] = lambda c: True) -> list[Site]:
    """Every gold call to ``tool`` in the shipped conversations (any path), as (task, turn, path, index)."""
    found = []
    for task in pack().tasks():
        for t, turn in enumerate(task.goals):
            for path in turn.paths():
                found += [(task, t, path, c) for c, call in enumerate(path) if call.name == tool and where(call)]
    return found


async def replay(world: World, calls: list[GoldCall]) -> None:
    for c, gold in enumerate(calls):
        result = await world.call(ToolCall(id=f"g{c}", name=gold.name, arguments=dict(gold.arguments)))
        assert result.ok, (gold, result.content)


async def world_at(site: Site) -> World:
    """A fresh world with everything before the site's call done (earlier turns, then the path's prefix)."""
    task, t, path, c = site
    world = pack().new_world(0)
    for turn in task.goals[:t]:
        await replay(world, turn.gold)
    await replay(world, path[:c])
    return world


def target_call(stressor: ScenarioStressor) -> tuple[Site, ToolCall]:
    """A real call the scenario acts on: a shipped gold call, with the row's ``example`` arguments where the
    shipped gold never meets a limitation's condition."""
    scenario = stressor.scenario
    tool = "list_alarms" if scenario.tools == ["*"] else scenario.tools[0]
    if isinstance(stressor, Limitation):
        hits = sites(tool, stressor.blocks)
        if hits:
            site = hits[0]
            return site, ToolCall(id="c1", name=tool, arguments=dict(site[2][site[3]].arguments))
        site = sites(tool)[0]
        arguments = {**site[2][site[3]].arguments, **stressor.params["example"]}
        return site, ToolCall(id="c1", name=tool, arguments=arguments)
    site = sites(tool)[0]
    return site, ToolCall(id="c1", name=tool, arguments=dict(site[2][site[3]].arguments))


async def run(stressor: ScenarioStressor, world: World, call: ToolCall) -> tuple[ToolResult, CallOutcome]:
    outcome = await chain([stressor], world)(call, CallContext(turn=0, call_index=0))
    return outcome.result, outcome


def test_table_covers_every_type() -> None:
    for kind in MINE:
        rows = [s for s in ROWS if s.type == kind]
        assert len(rows) >= 8, kind
        assert len({s.tools[0] for s in rows}) >= 8, kind
    errors = [s for s in ROWS if s.type in ("limitation", "failure")]
    assert len(errors) >= 16 and all(s.reference_response and len(s.criteria) >= 2 for s in errors)
    tools = {s.name for s in pack().new_world(0).specs()}
    assert all(t in tools for s in ROWS for t in s.tools if t != "*")


@pytest.mark.parametrize("scenario", ROWS, ids=lambda s: s.name)
async def test_row_acts_on_its_tool(scenario: Scenario) -> None:
    stressor = build(scenario, rate=1.0)
    site, call = target_call(stressor)
    world = await world_at(site)
    result, outcome = await run(stressor, world, call)
    assert outcome.fired == (scenario.name,)
    params = stressor.params
    raw = outcome.world_result
    if isinstance(stressor, Notice):
        assert result.ok and raw is not None
        field = params.get("field", "notice")
        assert result.content[field] == params["text"]
        assert {k: v for k, v in result.content.items() if k != field} == raw.content
    elif isinstance(stressor, Irrelevant):
        assert result.ok and raw is not None
        key = params["list_key"]
        entries = result.content[key]
        marker = set(params["marker"])
        injected = [e for e in entries if marker <= set(e)]
        real = [e for e in entries if not marker <= set(e)]
        assert real == raw.content[key]  # nothing real removed, changed or reordered
        assert len(injected) == params["size"] and entries[0] in injected
        assert all(set(e) - marker == set(raw.content[key][0]) for e in injected)  # same shape
    elif isinstance(stressor, Limitation):
        assert raw is None  # refused before the world
        assert result.status == params.get("status", "failed") and result.error_code == params["code"]
        assert "{" not in result.content["error"]
    else:
        assert result.status in ERROR_STATUSES and result.error_code
        assert (raw is not None) == bool(params.get("executed"))
        assert re.search(r"[0-9a-f]{16}", result.content["error"])  # a seeded trace id

    # A call the scenario does not target passes untouched.
    other = ToolCall(id="c2", name="get_current_time", arguments={})
    if scenario.tools == ["*"]:
        _, outcome = await run(build(scenario, rate=1.0), pack().new_world(0), other)
        assert outcome.fired == (scenario.name,)  # the wildcard targets every tool
    else:
        clean = await pack().new_world(0).call(other)
        result, outcome = await run(build(scenario, rate=1.0), pack().new_world(0), other)
        assert outcome.fired == () and result == clean


@pytest.mark.parametrize("scenario", [s for s in ROWS if s.type == "limitation"], ids=lambda s: s.name)
async def test_limitation_gold_takes_the_workaround(scenario: Scenario) -> None:
    """The oracle path: the rewritten gold executes through the stressor without it firing, every path of
    every turn agrees (check_task), and no path keeps a refused call."""
    stressor = build(scenario)
    assert isinstance(stressor, Limitation)
    tasks = [t for t in pack().tasks() if any(stressor.blocks(c) for turn in t.goals for p in turn.paths() for c in p)]
    if not tasks:  # the shipped gold never meets the condition: one built from the row's example
        site, call = target_call(stressor)
        task, t, path, c = site
        turn = task.goals[t].model_copy(
            update={"gold": [*path[:c], GoldCall(name=call.name, arguments=call.arguments)], "alternatives": []}
        )
        tasks = [task.model_copy(update={"goals": [*task.goals[:t], turn]})]
    for task in tasks:
        rewritten = stressor.on_task(task)
        await check_task(pack().new_world(0), rewritten)
        world = pack().new_world(0)
        dispatch = chain([stressor], world)
        for t, turn in enumerate(rewritten.goals):
            assert not any(stressor.blocks(c) for p in turn.paths() for c in p)
            hit = any(stressor.blocks(c) for p in task.goals[t].paths() for c in p)
            own = task.goals[t].reference_response
            assert turn.reference_response == (own or scenario.reference_response if hit else own)
            for c, gold in enumerate(turn.gold):
                ctx = CallContext(turn=t, goal=t, call_index=c)
                outcome = await dispatch(ToolCall(id=f"o{c}", name=gold.name, arguments=dict(gold.arguments)), ctx)
                assert outcome.result.ok and outcome.fired == (), (task.id, t, gold, outcome.result.content)


@pytest.mark.parametrize("scenario", [s for s in ROWS if s.params.get("required_followup")], ids=lambda s: s.name)
async def test_notice_followup_joins_the_gold_and_executes(scenario: Scenario) -> None:
    stressor = build(scenario)
    assert isinstance(stressor, Notice)
    tool = scenario.tools[0]
    tasks = [t for t in pack().tasks() if any(c.name == tool for turn in t.goals for p in turn.paths() for c in p)]
    assert tasks, f"no shipped conversation uses {tool}"
    for task in tasks:
        rewritten = stressor.on_task(task)
        await check_task(pack().new_world(0), rewritten)  # the companion really runs after the targeted call
        for turn in rewritten.goals:
            for path in turn.paths():
                for i, call in enumerate(path):
                    if call.name == tool:
                        companion = stressor.followup(call)
                        assert companion is not None and companion.role == "core"
                        assert any(c == companion for c in path[i + 1 :]), (task.id, path)
        # Replayed through the stressor, the notice fires on the targeted call and the companion succeeds.
        world = pack().new_world(0)
        dispatch = chain([stressor], world)
        fired: list[str] = []
        for t, turn in enumerate(rewritten.goals):
            for c, gold in enumerate(turn.gold):
                ctx = CallContext(turn=t, goal=t, call_index=c)
                outcome = await dispatch(ToolCall(id=f"o{c}", name=gold.name, arguments=dict(gold.arguments)), ctx)
                assert outcome.result.ok, (task.id, gold, outcome.result.content)
                fired += outcome.fired
        assert scenario.name in fired


async def _errors(stressor: ScenarioStressor, calls: int, tool: str = "get_current_time") -> list[str | None]:
    world = pack().new_world(0)
    out = []
    for i in range(calls):
        result, _ = await run(stressor, world, ToolCall(id=f"c{i}", name=tool, arguments={}))
        out.append(None if result.ok else json.dumps(result.content))
    return out


async def test_failure_is_deterministic_and_respects_its_rate() -> None:
    scenario = row("failure.any_tool")
    first = await _errors(build(scenario, seed=7), 2000)
    assert first == await _errors(build(scenario, seed=7), 2000)  # same seed, same errors and trace ids
    assert first != await _errors(build(scenario, seed=8), 2000)
    rate = sum(e is not None for e in first) / len(first)
    assert 0.07 < rate < 0.13
    half = await _errors(build(scenario, seed=7, rate=0.5), 2000)
    assert 0.45 < sum(e is not None for e in half) / 2000 < 0.55
    assert len({e for e in first if e}) > 50  # trace ids differ per call


async def test_failure_transient_lets_the_retry_through() -> None:
    scenario = row("failure.booking_partner_timeout")
    stressor = build(scenario)
    site, call = target_call(stressor)
    world = await world_at(site)
    statuses = []
    for _ in range(3):
        result, _ = await run(stressor, world, call)
        statuses.append(result.status)
    assert statuses == ["timeout", "timeout", "success"]
    quote = build(row("failure.stock_feed_transient"))
    site, call = target_call(quote)
    world = await world_at(site)
    assert [(await run(quote, world, call))[0].ok for _ in range(2)] == [False, True]


async def test_failure_after_commit_changes_the_world() -> None:
    stressor = build(row("failure.checkout_timeout_after_commit"))
    site, call = target_call(stressor)
    world = await world_at(site)
    before = world.state_hash()
    result, outcome = await run(stressor, world, call)
    assert result.status == "timeout" and outcome.world_result is not None and outcome.world_result.ok
    assert world.state_hash() != before  # the order went through although the agent saw a timeout


async def test_failure_and_limitation_attach_reference_responses() -> None:
    scenario = row("failure.message_relay_down")
    task = sites("send_message")[0][0]
    rewritten = build(scenario).on_task(task)
    for old, new in zip(task.goals, rewritten.goals, strict=True):
        uses = any(c.name == "send_message" for p in old.paths() for c in p)
        assert new.reference_response == (scenario.reference_response if uses else old.reference_response)
        assert new.gold == old.gold


async def test_irrelevant_is_long_and_seeded() -> None:
    scenario = row("irrelevant.product_ads_flood")
    site, call = target_call(build(scenario))
    texts = []
    for _ in range(2):
        result, _ = await run(build(scenario, seed=3), await world_at(site), call)
        texts.append(json.dumps(result.content))
    assert texts[0] == texts[1] and len(texts[0]) > 12_000  # thousands of tokens
    other, _ = await run(build(scenario, seed=4), await world_at(site), call)
    assert json.dumps(other.content) != texts[0]


def test_stressors_do_not_mutate_shared_tasks() -> None:
    for scenario in ROWS:
        stressor = build(scenario)
        for task in pack().tasks()[:40]:
            before = task.model_dump_json()
            stressor.on_task(task)
            assert task.model_dump_json() == before, scenario.name


def test_types_are_the_catalogs_classes() -> None:
    assert stressor_class("notice") is Notice and stressor_class("irrelevant") is Irrelevant
    assert stressor_class("limitation") is Limitation and stressor_class("failure") is Failure
