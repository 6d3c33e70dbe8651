"""Same verdicts from outside as from inside: squall's oracle policy run as an outside agent (behind ``python:`` and
``http:``), reaching its tools only over MCP, makes the same tool calls and gets the same scores as the in-process
``oracle`` — on smart_home and multidomain, unstressed and under the stressors that change the toolkit (a drift
rename, a missing function, tool search), which the outside agent sees only through ``tools/list``.

The oracle reads the gold and no outside agent is sent it: the test hands it over a side channel
(``tests.support.outside_agents.GOLDS``), so what is compared is the MCP hop, not two policies.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.config.run_config import RunConfig
from sim.core import EpisodeResult, Score
from sim.mockllm import EchoPolicy, MockConfig, start_mock_server
from sim.run.runner import execute
from tests.support.outside_agents import agent_service, feeding_golds
from tests.support.reader_policy import MockReader, feeding_openings, reader_over_mcp
from tests.support.world_cache import load_worlds_once, loaded_world
from worlds.stressors.catalog import builtin_scenarios
from worlds.stressors.coverage import affected_goals

LIMIT = 40
"""Tasks per world (multidomain has 320; its first 40 use every stressor compared here)."""
OUTSIDE_ORACLE = "python:tests.support.outside_agents:oracle_over_mcp"
READER = "python:tests.support.reader_policy:reader_over_mcp"
Ran = tuple[list[EpisodeResult], list[Score]]
InsideRuns = dict[tuple[str, tuple[str, ...]], Ran]


@pytest.fixture(autouse=True)
def worlds_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every run here loads smart_home or multidomain: once per process, not twice per test."""
    load_worlds_once(monkeypatch)


@pytest.fixture(scope="module")
def inside_runs() -> InsideRuns:
    """The in-process oracle's run by world and stressors, made by the first test that needs it (the http: test
    compares with the same smart_home drift run as the python: one)."""
    return {}


async def run(tmp_path: Path, world: str, agent: str, stressors: list[str], name: str) -> Ran:
    settings = {"world": world, "agent": agent, "stressors": stressors, "concurrency": 32, "limit": LIMIT}
    config = RunConfig.model_validate({"out": tmp_path, "run_id": name, **settings})
    store, summary = await execute(config)
    assert summary["failed_episodes"] == 0 and summary["judge_faults"] == 0
    return store.episodes(), store.scores()


async def inside_run(tmp_path: Path, runs: InsideRuns, world: str, stressors: list[str]) -> Ran:
    key = (world, tuple(stressors))
    if key not in runs:
        runs[key] = await run(tmp_path, world, "oracle", stressors, "inside")
    return runs[key]


def calls(episodes: list[EpisodeResult]) -> dict[str, list[tuple[int, str, dict[str, object]]]]:
    return {
        e.episode_id: [
            (ev.turn, ev.call.name, ev.call.arguments) for ev in e.events if ev.kind == "tool_call" and ev.call
        ]
        for e in episodes
    }


def verdicts(scores: list[Score]) -> dict[tuple[str, str], tuple[float | None, list[float | None]]]:
    return {(s.episode_id, s.judge): (s.value, list(s.per_goal)) for s in scores}


def toolkit_changes(episodes: list[EpisodeResult]) -> int:
    return sum(len(e.goal_tools) for e in episodes) + sum(
        bool(ev.scenarios) for e in episodes for ev in e.events if ev.kind == "tool_result"
    )


@pytest.mark.slow
@pytest.mark.parametrize("world", ["smart_home", "multidomain"])
@pytest.mark.parametrize(
    "stressors", [[], ["drift"], ["missing"], ["search"]], ids=["none", "drift", "missing", "search"]
)
async def test_the_oracle_from_outside_over_mcp_scores_as_the_oracle_inside(
    tmp_path: Path,
    world: str,
    stressors: list[str],
    monkeypatch: pytest.MonkeyPatch,
    inside_runs: InsideRuns,
) -> None:
    inside, inside_scores = await inside_run(tmp_path, inside_runs, world, stressors)
    with feeding_golds(monkeypatch):
        outside, outside_scores = await run(tmp_path, world, OUTSIDE_ORACLE, stressors, "outside")
    assert calls(outside) == calls(inside) and sum(map(len, calls(inside).values())) > 0
    assert verdicts(outside_scores) == verdicts(inside_scores)
    assert [e.termination for e in outside] == [e.termination for e in inside]
    if stressors:
        assert toolkit_changes(inside) > 0  # the stressor did change what the agent could call


@pytest.mark.slow
async def test_the_oracle_behind_http_scores_as_the_oracle_inside_under_drift(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, inside_runs: InsideRuns
) -> None:
    inside, inside_scores = await inside_run(tmp_path, inside_runs, "smart_home", ["drift"])
    async with agent_service() as base:
        with feeding_golds(monkeypatch):
            outside, outside_scores = await run(tmp_path, "smart_home", f"http:{base}/agent", ["drift"], "outside")
    assert calls(outside) == calls(inside)
    assert verdicts(outside_scores) == verdicts(inside_scores)


# One policy, two doors: squall's native agent over the mock endpoint vs a pydantic-ai agent over MCP -------------

