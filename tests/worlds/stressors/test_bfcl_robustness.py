"""The function-calling robustness study (seed 004) on BFCL's single-turn entries: rewordings keep every value BFCL
accepts, ``expand.plus_N`` adds exactly N related REAL functions of the category (the other entries' ones, never a
twin of an own tool, answered neutrally by the stressor), the sizes report gives the study's before/after means,
and the oracle keeps full marks (the null agent none) under every perturb and expand row."""

from __future__ import annotations

import random
import re
from functools import cache
from pathlib import Path
from typing import Any, cast

import numpy as np
import pytest

pytest.importorskip("bfcl_eval")

from sim.config.run_config import RunConfig
from sim.core import Event, Task, ToolCall, ToolSpec, WorldContext
from sim.core.embedding import Embedder
from sim.episode.runtime import EpisodeRuntime
from sim.llm.gateway import EpisodeLLM
from sim.run.runner import execute
from worlds.registry import load_world
from worlds.stressors.catalog import builtin_scenarios, stressor_class
from worlds.stressors.expand.plus import choose_plus
from worlds.stressors.expand.related import cached_catalog
from worlds.stressors.expand.sizes import toolkit_sizes
from worlds.stressors.expand.templates import signature
from worlds.stressors.expand.toolkit import catalog_pool
from worlds.stressors.protect import values_in
from worlds.stressors.types.expand import ToolkitExpansion, listed_tools, needed_tools
from worlds.stressors.types.perturb import Perturb

WORLD = "bfcl:multiple"
ROWS = {s.name: s for s in builtin_scenarios()}
PERTURB = [n for n, s in ROWS.items() if s.type == "perturb"]
PLUS = {n: int(s.params["plus"]) for n, s in ROWS.items() if s.type == "expand" and "plus" in s.params}


@cache
def pack() -> Any:
    return load_world(WORLD)


@cache
def entry_specs(task_id: str) -> tuple[ToolSpec, ...]:
    task = next(t for t in pack().tasks() if t.id == task_id)
    return tuple(pack().new_world(0, WorldContext(task=task)).specs())


def expanded(name: str, task: Task, seed: int = 0, **overrides: Any) -> ToolkitExpansion:
    s = stressor_class("expand")(ROWS[name], seed, {"ranker": "lexical", **overrides})
    assert isinstance(s, ToolkitExpansion)
    s.on_task(task)
    s.on_spec(list(entry_specs(task.id)), "")
    return s


def accepted_values(task: Task) -> set[str]:
    calls = [c for path in task.goals[0].paths() for c in path]
    return {v for c in calls for v in values_in(c.arguments)} | {
        v for c in calls for vs in c.accepted.values() for v in values_in(vs)
    }


@pytest.mark.parametrize("name", [n for n in PERTURB if n != "perturb.paraphrase_written"])
def test_every_rewording_keeps_every_value_bfcl_accepts_verbatim(name: str) -> None:
    s = stressor_class("perturb")(ROWS[name], 0, None)
    checked = 0
    for task in pack().tasks():
        before = task.goals[0].user.explicit
        after = s.on_task(task).goals[0].user.explicit
        assert after != before and s.on_task(task).goals[0].gold == task.goals[0].gold, task.id
        for value in accepted_values(task):
            at = before.lower().find(value.lower()) if value.strip() else -1
            if at >= 0:  # as the text spells it, case included: BFCL's "house price" beside the gold's house_price
                checked += 1
                assert before[at : at + len(value)] in after, (task.id, value, after)
    assert checked > 500  # values the text spells (537 in bfcl:multiple)


def test_a_written_paraphrase_must_keep_an_accepted_value_the_gold_arguments_lack() -> None:
    task = next(t for t in pack().tasks() if t.id == "multiple_53")
    assert "house_price" in str(task.goals[0].gold[0].arguments) and "house price" in task.goals[0].user.explicit
    keeps = "Based on interest rates and unemployment rates, predict house prices for the next 5 years."
    drops = "Based on interest rates and unemployment rates, predict home values for the next 5 years."
    s = Perturb(ROWS["perturb.paraphrase_written"], 0, None)
    s.written = {(task.id, 0): [drops, keeps]}
    for seed in range(6):
        s.base = seed
        assert s.on_task(task).goals[0].user.explicit == keeps


@pytest.mark.parametrize("name", list(PLUS))
def test_plus_n_adds_exactly_n_real_functions_of_the_category_answered_neutrally(name: str) -> None:
    world = {s.name for s in pack().tool_specs()}
    for task in pack().tasks():
        own = {s.name for s in entry_specs(task.id)}
        s = expanded(name, task)
        assert s.expansion is not None and set(s.expansion.own) == own and s.expansion.added == PLUS[name], task.id
        names = [t.name for t in s.toolkit.specs]
        added = set(names) - own
        assert len(names) == len(set(names)) == len(own) + PLUS[name] and added == set(s.toolkit.offered), task.id
        assert added <= world and not added & {c.name for c in task.goals[0].gold}, task.id  # real, never gold
        for candidate in s.toolkit.offered.values():
            assert candidate.origin == "world" and candidate.answer.kind == "neutral" and candidate.source in own
    assert s.pool_note and "BM25" in s.pool_note


def test_the_same_seed_gives_the_same_toolkit_and_another_seed_another() -> None:
    task = pack().tasks()[7]
    a = [t.name for t in expanded("expand.plus_3", task, seed=3).toolkit.specs]
    assert a == [t.name for t in expanded("expand.plus_3", task, seed=3).toolkit.specs]
    assert any(a != [t.name for t in expanded("expand.plus_3", task, seed=k).toolkit.specs] for k in (4, 5, 6))


