"""Tool search (``search.tools``): the agent starts with search_tools and get_info only; what they return becomes
callable from the next call on, never before; the oracle keeps full marks; the index is built once and cached on
disk. Everything here runs offline without torch (lexical ranker, or a fake encoder for the disk cache); the
embedding checks live in test_tool_search_embedding.py."""

from __future__ import annotations

import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any, cast

import numpy as np
import pytest

from sim.agents.baselines import OracleAgent
from sim.config.run_config import RunConfig
from sim.core import EpisodeGold, Event, Goal, GoldCall, Task, ToolCall, ToolSpec, UserIntent
from sim.episode.runtime import EpisodeRuntime
from sim.llm.gateway import EpisodeLLM
from sim.run.runner import execute
from worlds.registry import load_world
from worlds.stressors.catalog import builtin_scenarios, select, stressor_class
from worlds.stressors.expand.templates import signature
from worlds.stressors.search.index import IndexCache, LexicalRanker, texts_digest, tokens
from worlds.stressors.types.search import INFO_TOOL, NOTE, SEARCH_TOOL, ToolSearch, one_line

ROW = next(s for s in builtin_scenarios() if s.name == "search.tools")


@cache
def specs(world: str) -> tuple[ToolSpec, ...]:
    return tuple(load_world(world).new_world(0).specs())


def stressor(tmp_path: Path | None = None, **overrides: Any) -> ToolSearch:
    params = {"ranker": "lexical", **overrides}
    if tmp_path is not None:
        params["cache_dir"] = str(tmp_path)
    built = stressor_class(ROW.type)(ROW, 0, params)
    assert isinstance(built, ToolSearch)
    return built


class _Turns:
    """What EpisodeRuntime needs of the gateway handle here: turns start, no model is called."""

    def start_turn(self, turn: int, goal: int | None = None) -> None:
        pass


def runtime(world: str, s: ToolSearch) -> tuple[EpisodeRuntime, list[Event]]:
    w = load_world(world).new_world(0)
    tools, _ = s.on_spec(w.specs(), "")
    events: list[Event] = []
    rt = EpisodeRuntime(w, [s], tools, "", cast(EpisodeLLM, _Turns()), events.append, lambda: 0.0, 50)
    rt.start_turn(0)
    return rt, events


def names(rt: EpisodeRuntime) -> list[str]:
    return [t.name for t in rt.current_tools()]


def test_the_row_is_a_whole_task_spec_stressor_selected_by_its_type() -> None:
    assert ROW.level == "spec" and ROW.tools == ["*"]
    assert [s.name for s, _ in select(["search"], [t.name for t in specs("smart_home")])] == ["search.tools"]


def test_the_toolkit_keeps_every_tool_for_the_judges_but_offers_only_the_two_search_tools() -> None:
    s = stressor()
    out, instructions = s.on_spec(list(specs("multidomain")), "Be helpful.")
    assert [t.name for t in out[:2]] == [SEARCH_TOOL, INFO_TOOL] and len(out) == len(specs("multidomain")) + 2
    assert instructions == "Be helpful." + NOTE
    assert [t.name for t in s.on_tools(0, out)] == [SEARCH_TOOL, INFO_TOOL]
    assert all(t.read_only for t in out[:2])


async def test_found_tools_become_callable_after_the_search_and_not_before() -> None:
    rt, events = runtime("smart_home", stressor())
    assert names(rt) == [SEARCH_TOOL, INFO_TOOL]
    refused = await rt.call(ToolCall(id="", name="list_devices", arguments={}), step=1)
    assert refused.error_code == "unknown_tool"
    assert [e.code for e in events if e.kind == "error"] == ["agent:unknown_tool"]
    found = await rt.call(ToolCall(id="", name=SEARCH_TOOL, arguments={"query": "list the devices"}), step=2)
    assert found.ok and found.content["ranker"] == "lexical"
    hits = [r["name"] for r in found.content["results"]]
    assert len(hits) == 5 and "list_devices" in hits
    assert names(rt) == [SEARCH_TOOL, INFO_TOOL, *[t.name for t in specs("smart_home") if t.name in hits]]
    assert (await rt.call(ToolCall(id="", name="list_devices", arguments={}), step=3)).ok
    calls = [e.call.name for e in events if e.kind == "tool_call" and e.call is not None]
    assert calls == [SEARCH_TOOL, "list_devices"]  # the refused call is a fault, not a call
    assert [e.scenarios for e in events if e.kind == "tool_result"] == [["search.tools"], []]


