"""Relative expansion (``expand.plus_N``): the task's own toolkit plus exactly N related synthetic tools (fewer only
when the pool lacks them, and then the toolkit says so), never a duplicate of an original, seeded; a pool filtered
as the shipped catalogs are for a world without one (built and cached on disk), BM25 without embeddings; the oracle
keeps full marks and the null agent none."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sim.cli.expand import main as expand_main
from sim.config.run_config import RunConfig
from sim.core import Goal, GoldCall, Task, ToolSpec, UserIntent
from sim.core.embedding import Embedder
from sim.run.runner import execute
from worlds.registry import load_world
from worlds.stressors.catalog import builtin_scenarios, select, stressor_class
from worlds.stressors.expand.related import cached_catalog, cached_catalog_path, related_pool
from worlds.stressors.expand.sizes import toolkit_sizes
from worlds.stressors.expand.templates import signature
from worlds.stressors.types.expand import ToolkitExpansion, needed_tools

PLUS = {s.name: s.params["plus"] for s in builtin_scenarios() if s.type == "expand" and "plus" in s.params}
WORLDS = ("smart_home", "multidomain")

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


@cache
def tasks(world: str) -> tuple[Task, ...]:
    return tuple(load_world(world).tasks())


@cache
def specs(world: str) -> tuple[ToolSpec, ...]:
    return tuple(load_world(world).new_world(0).specs())


def expanded(name: str, task: Task, tools: tuple[ToolSpec, ...], seed: int = 0, **overrides: Any) -> ToolkitExpansion:
    row = next(s for s in builtin_scenarios() if s.name == name)
    s = stressor_class(row.type)(row, seed, overrides)
    assert isinstance(s, ToolkitExpansion)
    s.on_task(task)
    s.on_spec(list(tools), "instructions")
    return s


def library_task(listed: list[str] | None = None) -> Task:
    goal = Goal(
        user=UserIntent(explicit="Borrow Dune."),
        gold=[GoldCall(name="search_books", arguments={"query": "Dune"}, role="support"), GoldCall(name="borrow_book")],
        tools=listed,
    )
    return Task(id="lib-1", world="library", goals=[goal])


def test_the_rows_follow_the_study_and_the_expand_group_holds_them() -> None:
    assert PLUS == {"expand.plus_1": 1, "expand.plus_3": 3, "expand.plus_9": 9}  # plus_3: the study's 2.7 -> 5.6
    selected = [s.name for s, _ in select(["expand"], [t.name for t in specs("smart_home")])]
    assert set(PLUS) <= set(selected)
    row = next(s for s in builtin_scenarios() if s.name == "expand.plus_3")
    with pytest.raises(ValueError, match="exactly one of size"):
        stressor_class("expand")(row, 0, {"size": 3})
    with pytest.raises(ValueError, match="plus must be a positive integer"):
        stressor_class("expand")(row, 0, {"plus": 0})


@pytest.mark.parametrize("world", WORLDS)
@pytest.mark.parametrize("name", list(PLUS))
def test_plus_n_adds_exactly_n_filtered_neighbours_of_the_own_tools(world: str, name: str) -> None:
    world_tools = {t.name for t in specs(world)}
    for task in tasks(world):
        s = expanded(name, task, specs(world))
        assert s.expansion is not None and s.pool_note is None
        names = [t.name for t in s.toolkit.specs]
        own = set(needed_tools(task)) & world_tools
        assert set(s.expansion.own) == own, task.id
        assert s.expansion.added == PLUS[name] and s.expansion.short == 0, task.id  # these pools never run dry
        assert len(names) == len(set(names)) == len(own) + PLUS[name], task.id
        added = set(names) - own
        assert added == set(s.toolkit.offered) and not added & world_tools, task.id
        assert s.toolkit.hidden == world_tools - own, task.id
        for candidate in s.toolkit.offered.values():
            assert candidate.source in own  # a neighbour of the task's own tools
            assert candidate.similarity is not None and candidate.similarity < 0.8  # never a duplicate


def test_the_same_seed_gives_the_same_toolkit_and_another_seed_another_order() -> None:
    for task in tasks("multidomain")[:30]:
        a = [t.name for t in expanded("expand.plus_3", task, specs("multidomain"), seed=5).toolkit.specs]
        b = [t.name for t in expanded("expand.plus_3", task, specs("multidomain"), seed=5).toolkit.specs]
        other = [t.name for t in expanded("expand.plus_3", task, specs("multidomain"), seed=6).toolkit.specs]
        assert a == b and a != other, task.id


def test_the_neighbours_are_the_most_related_ones_of_the_own_tools() -> None:
    task = tasks("smart_home")[0]
    s = expanded("expand.plus_1", task, specs("smart_home"))
    pool, _ = related_pool("smart_home", specs("smart_home"))
    (added,) = s.toolkit.offered
    firsts = [next(n for n in pool.ranked(o) if n in pool.candidates and pool.candidates[n].source in s.expansion.own)
              for o in s.expansion.own]  # fmt: skip
    assert added in firsts


def test_tools_a_goal_lists_belong_to_the_own_toolkit() -> None:
    s = expanded("expand.plus_1", library_task(["search_books", "borrow_book", "get_book"]), tuple(LIBRARY),
                 ranker="lexical")  # fmt: skip
    assert s.expansion is not None and set(s.expansion.own) == {"search_books", "borrow_book", "get_book"}
    assert s.toolkit.hidden == {"return_book"} and s.expansion.added == 1


def test_without_embeddings_bm25_ranks_unfiltered_neighbours_and_a_short_pool_is_said() -> None:
    s = expanded("expand.plus_3", library_task(), tuple(LIBRARY), ranker="lexical")
    assert s.expansion is not None and s.expansion.added == 3 and s.pool_note and "BM25" in s.pool_note
    assert all(c.similarity is None and c.source in {"search_books", "borrow_book"} for c in s.toolkit.offered.values())
    pool, _ = related_pool("library", LIBRARY, "lexical")
    available = sum(c.source in {"search_books", "borrow_book"} for c in pool.candidates.values())
    big = expanded("expand.plus_9", library_task(), tuple(LIBRARY), plus=available + 5, ranker="lexical")
    assert big.expansion is not None and big.expansion.added == available and big.expansion.short == 5


@pytest.mark.embedding
def test_a_world_without_a_catalog_gets_one_built_filtered_and_cached(embedder: Embedder, tmp_path: Path) -> None:
    catalog, from_disk = cached_catalog("library", LIBRARY, tmp_path, embedder)
    assert not from_disk and cached_catalog_path("library", LIBRARY, tmp_path).is_file()
    again, from_disk = cached_catalog("library", LIBRARY, tmp_path, embedder)
    assert from_disk and again == catalog
    originals = embedder.encode([signature(s) for s in LIBRARY])
    kept = embedder.encode([signature(c.spec) for c in catalog.candidates])
    assert catalog.candidates and float((kept @ originals.T).max()) < 0.8  # recomputed, not read from the file
    # An original that is the dry run of another: the templated dry run is the same function, and is removed.
    dry_run = ToolSpec(
        name="dry_run_borrow_book",
        description="Dry run: shows the request 'borrow book' would make with these arguments, and changes nothing.",
        parameters=LIBRARY[2].parameters,
        read_only=True,
    )
    stricter, _ = cached_catalog("library", [*LIBRARY, dry_run], tmp_path, embedder)
    assert "preview_borrow_book" in {r.name for r in stricter.rejected}
    assert "preview_borrow_book" in {c.spec.name for c in catalog.candidates}
    assert np.isclose(max(c.similarity or 0 for c in catalog.candidates), (kept @ originals.T).max(), atol=1e-3)
    changed = [LIBRARY[0].model_copy(update={"description": "Find books by title."}), *LIBRARY[1:]]
    assert cached_catalog_path("library", changed, tmp_path) != cached_catalog_path("library", LIBRARY, tmp_path)
    pool, note = related_pool("library", LIBRARY, "embedding", tmp_path)
    assert note is None and pool.filtered


@pytest.mark.parametrize("world", WORLDS)
async def test_the_oracle_keeps_full_marks_and_the_null_agent_none(world: str, tmp_path: Path) -> None:
    config = {"out": tmp_path, "world": world, "stressors": list(PLUS), "stressor_mode": "isolated", "limit": 24}
    store, summary = await execute(RunConfig.model_validate({**config, "run_id": "o", "agent": "oracle"}))
    assert summary["failed_episodes"] == 0 and summary["core_api_accuracy"] == 1.0
    assert summary["conversation_success"] == 1.0
    assert {len(ep.tools) for ep in store.episodes() if ep.variant}  # the closed worlds were offered
    _, null = await execute(RunConfig.model_validate({**config, "run_id": "n", "agent": "null"}))
    assert null["conversation_success"] == 0.0


@pytest.mark.slow
@pytest.mark.parametrize("ranker", ["lexical", pytest.param("auto", marks=pytest.mark.embedding)])
async def test_the_oracle_keeps_full_marks_on_the_sql_sample(
    ranker: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SQUALL_EXPAND_CACHE_DIR", str(tmp_path / "cache"))
    items = [f"{name}:ranker={ranker}" for name in PLUS]
    config = {"out": tmp_path, "world": "sql_sample", "stressors": items, "stressor_mode": "isolated"}
    _, summary = await execute(RunConfig.model_validate({**config, "run_id": "o", "agent": "oracle"}))
    assert summary["failed_episodes"] == 0 and summary["core_api_accuracy"] == 1.0
    assert summary["conversation_success"] == 1.0
    _, null = await execute(RunConfig.model_validate({**config, "run_id": "n", "agent": "null"}))
    assert null["conversation_success"] == 0.0


def test_the_sizes_report_gives_the_own_and_offered_means(capsys: pytest.CaptureFixture[str]) -> None:
    rows = {r.scenario: r for r in toolkit_sizes(tasks("smart_home"), specs("smart_home"))}
    own = rows["expand.plus_1"].before
    assert own == pytest.approx(5.4)  # the mean of the tasks' own toolkits
    for name, n in PLUS.items():
        assert rows[name].after == pytest.approx(own + n) and rows[name].short == 0 and rows[name].pool == "filtered"
    assert rows["expand.size_27"].after == 27
    assert expand_main(["--world", "smart_home", "--sizes"]) == 0
    assert "expand.plus_3" in capsys.readouterr().out
