"""The import's quality filters (seed 001's, defaults on): empty results (no rows, or an aggregate's NULLs) and
results over ``--max-rows`` are left out, ``--only-split`` keeps two-path questions; each count in the report."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from sim.cli.app import app
from worlds.sql.ingest.augment import kept_answer
from worlds.sql.sample import SAMPLE_DIR

runner = CliRunner()
QUESTIONS = [
    ("How many books?", "SELECT count(*) FROM book"),
    ("Books by nobody?", "SELECT title FROM book WHERE genre = 'cookery'"),  # no rows
    ("Dearest cookbook?", "SELECT max(price) FROM book WHERE genre = 'cookery'"),  # one row of NULL
    ("Every title?", "SELECT title FROM book"),  # 14 rows: more than --max-rows 10 (the next has 7)
    ("Above average?", "SELECT title FROM book WHERE price > (SELECT avg(price) FROM book)"),  # two paths
]


def import_report(tmp_path: Path, *options: str) -> dict[str, object]:
    questions = tmp_path / "questions.json"
    items = [{"db_id": "library", "question": q, "query": sql} for q, sql in QUESTIONS]
    questions.write_text(json.dumps(items))
    out = tmp_path / "w"
    args = ["import", "spider", "--db-dir", str(SAMPLE_DIR / "database"), "--questions", str(questions)]
    result = runner.invoke(app, [*args, "--out", str(out), "--force", *options])
    assert result.exit_code == 0, result.output
    report: dict[str, object] = json.loads((out / "import_report.json").read_text())
    tasks = (out / "tasks.jsonl").read_text().splitlines()
    assert report["kept"] == len(tasks) and report["kept"] + report["rejected"] == report["questions"] == 5  # type: ignore[operator]
    return report


def test_defaults_drop_empty_and_null_aggregate_results(tmp_path: Path) -> None:
    report = import_report(tmp_path)
    assert report["filters"] == {"drop_empty": True, "max_rows": 100, "only_split": False}
    assert report["filtered"] == {"empty_result": 2, "over_max_rows": 0, "single_path": 0}
    assert report["kept"] == 3 and report["rejected_by_reason"] == {"empty_result": 2}
    details = {r["index"]: r["detail"] for r in report["rejections"]}  # type: ignore[attr-defined]
    assert details == {1: "the SQL returns no rows", 2: "only NULLs"}


def test_each_filter_is_an_option(tmp_path: Path) -> None:
    report = import_report(tmp_path, "--max-rows", "10")
    assert report["filtered"] == {"empty_result": 2, "over_max_rows": 1, "single_path": 0}
    report = import_report(tmp_path, "--keep-empty", "--max-rows", "0")
    assert report["kept"] == 5 and report["filters"] == {"drop_empty": False, "max_rows": None, "only_split": False}
    report = import_report(tmp_path, "--only-split")
    assert report["kept"] == report["split"] == 1
    assert report["filtered"] == {"empty_result": 2, "over_max_rows": 0, "single_path": 2}


def test_only_split_is_refused_where_no_question_has_two_paths(tmp_path: Path) -> None:
    args = ["import", "spider", "--db-dir", str(SAMPLE_DIR / "database"), "--questions"]
    result = runner.invoke(
        app, [*args, str(SAMPLE_DIR / "questions.json"), "--out", str(tmp_path / "w"), "--style", "sel", "--only-split"]
    )
    assert result.exit_code == 2 and "--only-split" in result.output
    assert not (tmp_path / "w").exists()


def test_augmented_tasks_pass_the_same_filters() -> None:
    assert not kept_answer([], None) and not kept_answer([{"max(price)": None}], None) and not kept_answer([None], 5)
    assert kept_answer([None, None], None) and kept_answer([{"n": 0}], None)  # two NULL rows, a count of 0: values
    assert kept_answer(list(range(100)), 100) and not kept_answer(list(range(101)), 100)