async def test_found_tools_stay_callable_in_later_turns() -> None:
    rt, _ = runtime("smart_home", stressor())
    await rt.call(ToolCall(id="", name=INFO_TOOL, arguments={"tool_name": "set_power"}), step=1)
    rt.start_turn(1)
    assert "set_power" in names(rt)


async def test_get_info_describes_a_tool_and_points_to_close_names() -> None:
    rt, _ = runtime("smart_home", stressor())
    info = await rt.call(ToolCall(id="", name=INFO_TOOL, arguments={"tool_name": "set_power"}), step=1)
    source = next(t for t in specs("smart_home") if t.name == "set_power")
    assert info.ok and info.content["description"] == source.description
    assert info.content["parameters"]["properties"].keys() == source.parameters["properties"].keys()
    missing = await rt.call(ToolCall(id="", name=INFO_TOOL, arguments={"tool_name": "set_powr"}), step=2)
    assert missing.status == "not_found" and "'set_power'" in missing.content["error"]
    assert names(rt) == [SEARCH_TOOL, INFO_TOOL, "set_power"]


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({}, "query"),
        ({"query": "  "}, "query"),
        ({"query": 3}, "query"),
        ({"query": "lights", "num_results": 0}, "num_results"),
        ({"query": "lights", "num_results": 10}, "num_results"),
        ({"query": "lights", "num_results": True}, "num_results"),
        ({"query": "lights", "num_results": "3"}, "num_results"),
        ({"query": "lights", "limit": 3}, "limit"),
    ],
)
async def test_bad_search_arguments_are_refused_and_find_nothing(arguments: dict[str, Any], problem: str) -> None:
    rt, _ = runtime("smart_home", stressor())
    result = await rt.call(ToolCall(id="", name=SEARCH_TOOL, arguments=arguments), step=1)
    assert result.status == "invalid_arguments" and problem in result.content["error"]
    assert names(rt) == [SEARCH_TOOL, INFO_TOOL]


@pytest.mark.parametrize("arguments", [{}, {"tool_name": 1}, {"tool_name": "set_power", "x": 1}])
async def test_bad_get_info_arguments_are_refused(arguments: dict[str, Any]) -> None:
    rt, _ = runtime("smart_home", stressor())
    result = await rt.call(ToolCall(id="", name=INFO_TOOL, arguments=arguments), step=1)
    assert result.status == "invalid_arguments" and names(rt) == [SEARCH_TOOL, INFO_TOOL]


@pytest.mark.parametrize("k", [1, 9])
async def test_num_results_bounds_are_honoured(k: int) -> None:
    rt, _ = runtime("multidomain", stressor())
    result = await rt.call(ToolCall(id="", name=SEARCH_TOOL, arguments={"query": "weather", "num_results": k}), 1)
    assert len(result.content["results"]) == k and len(names(rt)) == 2 + k


def test_the_default_number_of_results_is_a_row_parameter() -> None:
    with pytest.raises(ValueError, match="default_results"):
        stressor(default_results=12)
    with pytest.raises(ValueError, match="unknown ranker"):
        stressor(ranker="magic")


def test_lexical_ranking_finds_tools_by_their_words_deterministically() -> None:
    s = stressor()
    s.on_spec(list(specs("multidomain")), "")
    top = [name for name, _ in s.search("add a stock to my watchlist", 3)]
    assert top[0] == "add_to_watchlist" and top == [name for name, _ in s.search("add a stock to my watchlist", 3)]
    assert "get_weather_forecast" in [name for name, _ in s.search("weather forecast for tomorrow", 3)]
    first, second, *_ = s.catalog
    assert s.search("zzz qqq", 2) == [(first, 0.0), (second, 0.0)]  # ties: table order


def test_tokens_split_names_and_drop_filler() -> None:
    assert tokens("getWeatherAlerts(city): The alerts.") == ["weather", "alert", "city", "alert"]
    assert tokens("set_power(device_id, on)") == ["set", "power", "device", "id"]


