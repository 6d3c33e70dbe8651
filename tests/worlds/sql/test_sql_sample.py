"""The shipped SQL sample world end to end: build reproducibility, the oracle with and without an outage, and
`squall import` writing a folder that `--world PATH` runs."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sim.cli.app import app
from worlds.registry import load_world
from worlds.sql.sample import SAMPLE_DIR, import_sample
from worlds.sql.sample.build import SOURCE, TARGET, build

runner = CliRunner()


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output + (result.stderr if result.stderr_bytes else "")


def test_committed_database_matches_its_sql(tmp_path: Path) -> None:
    rebuilt = build(SOURCE, tmp_path / "library.sqlite")
    dumps = []
    for path in (TARGET, rebuilt):
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        dumps.append(list(connection.iterdump()))
        connection.close()
    assert dumps[0] == dumps[1], "rebuild the sample: python -m worlds.sql.sample.build"
    assert TARGET.stat().st_size < 100_000


def test_sample_keeps_every_question_and_splits_the_nested_ones() -> None:
    world = import_sample()
    assert world.report.rejected == 0, world.report.rejections
    nested = [q for q in json.loads((SAMPLE_DIR / "questions.json").read_text()) if q["query"].count("SELECT") > 1]
    assert len(nested) >= 6 and world.report.split == len(nested)


def run_summary(tmp_path: Path, *extra: str, agent: str = "oracle") -> dict[str, object]:
    code, out = invoke("run", "--agent", agent, "--out", str(tmp_path), "--run-id", "r", *extra)
    assert code == 0, out
    summary: dict[str, object] = json.loads((tmp_path / "r" / "summary.json").read_text())
    return summary


def test_oracle_solves_the_sample_and_takes_the_backup_path_under_an_outage(tmp_path: Path) -> None:
    plain = run_summary(tmp_path / "plain", "--world", "sql_sample")
    assert plain["conversation_success"] == 1.0
    # The bare group: the backup-path outage, never a world of impossible questions (each task is one question).
    stressed = run_summary(tmp_path / "outage", "--world", "sql_sample", "--stressors", "outage")
    assert stressed["conversation_success"] == stressed["completion"] == 1.0
    naive = run_summary(tmp_path / "naive", "--world", "sql_sample", "--stressors", "outage", agent="naive")
    assert isinstance(naive["completion"], float) and 0.5 < naive["completion"] < 1.0  # it never looks for a backup
    episodes = [json.loads(line) for line in (tmp_path / "outage" / "r" / "episodes.jsonl").read_text().splitlines()]
    failed_then_recovered = 0
    for episode in episodes:
        results = [e for e in episode["events"] if e.get("kind") == "tool_result"]
        if any(r.get("result", {}).get("status") == "unavailable" for r in results):
            failed_then_recovered += 1
    assert failed_then_recovered >= 6


def test_import_writes_a_world_folder_that_runs(tmp_path: Path) -> None:
    out = tmp_path / "library_world"
    code, text = invoke(
        "import", "spider", "--db-dir", str(SAMPLE_DIR / "database"), "--questions",
        str(SAMPLE_DIR / "questions.json"), "--out", str(out), "--obfuscate", "--augment", "1",
    )  # fmt: skip
    assert code == 0, text
    assert "21 of 21 questions kept" in text
    report = json.loads((out / "import_report.json").read_text())
    assert report["kept"] == 21 and report["augmented"] >= 1
    pack = load_world(str(out))
    assert all(spec.name.startswith("function_") for spec in pack.new_world(0).specs())
    summary = run_summary(tmp_path / "runs", "--world", str(out), "--stressors", "outage.backup")
    assert summary["conversation_success"] == 1.0
    code, text = invoke(
        "import", "spider", "--db-dir", str(SAMPLE_DIR / "database"), "--questions",
        str(SAMPLE_DIR / "questions.json"), "--out", str(out),
    )  # fmt: skip
    assert code == 2 and "already exists" in text


def test_bad_input_names_the_place_and_writes_nothing(tmp_path: Path) -> None:
    questions = tmp_path / "dev.json"
    questions.write_text(json.dumps([{"db_id": "library", "question": "q", "query": "SELECT 1"}, {"db_id": "library"}]))
    out = tmp_path / "out"
    args = ["import", "spider", "--db-dir", str(SAMPLE_DIR / "database"), "--questions", str(questions)]
    code, text = invoke(*args, "--out", str(out))
    assert code == 2 and "dev.json[1]" in text and "question" in text
    questions.write_text(json.dumps([{"db_id": "nowhere", "question": "q", "query": "SELECT 1"}]))
    code, text = invoke(*args, "--out", str(out))
    assert code == 2 and "nowhere" in text
    code, text = invoke("import", "sparql", "--db-dir", ".", "--questions", str(questions), "--out", str(out))
    assert code == 2 and "sparql" in text
    assert not out.exists() and [p.name for p in tmp_path.iterdir()] == ["dev.json"]


@pytest.mark.reliability
def test_a_database_id_is_a_name_never_a_path(tmp_path: Path) -> None:
    """A shared question file must not pick where the import reads or writes: ``db_id`` names a folder and a file."""
    outside = tmp_path / "T" / "y"
    outside.mkdir(parents=True)
    shutil.copyfile(SAMPLE_DIR / "database" / "library" / "library.sqlite", outside / "y.sqlite")
    before = (outside / "y.sqlite").read_bytes()
    db_dir = tmp_path / "a" / "b" / "c"
    db_dir.mkdir(parents=True)
    questions = tmp_path / "dev.json"
    args = ["import", "spider", "--db-dir", str(db_dir), "--questions", str(questions)]
    for hostile in ("../../../T/y", "/abs", "..", ".hidden", "a/b", "x\x00y"):
        questions.write_text(json.dumps([{"db_id": hostile, "question": "q", "query": "SELECT 1"}]))
        out = tmp_path / "out"
        code, text = invoke(*args, "--out", str(out))
        assert code == 2 and "dev.json[0]: field 'db_id'" in text and "not a database name" in text, (hostile, text)
        assert not out.exists()
    assert (outside / "y.sqlite").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["T", "a", "dev.json"]


@pytest.mark.reliability
def test_a_world_folder_whose_functions_name_a_path_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "w"
    code, text = invoke(
        "import", "spider", "--db-dir", str(SAMPLE_DIR / "database"), "--questions",
        str(SAMPLE_DIR / "questions.json"), "--out", str(out),
    )  # fmt: skip
    assert code == 0, text
    functions = json.loads((out / "functions.json").read_text())
    functions[0]["db_id"] = "../../elsewhere"
    (out / "functions.json").write_text(json.dumps(functions))
    with pytest.raises(ValueError, match=r"functions\.json: 0\.db_id"):
        load_world(str(out))
