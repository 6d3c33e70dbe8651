"""Copies of the shipped ticket desk for tests that change it (its model, its tasks, its cache)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path

from worlds.simulated.examples import TICKET_DESK


def desk_copy(tmp: Path, model: str | None, tasks: Sequence[str] | None = None, cache: bool = True) -> Path:
    """The example under ``tmp/ticket_desk``: ``model`` written into world.toml, only the ``tasks`` ids kept (all
    when None), the cache kept or left out."""
    target = tmp / "ticket_desk"
    shutil.copytree(TICKET_DESK, target, ignore=None if cache else shutil.ignore_patterns("cache"))
    if model is not None:
        with (target / "world.toml").open("a", encoding="utf-8") as toml:
            toml.write(f"model = {json.dumps(model)}\n")
    if tasks is not None:
        lines = (target / "tasks.jsonl").read_text(encoding="utf-8").splitlines()
        kept = [line for line in lines if json.loads(line)["id"] in tasks]
        (target / "tasks.jsonl").write_text("".join(line + "\n" for line in kept), encoding="utf-8")
    return target
