"""What a reader brings to the docs' commands, laid out in the folder they run in: their agents (``my_agent.py``,
``my_agents/``: the shipped examples), their service's ``openapi.yaml``, downloads of Spider (``spider/``), BIRD
(``bird/``) and ToolBench (``toolenv/``, ``G1_instruction.json``), and a fresh clone's ``examples/``. Each is a small
stand-in made from the repository's own data."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from tests.support.paths import REPO_ROOT

READER = Path(__file__).parent / "reader"
BIRD = REPO_ROOT / "tests" / "data" / "bird"
SQL_SAMPLE = REPO_ROOT / "worlds" / "sql" / "sample"


def lay_out(folder: Path) -> None:
    """The reader's files in ``folder``."""
    shutil.copytree(READER, folder, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO_ROOT / "examples", folder / "examples", ignore=shutil.ignore_patterns("__pycache__"))
    # Their agents are the shipped examples, as the docs' commands name them from the folder holding them.
    shutil.copy(REPO_ROOT / "examples" / "my_agent.py", folder)
    shutil.copytree(
        REPO_ROOT / "examples" / "my_agents", folder / "my_agents", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy(REPO_ROOT / "worlds" / "simulated" / "examples" / "ticket_desk" / "openapi.yaml", folder)
    # Spider's layout: database/<db_id>/<db_id>.sqlite and dev.json; the built-in sample has it.
    shutil.copytree(SQL_SAMPLE / "database", folder / "spider" / "database")
    shutil.copy(SQL_SAMPLE / "questions.json", folder / "spider" / "dev.json")
    # BIRD's: dev_databases/<db_id>/<db_id>.sqlite beside database_description/, and dev.json.
    database = folder / "bird" / "dev_databases" / "school_meals"
    database.mkdir(parents=True)
    connection = sqlite3.connect(database / "school_meals.sqlite")
    connection.executescript((BIRD / "school_meals.sql").read_text(encoding="utf-8"))
    connection.commit()
    connection.close()
    shutil.copytree(BIRD / "database_description", database / "database_description")
    shutil.copy(BIRD / "dev.json", folder / "bird" / "dev.json")