class _BagOfWords:
    """A torch-free encoder for the filter's logic: hashed word counts, unit length."""

    def encode(self, texts: Any) -> np.ndarray:
        rows = np.zeros((len(texts), 512), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"[a-z]+", text.lower()):
                rows[i, sum(map(ord, word)) % 512] += 1.0
        return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-9)


def test_a_function_too_similar_to_an_own_tool_is_never_added(tmp_path: Path) -> None:
    specs = pack().tool_specs()
    catalog, _ = cached_catalog(WORLD, specs, tmp_path, _BagOfWords(), templated=False)
    assert not catalog.candidates and catalog.near
    pool = catalog_pool(catalog)
    twins_seen = 0
    for task in pack().tasks():
        own = entry_specs(task.id)
        absent = [s for s in specs if s.name not in {o.name for o in own}]
        twins = {n for o in own for n in pool.near.get(o.name, ())}
        twins_seen += bool(twins - {o.name for o in own})
        plus = choose_plus(own, needed_tools(task), listed_tools(task), pool, 3, random.Random(task.id), absent)
        assert plus.added == 3 and not set(plus.toolkit.offered) & twins, task.id
    assert twins_seen > 10  # the filter had work to do


async def test_an_added_function_is_callable_and_answered_by_the_stressor_not_the_world() -> None:
    task = pack().tasks()[0]
    s = expanded("expand.plus_3", task)
    world = pack().new_world(0, WorldContext(task=task))
    events: list[Event] = []

    class _Turns:
        def start_turn(self, turn: int, goal: int | None = None) -> None:
            pass

    rt = EpisodeRuntime(
        world, [s], list(s.toolkit.specs), "", cast(EpisodeLLM, _Turns()), events.append, lambda: 0.0, 50, 0,
        goal_toolkits={0: task.goals[0].tools or []},
    )  # fmt: skip
    rt.start_turn(0)
    assert {t.name for t in rt.current_tools()} == {t.name for t in s.toolkit.specs}
    name = next(iter(s.toolkit.offered))
    spec = s.toolkit.offered[name].spec
    required = spec.parameters.get("required") or []
    arguments = {p: _example(spec.parameters["properties"][p]) for p in required}
    result = await rt.call(ToolCall(id="", name=name, arguments=arguments), step=1)
    assert result.ok and result.content == {"status": "ok"}
    assert world.calls == []  # the world never saw it


def _example(schema: dict[str, Any]) -> Any:
    kind = schema.get("type")
    if schema.get("enum"):
        return schema["enum"][0]
    return {"integer": 1, "number": 1.0, "boolean": True, "array": [], "object": {}}.get(str(kind), "x")


def test_the_sizes_report_gives_the_studys_before_and_after_means() -> None:
    tasks = pack().tasks()
    rows = {
        r.scenario: r
        for r in toolkit_sizes(
            tasks,
            pack().tool_specs(),
            [ROWS[n].model_copy(update={"params": {**ROWS[n].params, "ranker": "lexical"}}) for n in PLUS],
            specs_for=lambda t: list(entry_specs(t.id)),
        )
    }
    before = sum(len(entry_specs(t.id)) for t in tasks) / len(tasks)
    assert before == pytest.approx(2.785)  # the study's "2.7"
    for name, n in PLUS.items():
        assert rows[name].before == pytest.approx(before) and rows[name].after == pytest.approx(before + n)
        assert rows[name].short == 0


@pytest.mark.slow
@pytest.mark.parametrize("world", [WORLD, "bfcl:simple_python"])
async def test_the_oracle_keeps_full_marks_and_the_null_agent_none(world: str, tmp_path: Path) -> None:
    stressors = [*PERTURB, *(f"{n}:ranker=lexical" for n in PLUS)]
    config = {"out": tmp_path, "world": world, "stressors": stressors, "stressor_mode": "isolated", "limit": 8}
    for agent, expected in (("oracle", 1.0), ("null", 0.0)):
        store, summary = await execute(RunConfig.model_validate({**config, "run_id": agent, "agent": agent}))
        assert summary["failed_episodes"] == 0 and summary["judge_faults"] == 0
        variants = {ep.episode_id: ep.variant for ep in store.episodes()}
        ast = [s for s in store.scores() if s.judge == "bfcl_ast"]
        # Without a file, paraphrase_written rewords nothing (BFCL entries have no wordings of their own): no episode.
        reworded = [n for n in PERTURB if n != "perturb.paraphrase_written"]
        assert {variants[s.episode_id] for s in ast} == {"", *reworded, *PLUS}
        assert len(ast) == 8 * (1 + len(reworded) + len(PLUS)) and {s.value for s in ast} == {expected}, agent


@pytest.mark.slow
@pytest.mark.embedding
def test_the_filtered_pool_keeps_every_added_function_below_the_threshold(
    embedder: Embedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SQUALL_EXPAND_CACHE_DIR", str(tmp_path))
    cached_catalog(WORLD, pack().tool_specs(), tmp_path, embedder, templated=False)  # the one expand.plus_N reads
    for task in pack().tasks()[:40]:
        s = expanded("expand.plus_3", task, ranker="embedding")
        assert s.pool_note is None and s.expansion is not None and s.expansion.added == 3
        own = embedder.encode([signature(t) for t in entry_specs(task.id)])
        added = embedder.encode([signature(c.spec) for c in s.toolkit.offered.values()])
        assert float((added @ own.T).max()) < 0.8, task.id