READER_STRESSORS: dict[str, dict[str, list[str]]] = {
    "none": {"smart_home": [], "multidomain": []},
    # Renamed endpoints only: the reader follows a 410 through tools/list. Named rows of each world, and the auto one.
    "drift": {
        "smart_home": ["drift.scene_v2", "drift.energy_usage_fetch", "drift.auto_rename_endpoint"],
        "multidomain": [
            "drift.cart_remove_moved",
            "drift.quote_fetch",
            "drift.recipes_search_v2",
            "drift.auto_rename_endpoint",
        ],
    },
    "missing": {"smart_home": ["missing"], "multidomain": ["missing"]},
    "search": {"smart_home": ["search"], "multidomain": ["search"]},
}
READER_TASKS = 2
"""Tasks per world and stressor: the first ones the stressor touches."""


def firing_tasks(world: str, stressors: list[str]) -> list[str]:
    """The first tasks of the world at least one of the stressors touches (every task without stressors)."""
    rows = [s for s in builtin_scenarios() if s.name in stressors or s.type in stressors]
    tasks = loaded_world(world).tasks()
    picked = [t.id for t in tasks if not rows or any(affected_goals(t, s) for s in rows)]
    return picked[:READER_TASKS]


async def run_tasks(
    tmp_path: Path, world: str, agent: str, stressors: list[str], tasks: list[str], name: str
) -> tuple[list[EpisodeResult], list[Score]]:
    # No error-handling judge: its embedding model takes a minute to load, and it reads replies, not calls.
    settings = {"world": world, "agent": agent, "stressors": stressors, "concurrency": 8, "tasks": tasks}
    settings["error_judge"] = "off"
    config = RunConfig.model_validate({"out": tmp_path, "run_id": name, **settings})
    store, summary = await execute(config)
    assert summary["failed_episodes"] == 0 and summary["judge_faults"] == 0
    return store.episodes(), store.scores()


def fired(kind: str, episodes: list[EpisodeResult]) -> bool:
    """The stressor acted on what the agent could call, and the agent went on through what tools/list showed."""
    results = [ev for e in episodes for ev in e.events if ev.kind == "tool_result" and ev.result is not None]
    if kind == "drift":  # a 410, then the new name listed and called
        moved = {ev.call.name for ev in results if ev.result and ev.result.error_code == "endpoint_moved" and ev.call}
        listed = {n for e in episodes for names in e.goal_tools.values() for n in names}
        return bool(moved) and any(ev.call and ev.call.name in listed - moved and ev.scenarios for ev in results)
    if kind == "missing":  # a declined goal without the function, and the function listed and called in the next
        for e in episodes:
            for g, names in e.goal_tools.items():
                back = set(e.tools_at(g + 1)) - set(names)
                called = {
                    ev.call.name for ev in e.events if ev.kind == "tool_call" and ev.call and ev.goal_index == g + 1
                }
                if e.task.goals[g].outcome == "decline" and back & called:
                    return True
        return False
    if kind == "search":  # a function looked up, then called
        return any(ev.call and ev.call.name == "get_info" for ev in results) and any(
            ev.call and ev.call.name != "get_info" and ev.result and ev.result.ok for ev in results
        )
    return True


@pytest.mark.slow
@pytest.mark.parametrize("world", ["smart_home", "multidomain"])
@pytest.mark.parametrize("kind", list(READER_STRESSORS))
async def test_one_policy_natively_and_as_a_pydantic_ai_agent_over_mcp_gets_the_same_verdicts(
    tmp_path: Path, world: str, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reader (``tests.support.reader_policy``) as the model of squall's native agent over the mock endpoint,
    and as the model of a pydantic-ai ``Agent`` with an ``MCPToolset`` behind ``python:`` and ``http:``: the same
    calls and verdicts, unstressed and under a renamed endpoint, a missing function and tool search, which the
    pydantic-ai agent can follow only through ``tools/list`` (it refuses names it was not shown)."""
    stressors = READER_STRESSORS[kind][world]
    tasks = firing_tasks(world, stressors)
    assert tasks
    with feeding_openings(monkeypatch):
        async with await start_mock_server(MockConfig(policy=EchoPolicy(), model="reader"), policy=MockReader()) as srv:
            native, native_scores = await run_tasks(
                tmp_path, world, f"openai-chat:reader@{srv.url}", stressors, tasks, "native"
            )
        python, python_scores = await run_tasks(tmp_path, world, READER, stressors, tasks, "python")
        http, http_scores = python, python_scores
        if kind == "drift":  # the http: door once per world: its transport is what differs, not the MCP side
            async with agent_service(reader_over_mcp) as base:
                http, http_scores = await run_tasks(tmp_path, world, f"http:{base}/agent", stressors, tasks, "http")
    assert sum(map(len, calls(native).values())) > 0 and fired(kind, native) and fired(kind, python)
    assert calls(python) == calls(native) == calls(http)
    assert verdicts(python_scores) == verdicts(native_scores) == verdicts(http_scores)
    assert [e.termination for e in python] == [e.termination for e in native] == [e.termination for e in http]
