"""Calibration of the single-turn BFCL worlds over a sample per category, through the whole run (episode loop,
every registered judge): the oracle scores 1.0 under every judge that scores it, the null agent 0.0 — except in the
irrelevance categories, where calling nothing is BFCL's right answer (bfcl_ast, decline and conversation success
credit it, and the oracle does the same). Every entry of every category: see the report of issue 20 (the same
command without ``limit``)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("bfcl_eval")

from sim.config.run_config import RunConfig
from sim.core import Score
from sim.run.runner import execute

SAMPLE = 8
CATEGORIES = (
    "simple", "multiple", "parallel", "parallel_multiple", "live_simple", "live_multiple", "live_parallel",
    "live_parallel_multiple", "irrelevance", "live_irrelevance", "live_relevance",
)  # fmt: skip
NO_CALL_IS_RIGHT = {"bfcl_ast", "decline", "conversation_success"}


async def scores(tmp_path: Path, world: str, agent: str) -> list[Score]:
    config = RunConfig.model_validate(
        {"out": tmp_path, "run_id": agent, "world": world, "agent": agent, "limit": SAMPLE}
    )
    store, summary = await execute(config)
    assert summary["failed_episodes"] == 0 and summary["judge_faults"] == 0
    return store.scores()


@pytest.mark.parametrize("category", CATEGORIES)
async def test_oracle_scores_one_and_null_zero(tmp_path: Path, category: str) -> None:
    world = f"bfcl:{category}"
    oracle = [s for s in await scores(tmp_path, world, "oracle") if s.value is not None]
    assert {s.judge for s in oracle} >= {"bfcl_ast", "conversation_success"}
    assert all(s.value == 1.0 for s in oracle), sorted({(s.judge, s.value) for s in oracle})
    bar = {s.judge for s in oracle}
    null = [s for s in await scores(tmp_path, world, "null") if s.judge in bar and s.value is not None]
    expected = 1.0 if "irrelevance" in category else 0.0
    assert null and all(s.value == (expected if s.judge in NO_CALL_IS_RIGHT else 0.0) for s in null), sorted(
        {(s.judge, s.value) for s in null}
    )
    assert sum(s.judge == "bfcl_ast" for s in null) == SAMPLE
