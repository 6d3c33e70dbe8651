"""Every stressor type in stressor-mode isolated on the multi-domain world, against calibration agents.

The naive agent replays the unstressed gold and reads nothing: a format rule, a new prerequisite, a drifted schema,
a required follow-up, an error, an outage, a missing function, a tool it must first search for or a world that
changed under it (a timed event) costs it turns; a look-alike, a vague description, sponsored entries, related tools
beside the gold ones, a reworded request or an instruction planted in a result cannot (only a reader can be misled
by text). The oracle reads the rewritten gold and keeps every specification type at 1.0.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from sim.config.run_config import RunConfig
from sim.report.terminal import render
from sim.run.runner import execute

CONVERSATIONS = 40
DROPS = {"adhoc", "dependency", "drift", "notice", "limitation", "failure", "missing", "outage", "search", "events"}
NO_DROP = {"lookalike", "ambiguous", "irrelevant", "perturb", "expand", "injection"}


def _config(tmp_path: Path, agent: str, stressors: list[str]) -> RunConfig:
    return RunConfig.model_validate(
        {
            "out": tmp_path,
            "run_id": agent,
            "agent": agent,
            "world": "multidomain",
            "limit": CONVERSATIONS,
            "stressors": stressors,
            "stressor_mode": "isolated",
        }
    )


@pytest.mark.slow
async def test_a_naive_agent_loses_turns_to_exactly_the_types_that_need_reading(tmp_path: Path) -> None:
    _, summary = await execute(_config(tmp_path, "naive", ["all"]))
    rows = {row["name"]: row for row in summary["stressors"]["by_type"]}
    assert set(rows) == DROPS | NO_DROP
    assert summary["failed_episodes"] == 0
    for kind in DROPS:
        assert rows[kind]["before"] == 1.0 and rows[kind]["after"] < 1.0, rows[kind]
        assert rows[kind]["retention"] < 1.0 and rows[kind]["turns"] > 0
    for kind in NO_DROP:
        assert rows[kind]["before"] == rows[kind]["after"] == 1.0, rows[kind]
    console = Console(record=True, width=160)
    render(summary, console)
    text = console.export_text()
    assert "stressors, isolated" in text and all(kind in text for kind in rows)


@pytest.mark.slow
async def test_the_oracle_keeps_every_specification_type_at_one(tmp_path: Path) -> None:
    _, summary = await execute(_config(tmp_path, "oracle", ["spec"]))
    rows = summary["stressors"]["by_type"]
    assert {row["name"] for row in rows} == {
        "adhoc",
        "lookalike",
        "dependency",
        "ambiguous",
        "drift",
        "expand",
        "missing",
        "search",
    }
    assert all(row["after"] == 1.0 for row in rows), rows
    assert summary["core_api_accuracy"] == 1.0
