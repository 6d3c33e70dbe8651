"""SQL during `squall import` is bounded (issue 25, item 6): before, a recursive CTE hung the import forever and
``randomblob(2000000000)`` ended in a MemoryError traceback at 5.9 GB. Now each stops the import with exit 2 and one
line naming the question, and nothing is written. A world's tool call past a limit fails that call only."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import pytest

from tests.support.cli import assert_clean_failure, squall, tree
from worlds.sql.engine.execute import QueryError, QueryLimitError, open_readonly, run_query

pytestmark = pytest.mark.reliability

NEVER_ENDS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
ENDLESS_ROWS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c"
HUGE_VALUE = "SELECT randomblob(2000000000)"
GOOD = {"db_id": "shop", "question": "How many items are there?", "query": "SELECT count(*) FROM items"}


def _database(folder: Path) -> Path:
    path = folder / "dbs" / "shop" / "shop.sqlite"
    path.parent.mkdir(parents=True)
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)")
        connection.executemany("INSERT INTO items (name) VALUES (?)", [("pen",), ("cup",)])
    connection.close()
    return path


def _import(tmp_path: Path, hostile_sql: str, *options: str) -> tuple[int, str, float]:
    _database(tmp_path)
    questions = tmp_path / "dev.json"
    hostile = {"db_id": "shop", "question": "How far does it go?", "query": hostile_sql}
    questions.write_text(json.dumps([GOOD, hostile]))
    started = time.monotonic()
    code, _, err = squall(
        "import", "spider", "--db-dir", str(tmp_path / "dbs"), "--questions", str(questions),
        "--out", str(tmp_path / "world"), *options,
    )  # fmt: skip
    return code, err, time.monotonic() - started


@pytest.mark.parametrize("style", ["per_question", "sel", "slot"])
def test_a_query_that_never_ends_stops_the_import_naming_the_question(tmp_path: Path, style: str) -> None:
    code, err, took = _import(tmp_path, NEVER_ENDS, "--query-time-limit", "0.5", "--style", style)
    assert_clean_failure(code, err, "dev.json[1]", "ran past the 0.5 s time limit", "WITH RECURSIVE")
    assert took < 30  # the limit is 0.5 s: generous for a loaded machine, and far from "forever"
    assert "world" not in tree(tmp_path)


@pytest.mark.parametrize(
    ("sql", "needle"),
    [(HUGE_VALUE, "a value over the 64 MiB limit"), (ENDLESS_ROWS, "over 1,000,000 rows")],
)
def test_a_result_too_big_stops_the_import_in_one_line(tmp_path: Path, sql: str, needle: str) -> None:
    code, err, _ = _import(tmp_path, sql)
    assert_clean_failure(code, err, "dev.json[1]", needle)
    assert "world" not in tree(tmp_path)


def test_the_time_limit_must_be_a_positive_finite_number(tmp_path: Path) -> None:
    for value in ("0", "inf", "nan", "-1"):
        code, err, _ = _import(tmp_path / value, "SELECT 1", "--query-time-limit", value)
        assert_clean_failure(code, err, "--query-time-limit")


def test_a_world_query_past_the_limit_fails_that_query_only(tmp_path: Path) -> None:
    connection = open_readonly(_database(tmp_path), time_limit_s=0.2)
    with pytest.raises(QueryLimitError, match="time limit"):
        run_query(connection, NEVER_ENDS)
    assert run_query(connection, "SELECT count(*) FROM items").rows == ((2,),)  # the deadline was per query
    with pytest.raises(QueryLimitError, match="64 MiB"):
        run_query(connection, HUGE_VALUE)
    with pytest.raises(QueryError):  # an ordinary refusal stays a QueryError (a question rejected, not the set)
        run_query(connection, "SELECT nope FROM items")
    connection.close()
