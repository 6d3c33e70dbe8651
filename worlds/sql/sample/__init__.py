"""The built-in ``sql_sample`` world: a small lending-library database and questions in Spider format.

Imported when the world loads (about 20 questions: milliseconds), so the shipped files are the sources only:
``library.sql`` (built into the committed SQLite file by ``build.py``) and ``questions.json``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from sim.core import Task
from worlds.sql.engine.world import SqlPack
from worlds.sql.ingest.importer import ImportedWorld, ImportOptions, import_world

SAMPLE_DIR = Path(__file__).parent
WORLD_NAME = "sql_sample"


def import_sample(options: ImportOptions | None = None) -> ImportedWorld:
    options = options or ImportOptions(world=WORLD_NAME)
    return import_world("spider", SAMPLE_DIR / "database", SAMPLE_DIR / "questions.json", options)


def sample_pack(tasks: Sequence[Task] | None = None) -> SqlPack:
    """The sample world, serving its own tasks or the given ones."""
    world = import_sample()
    if world.report.rejected:
        reasons = ", ".join(f"{r.index}: {r.reason} {r.detail}" for r in world.report.rejections)
        raise ValueError(f"the shipped SQL sample has rejected questions: {reasons}")
    return SqlPack(WORLD_NAME, world.functions, world.tasks if tasks is None else tasks, world.databases)
