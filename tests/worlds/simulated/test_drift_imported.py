"""Every drift operator fires on an imported OpenAPI world, not only on the built-in ticket desk.

The ticket desk's OpenAPI document is imported afresh under another name (so no built-in world answers for it), with
the desk's tasks and committed response cache; isolated runs of the six auto drift rows, read-only cache, no model.
The auto planner reads the imported operations' real schemas (defaults, enums, types): the oracle, which follows the
gold in the new schema, keeps 1.0 on every operator, and the naive agent, which keeps the documented schema, loses
turns on each.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from sim.core import ToolSpec
from tests.support.cli import squall
from worlds.simulated.examples import TICKET_DESK
from worlds.stressors.types.drift import OPS
from worlds.stressors.types.drift_auto import _properties

NAME = "desk_import"


def imported(tmp: Path) -> Path:
    """The desk's document imported as ``desk_import``, its tasks renamed to the world, its cache copied."""
    tasks = tmp / "tasks.jsonl"
    lines = (TICKET_DESK / "tasks.jsonl").read_text(encoding="utf-8").splitlines()
    tasks.write_text("".join(json.dumps({**json.loads(line), "world": NAME}) + "\n" for line in lines), "utf-8")
    world = tmp / NAME
    code, _, err = squall(
        "import", "openapi", str(TICKET_DESK / "openapi.yaml"), "--out", str(world), "--name", NAME,
        "--tasks", str(tasks),
    )  # fmt: skip
    assert code == 0, err
    for cached in (TICKET_DESK / "cache").glob("*.json"):
        shutil.copy(cached, world / "cache" / cached.name)
    return world


def drift_rows(world: Path, out: Path, agent: str) -> dict[str, dict[str, Any]]:
    code, _, err = squall(
        "run", "--world", str(world), "--agent", agent, "--out", str(out), "--run-id", agent, "-q",
        "--stressors", "drift", "--stressor-mode", "isolated", "--cache", "read-only",
    )  # fmt: skip
    assert code == 0, err
    summary = json.loads((out / agent / "summary.json").read_text(encoding="utf-8"))
    return {row["op"]: row for row in summary["stressors"]["by_scenario"] if row["name"].startswith("drift.auto_")}


@pytest.mark.slow
def test_each_drift_operator_fires_on_an_imported_world(tmp_path: Path) -> None:
    world = imported(tmp_path)
    oracle, naive = drift_rows(world, tmp_path, "oracle"), drift_rows(world, tmp_path, "naive")
    assert set(oracle) == set(OPS) == set(naive)
    for op in OPS:
        assert oracle[op]["turns"] > 0 and oracle[op]["before"] == oracle[op]["after"] == 1.0, oracle[op]
        assert naive[op]["after"] < naive[op]["before"], naive[op]


def test_a_parameter_given_by_a_shared_schema_is_read_as_its_target() -> None:
    """An imported operation's parameter that refers to a shared schema: its type, enum and default are seen."""
    spec = ToolSpec(
        name="listItems",
        description="",
        parameters={
            "type": "object",
            "properties": {"page": {"$ref": "#/$defs/Page", "description": "Page number."}},
            "$defs": {"Page": {"type": "integer", "default": 1}},
        },
    )
    assert _properties(spec)["page"] == {"type": "integer", "default": 1, "description": "Page number."}
