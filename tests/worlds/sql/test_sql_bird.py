"""`squall import bird` end to end on BIRD-shaped data of our own (tests/data/bird): a database whose columns have
spaces and brackets, BIRD's ``database_description/<table>.csv`` notes, and questions with ``evidence`` in BIRD's
dev.json layout. The notes reach the function docs, the evidence the question, and the oracle scores 1.0."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sim.cli.app import app
from sim.core import Task
from tests.support.paths import REPO_ROOT
from tests.worlds.sql.test_sql_descriptions import name_problems, sql_problems
from worlds.sql.engine.bird_docs import with_docs
from worlds.sql.engine.execute import read_schema
from worlds.sql.ingest.importer import ImportOptions, import_world

BIRD = REPO_ROOT / "tests" / "data" / "bird"
DB = "school_meals"
runner = CliRunner()


@pytest.fixture
def db_dir(tmp_path: Path) -> Path:
    """BIRD's layout: ``<db-dir>/<db_id>/<db_id>.sqlite`` with ``database_description/`` beside it."""
    folder = tmp_path / "dev_databases" / DB
    folder.mkdir(parents=True)
    connection = sqlite3.connect(folder / f"{DB}.sqlite")
    connection.executescript((BIRD / f"{DB}.sql").read_text(encoding="utf-8"))
    connection.commit()
    connection.close()
    shutil.copytree(BIRD / "database_description", folder / "database_description")
    return folder.parent


def test_the_questions_follow_birds_dev_layout() -> None:
    items = json.loads((BIRD / "dev.json").read_text(encoding="utf-8"))
    assert all(set(item) == {"question_id", "db_id", "question", "evidence", "SQL", "difficulty"} for item in items)
    assert sum(1 for item in items if item["evidence"]) >= 5 and {"simple", "moderate", "challenging"} == {
        item["difficulty"] for item in items
    }


def test_column_notes_are_read_from_the_csvs(db_dir: Path) -> None:
    path = db_dir / DB / f"{DB}.sqlite"
    schema = with_docs(read_schema(path), path)
    free = schema["frpm"]["free meal count (k-12)"]
    assert free.description.startswith("number of students eligible for free meals")  # a byte-order mark is skipped
    assert "eligible free rate" in free.description
    assert schema["satscores"]["avgscrmath"].label == "average scores in Math"
    assert "0: not a magnet school 1: magnet school" in schema["schools"]["magnet"].description  # one line
    assert read_schema(path)["frpm"]["cdscode"].description == ""  # without the CSVs, nothing


def test_import_bird_runs_end_to_end(db_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "world"
    questions = BIRD / "dev.json"
    result = runner.invoke(
        app, ["import", "bird", "--db-dir", str(db_dir), "--questions", str(questions), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    report = json.loads((out / "import_report.json").read_text())
    assert report["source"] == "bird" and report["kept"] >= 6, report["rejected_by_reason"]
    assert report["split"] >= 2  # the nested questions keep their second path

    functions = json.loads((out / "functions.json").read_text())
    docs = " ".join(f["summary"] + " " + " ".join(p["description"] for p in f["params"]) for f in functions)
    assert "name of the school" in docs  # a returned column's note
    assert "whether a magnet school or program is offered" in docs  # a compared column's note, in its argument
    assert "average scores in Math" in docs  # BIRD's readable column name
    assert "SELECT" not in docs

    tasks = [Task.model_validate_json(line) for line in (out / "tasks.jsonl").read_text().splitlines()]
    magnet = next(t for t in tasks if "magnet schools" in (t.goals[0].user.explicit or ""))
    assert "(Note: magnet school refers to Magnet = 1)" in (magnet.goals[0].user.explicit or "")

    runs = tmp_path / "runs"
    result = runner.invoke(app, ["run", "--world", str(out), "--agent", "oracle", "--out", str(runs), "--run-id", "r"])
    assert result.exit_code == 0, result.output
    assert json.loads((runs / "r" / "summary.json").read_text())["conversation_success"] == 1.0


@pytest.mark.parametrize("obfuscate", [False, True])
def test_bird_descriptions_carry_no_sql_and_obfuscated_ones_no_names(db_dir: Path, obfuscate: bool) -> None:
    world = import_world("bird", db_dir, BIRD / "dev.json", ImportOptions(obfuscate=obfuscate))
    assert world.functions and sql_problems(world) == []
    if obfuscate:
        assert name_problems(world, world.databases) == []
