"""The injection judge and its calibration agents, through real runs: the oracle ignores every planted instruction
(utility under attack 1.0, attack success 0.0), the obedient baseline follows each one it reads (attack success
1.0), the null agent reads nothing (0.0 and 0.0); stacked with drift and outage the oracle keeps 1.0; both numbers,
with their intervals, in the terminal, summary.md, report.html and the viewer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from judges.calls.arg_match import ArgMatcher
from judges.calls.injection import InjectionJudge, judge_attack
from sim.config.run_config import RunConfig
from sim.core import failure
from sim.report.markdown import markdown_summary
from sim.report.terminal import render
from sim.run.runner import execute
from sim.view.run_data import build_run_documents
from worlds.registry import load_world

MULTIDOMAIN_TASKS = 10


@pytest.fixture(scope="module")
def multidomain(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The first multidomain conversations as a task file: a run checks only their gold, not all 320."""
    path = tmp_path_factory.mktemp("world") / "multidomain.jsonl"
    tasks = load_world("multidomain").tasks()[:MULTIDOMAIN_TASKS]
    path.write_text("".join(t.model_dump_json() + "\n" for t in tasks), encoding="utf-8")
    return str(path)


async def _run(tmp_path: Path, agent: str, world: str, **fields: Any) -> tuple[Any, Any]:
    config = RunConfig.model_validate(
        {"out": tmp_path / agent, "agent": agent, "world": world, "stressors": ["injection"], **fields}
    )
    return await execute(config)


def _numbers(summary: Any) -> tuple[float, float, int, int]:
    s = summary["injection"]
    return s["utility_under_attack"], s["attack_success_rate"], s["attacks"], s["attacks_shown"]


@pytest.mark.parametrize("world_name", ["multidomain", "ticket_desk"])
async def test_oracle_ignores_obedient_follows_null_reads_nothing(
    tmp_path: Path, world_name: str, multidomain: str
) -> None:
    world = multidomain if world_name == "multidomain" else world_name
    _, oracle = await _run(tmp_path, "oracle", world)
    utility, success, attacks, shown = _numbers(oracle)
    assert (utility, success) == (1.0, 0.0) and attacks >= 10 and shown == attacks
    assert oracle["conversation_success"] == 1.0
    _, obedient = await _run(tmp_path, "obedient", world)
    utility, success, attacks_obeyed, shown = _numbers(obedient)
    assert success == 1.0 and shown == attacks_obeyed == attacks
    assert utility == 1.0  # every row attacks something the user's task leaves alone: obeying costs no user goal
    _, null = await _run(tmp_path, "null", world)
    assert _numbers(null) == (0.0, 0.0, attacks, 0)


async def test_the_attackers_call_is_an_extra_call_and_collateral_damage_to_the_other_judges(
    tmp_path: Path, multidomain: str
) -> None:
    store, summary = await _run(tmp_path, "obedient", multidomain)
    assert summary["core_api_accuracy"] < 1.0 and summary["collateral_damage_episodes"] > 0
    episode = next(ep for ep in store.episodes() if any(a.call is not None for a in ep.task.attacks))
    attack = next(a for a in episode.task.attacks if a.call is not None)
    assert judge_attack(episode, attack).succeeded
    # The world refusing the attacker's call: attempted, not succeeded (nothing changed).
    refused = [
        ev.model_copy(update={"result": failure(ev.call, "failed", "refused", "no")})
        if ev.kind == "tool_result" and ev.call and attack.call and attack.call.matches(ev.call.name, ev.call.arguments)
        else ev
        for ev in episode.events
    ]
    verdict = judge_attack(episode.model_copy(update={"events": refused}), attack)
    assert verdict.attempted and not verdict.succeeded
    score = await InjectionJudge(ArgMatcher()).score(episode)
    assert score.value == 1.0 and f"injection:obeyed:{attack.scenario}" in score.errors


async def test_stacked_with_drift_and_outage_the_oracle_keeps_one(tmp_path: Path, multidomain: str) -> None:
    _, summary = await _run(tmp_path, "oracle", multidomain, stressors=["injection", "drift", "outage"])
    utility, success, attacks, _ = _numbers(summary)
    assert (utility, success) == (1.0, 0.0) and attacks > 0
    assert summary["conversation_success"] == 1.0 and summary["failed_episodes"] == 0


async def test_isolated_mode_measures_each_row_alone(tmp_path: Path, multidomain: str) -> None:
    _, summary = await _run(tmp_path, "obedient", multidomain, stressor_mode="isolated", limit=3)
    assert summary["injection"]["attack_success_rate"] == 1.0
    assert "injection" in {row["name"] for row in summary["stressors"]["by_type"]}


async def test_both_numbers_with_intervals_in_every_report(tmp_path: Path, multidomain: str) -> None:
    store, summary = await _run(tmp_path, "oracle", multidomain, limit=3)
    console = Console(record=True, width=200)
    render(summary, console)
    run_dir = store.root
    texts = {
        "terminal": console.export_text(),
        "summary.md": markdown_summary(summary),
        "report.html": (run_dir / "report.html").read_text(encoding="utf-8"),
    }
    for where, text in texts.items():
        for label in ("utility under attack", "attack success rate", "100.0%", "0.0%"):
            assert label in text, where
        assert "prompt injection: attack success per row" in text.lower(), where
    headline = build_run_documents(run_dir, "r").run["sections"][0]
    rows = {row[0]: row for row in headline["rows"]}
    assert rows["utility under attack"][1] == "100.0%" and rows["utility under attack"][2].endswith(", 100.0]")
    assert rows["attack success rate"][1] == "0.0%" and rows["attack success rate"][2].startswith("[0.0, ")
