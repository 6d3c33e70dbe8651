"""Stressor-mode isolated: the baseline next to each drift operator and each perturbation, per operator and per
scenario, in the summary and the report."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from rich.console import Console

from sim.config.run_config import RunConfig
from sim.report.terminal import render
from sim.run.runner import execute
from worlds.stressors import builtin_scenarios


async def test_every_drift_operator_and_perturbation_is_shown_beside_its_baseline(tmp_path: Path) -> None:
    config = RunConfig.model_validate(
        {
            "out": tmp_path,
            "run_id": "ops",
            "agent": "naive",
            "world": "multidomain",
            "limit": 12,
            "stressors": ["drift", "perturb"],
            "stressor_mode": "isolated",
        }
    )
    _, summary = await execute(config)
    stressors = summary["stressors"]
    scenarios = [r for r in stressors["by_scenario"] if r["type"] in ("drift", "perturb")]
    ops = {(r["type"], r["name"]): r for r in stressors["by_operator"]}
    assert {r["type"] for r in scenarios} == {"drift", "perturb"}
    shipped = {s.name: s.params["op"] for s in builtin_scenarios() if s.type in ("drift", "perturb")}
    members: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in scenarios:
        assert row["op"] == shipped[row["name"]]
        members[(row["type"], row["op"])].append(row)
    assert set(ops) == set(members)
    for key, rows in members.items():
        op = ops[key]
        turns = sum(int(r["turns"]) for r in rows)
        assert op["turns"] == turns and op["scenarios"] == len(rows)
        assert op["before"] == 1.0  # the naive agent replays the unstressed gold: the baseline is right
        after = sum(float(r["after"]) * int(r["turns"]) for r in rows) / turns
        assert abs(op["after"] - after) < 1e-3 and abs(op["degradation"] - (1.0 - op["after"])) < 1e-3
    by_type = {r["name"]: r for r in stressors["by_type"]}
    assert by_type["drift"]["turns"] == sum(r["turns"] for k, r in ops.items() if k[0] == "drift")
    assert any(r["after"] < 1.0 for k, r in ops.items() if k[0] == "drift")  # drift costs the naive agent turns
    assert all(r["after"] == 1.0 for k, r in ops.items() if k[0] == "perturb")  # rewording cannot

    console = Console(record=True, width=160)
    render(summary, console)
    text = console.export_text()
    assert "per operator and scenario" in text and "baseline" in text and "stressed" in text
    for kind, op in ops:
        assert f"{kind}: {op} ({ops[(kind, op)]['scenarios']})" in text
    for row in scenarios:
        assert row["name"].split(".", 1)[1] in text
