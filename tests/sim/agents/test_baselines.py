"""Calibration: the oracle scores 1.0 on every shipped task, also through an outage; null scores 0.0."""

from __future__ import annotations

from pathlib import Path

from sim.config.run_config import RunConfig
from sim.run.runner import execute
from worlds.registry import load_world


async def run(tmp_path: Path, **kw: object):  # type: ignore[no-untyped-def]
    cfg = RunConfig.model_validate({"out": tmp_path, "run_id": "r", **kw})
    return await execute(cfg)


async def test_oracle_is_perfect_on_every_task(tmp_path: Path) -> None:
    store, summary = await run(tmp_path, agent="oracle")
    n = len(load_world("smart_home").tasks())
    assert summary["episodes"] == n and summary["failed_episodes"] == 0
    assert summary["core_api_accuracy"] == 1.0
    assert summary["conversation_success"] == 1.0
    verdicts = [s for s in store.scores() if s.judge in ("core_api_accuracy", "conversation_success")]
    assert len(verdicts) == 2 * n and all(s.value == 1.0 for s in verdicts)
    assert not any(s.value == 0.0 for s in store.scores())  # no judge finds fault (decline: None, no such turn)


async def test_null_agent_scores_zero(tmp_path: Path) -> None:
    _, summary = await run(tmp_path, agent="null")
    assert summary["core_api_accuracy"] == 0.0
    assert summary["conversation_success"] == 0.0
    assert summary["failed_episodes"] == 0


async def test_oracle_survives_outage_through_the_backup_path(tmp_path: Path) -> None:
    store, summary = await run(tmp_path, agent="oracle", stressors=["outage.backup"])
    assert summary["core_api_accuracy"] == 1.0
    # The trace shows the failed call and then the alternative path succeeding.
    took_backup = 0
    for ep in store.episodes():
        failed = [e for e in ep.events if e.kind == "tool_result" and e.result and e.result.status == "unavailable"]
        if not failed:
            continue
        took_backup += 1
        down = failed[0].call.name  # type: ignore[union-attr]
        later_ok = [
            e
            for e in ep.events
            if e.kind == "tool_result" and e.turn == failed[0].turn and e.t >= failed[0].t and e.result and e.result.ok
        ]
        assert later_ok, f"{ep.episode_id}: no successful call after the outage of {down}"
        assert all(e.call.name != down for e in later_ok)  # type: ignore[union-attr]
        assert ep.stressors == ["outage.backup"]
    assert took_backup >= 3  # the shipped tasks with alternative paths


async def test_trials_and_seeds_are_deterministic(tmp_path: Path) -> None:
    a, _ = await run(tmp_path / "a", agent="oracle", trials=2, limit=2)
    b, _ = await run(tmp_path / "b", agent="oracle", trials=2, limit=2)
    key = [(e.episode_id, e.seed, e.final_state_hash) for e in a.episodes()]
    assert sorted(key) == sorted((e.episode_id, e.seed, e.final_state_hash) for e in b.episodes())
    assert len(key) == 4
