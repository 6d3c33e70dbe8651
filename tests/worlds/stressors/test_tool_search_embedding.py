"""Tool search with the real MiniLM embeddings: paraphrases find their tools, recall on smart_home, and the disk
cache spares a second build the embedding work. Skipped where the ``[embed]`` extra is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.core import CallContext, ToolCall
from sim.core.embedding import Embedder, embedding_available
from sim.episode.runtime import chain
from worlds.registry import load_world
from worlds.stressors.catalog import builtin_scenarios, stressor_class
from worlds.stressors.expand.templates import signature
from worlds.stressors.search.index import IndexCache
from worlds.stressors.types.search import SEARCH_TOOL, ToolSearch

pytestmark = [
    pytest.mark.embedding,
    pytest.mark.skipif(embedding_available() is not None, reason=str(embedding_available())),
]
ROW = next(s for s in builtin_scenarios() if s.name == "search.tools")


def stressor(tmp_path: Path) -> ToolSearch:
    built = stressor_class(ROW.type)(ROW, 0, {"ranker": "embedding", "cache_dir": str(tmp_path)})
    assert isinstance(built, ToolSearch)
    return built


async def test_a_paraphrase_with_no_shared_word_finds_its_tool(tmp_path: Path) -> None:
    s = stressor(tmp_path)
    world = load_world("smart_home").new_world(0)
    s.on_spec(world.specs(), "")
    call = ToolCall(id="c", name=SEARCH_TOOL, arguments={"query": "make the bedroom warmer"})
    result = (await chain([s], world)(call, CallContext(turn=0, call_index=0))).result
    assert result.ok and result.content["ranker"] == "embedding" and "note" not in result.content
    assert "set_temperature" in [r["name"] for r in result.content["results"]]


def test_most_smart_home_requests_find_their_core_tools_in_the_top_9(tmp_path: Path) -> None:
    pack = load_world("smart_home")
    s = stressor(tmp_path)
    s.on_spec(pack.new_world(0).specs(), "")
    turns = [turn for task in pack.tasks() for turn in task.goals if any(c.role == "core" for c in turn.gold)]
    core = [({c.name for c in t.gold if c.role == "core"}, t.user.explicit) for t in turns]
    found = [names <= {n for n, _ in s.search(request, 9)} for names, request in core]
    assert sum(found) / len(found) >= 0.8


def test_a_second_build_reads_the_vectors_from_disk(tmp_path: Path) -> None:
    texts = [signature(t) for t in load_world("multidomain").new_world(0).specs()]
    embedder = Embedder(max_cache=0)  # no in-memory cache: only the disk can spare the work
    IndexCache().get(texts, "embedding", tmp_path, embedder.encode)
    assert embedder.encoded == len(texts)
    index = IndexCache().get(texts, "embedding", tmp_path, embedder.encode)
    assert embedder.encoded == len(texts)
    assert index.rank(texts[3], 1)[0][0] == 3 and embedder.encoded == len(texts) + 1
