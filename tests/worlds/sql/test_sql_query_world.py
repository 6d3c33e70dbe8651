"""The SQL-writing baseline's world (``worlds.sql.engine.query_world``): one ``execute_sql`` tool over the SQL world's
database, the schema in the instructions, and only single read-only SELECT/WITH statements run, their rows bounded."""

from __future__ import annotations

import pytest

from sim.core import ToolCall, WorldContext
from worlds.registry import load_world
from worlds.sql.engine.query_world import MAX_SHOWN_ROWS, TOOL_NAME, SqlQueryPack, sql_query_pack, statement_problem


@pytest.fixture(scope="module")
def pack() -> SqlQueryPack:
    return sql_query_pack(load_world("sql_sample"))


async def run(pack: SqlQueryPack, query: object) -> tuple[str, object]:
    world = pack.new_world(0, WorldContext(task=pack.tasks()[0]))
    result = await world.call(ToolCall(id="c1", name=TOOL_NAME, arguments={"query": query}))
    return result.status, result.content if result.ok else result.error_code


def test_one_tool_and_the_schema_in_the_instructions(pack: SqlQueryPack) -> None:
    assert [s.name for s in pack.tool_specs()] == [TOOL_NAME]
    world = pack.new_world(0, WorldContext(task=pack.tasks()[0]))
    text = world.instructions()
    assert "CREATE TABLE" in text and "book" in text and "author" in text and "library" in text
    assert len(pack.tasks()) == len(load_world("sql_sample").tasks())


async def test_a_select_answers_with_records(pack: SqlQueryPack) -> None:
    assert await run(pack, "SELECT count(*) AS n FROM book;") == ("success", [{"n": 14}])
    status, rows = await run(pack, "-- the count\nWITH b AS (SELECT title FROM book) SELECT count(*) FROM b")
    assert status == "success" and rows == [{"count(*)": 14}]


@pytest.mark.parametrize(
    "query",
    [
        "DELETE FROM book",
        "DROP TABLE book",
        "INSERT INTO author VALUES (99, 'x', 'y')",
        "PRAGMA query_only = OFF",
        "ATTACH DATABASE '/tmp/x.sqlite' AS x",
        "SELECT 1; DELETE FROM book",
        "SELECT 1; SELECT 2",
        "",
        "  ;  ",
        "/* hidden */ UPDATE book SET pages = 0",
    ],
)
async def test_anything_but_one_select_is_refused(pack: SqlQueryPack, query: str) -> None:
    assert statement_problem(query) is not None
    assert await run(pack, query) == ("invalid_arguments", "not_one_select")


async def test_a_write_inside_a_with_is_refused_by_the_database(pack: SqlQueryPack) -> None:
    status, code = await run(pack, "WITH x AS (SELECT 1) DELETE FROM book")
    assert (status, code) == ("failed", "query_failed")
    assert await run(pack, "SELECT count(*) AS n FROM book") == ("success", [{"n": 14}])  # nothing changed


async def test_rows_past_the_bound_are_cut_and_said(pack: SqlQueryPack) -> None:
    query = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 250) SELECT i FROM n"
    status, content = await run(pack, query)
    assert status == "success" and isinstance(content, dict)
    assert len(content["rows"]) == MAX_SHOWN_ROWS and "250 rows" in content["note"]


async def test_bad_sql_and_bad_arguments_are_the_agents_to_fix(pack: SqlQueryPack) -> None:
    assert await run(pack, "SELECT nope FROM book") == ("failed", "query_failed")
    assert await run(pack, 42) == ("invalid_arguments", "query_not_text")
    world = pack.new_world(0)
    other = await world.call(ToolCall(id="c", name="count_books", arguments={}))
    assert other.status == "not_found"


def test_a_world_without_a_database_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="world 'smart_home' is not a SQL world"):
        sql_query_pack(load_world("smart_home"))