def test_one_line_keeps_the_first_sentence() -> None:
    assert one_line("Turn a device on or off. Needs a device id.\nMore.") == "Turn a device on or off."
    assert len(one_line("x" * 500)) == 160


class _CountingEncoder:
    """A deterministic stand-in for the embedder: a seeded vector per text; counts the texts it embeds."""

    def __init__(self) -> None:
        self.texts = 0

    def __call__(self, texts: Any) -> np.ndarray:
        self.texts += len(texts)
        rows = [np.random.default_rng(int(texts_digest([t])[:8], 16)).normal(size=16) for t in texts]
        return np.array([r / np.linalg.norm(r) for r in rows], dtype=np.float32)


def test_the_embedding_index_is_written_once_and_reused_from_disk(tmp_path: Path) -> None:
    texts = [signature(t) for t in specs("multidomain")]
    encode = _CountingEncoder()
    first = IndexCache().get(texts, "embedding", tmp_path, encode)
    assert encode.texts == len(texts) and len(list(tmp_path.glob("*.npy"))) == 1
    assert not list(tmp_path.glob(".*"))  # no temporary file left behind
    again = IndexCache().get(texts, "embedding", tmp_path, encode)  # a new process: reads the .npy
    assert encode.texts == len(texts)
    assert again.rank(texts[7], 3)[0][0] == 7 and first.rank(texts[7], 3) == again.rank(texts[7], 3)
    assert encode.texts == len(texts) + 3  # three queries, one sentence each
    IndexCache().get(texts[:-1], "embedding", tmp_path, encode)  # another tool set: another file
    assert len(list(tmp_path.glob("*.npy"))) == 2


def test_one_build_per_tool_set_per_process(tmp_path: Path) -> None:
    cache_ = IndexCache()
    texts = [signature(t) for t in specs("smart_home")]
    built = cache_.get(texts, "lexical", tmp_path)
    assert cache_.get(list(texts), "lexical", tmp_path) is built and cache_.builds == 1
    assert isinstance(built, LexicalRanker)
    cache_.get(texts, "embedding", tmp_path, _CountingEncoder())
    assert cache_.builds == 2


def test_a_lexical_run_never_loads_torch() -> None:
    code = (
        "import asyncio, sys, tempfile; from pathlib import Path; from sim.config.run_config import RunConfig; "
        "from sim.run.runner import execute; "
        "cfg = {'out': Path(tempfile.mkdtemp()), 'run_id': 'r', 'agent': 'oracle', 'world': 'smart_home', "
        "'stressors': ['search.tools:ranker=lexical']}; "
        "store, summary = asyncio.run(execute(RunConfig.model_validate(cfg))); "
        "assert summary['core_api_accuracy'] == 1.0; print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "False"


@pytest.mark.parametrize(("world", "limit"), [("smart_home", None), ("multidomain", 64)])
async def test_the_oracle_keeps_full_marks_by_looking_tools_up(world: str, limit: int | None, tmp_path: Path) -> None:
    config = {
        "out": tmp_path,
        "run_id": "r",
        "agent": "oracle",
        "world": world,
        "stressors": ["search.tools:ranker=lexical"],
        "limit": limit,
    }
    store, summary = await execute(RunConfig.model_validate(config))
    assert summary["failed_episodes"] == 0 and summary["core_api_accuracy"] == 1.0
    assert summary["conversation_success"] == 1.0
    looked_up = [e for ep in store.episodes() for e in ep.events if e.call is not None and e.call.name == INFO_TOOL]
    assert looked_up and all(e.read_only for e in looked_up if e.kind == "tool_call")


async def test_a_gold_call_needs_no_search_when_already_callable() -> None:
    """The oracle only looks up what it cannot call yet: a second use of a tool in the turn costs nothing."""
    task = Task(
        id="t",
        world="smart_home",
        goals=[Goal(user=UserIntent(explicit="rooms"), gold=[GoldCall(name="list_rooms")] * 2)],
    )
    s = stressor()
    rt, events = runtime("smart_home", s)
    await OracleAgent(EpisodeGold(task, task)).respond([], rt)
    calls = [e.call.name for e in events if e.kind == "tool_call" and e.call is not None]
    assert calls == [INFO_TOOL, "list_rooms", "list_rooms"]
