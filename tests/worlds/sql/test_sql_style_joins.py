"""Joins in the SLOT and SEL styles (the initialisation step), and the SEL tools bound from SLOT's arguments
(sorts, counts per value, aggregates over values), on the shipped library database and small made-up ones."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from sim.core import ToolCall, WorldContext
from worlds.sql.engine.execute import QueryResult, read_schema
from worlds.sql.ingest.folder import SqlWorldError, load_world_folder, write_world
from worlds.sql.ingest.importer import ImportOptions, import_world
from worlds.sql.ingest.nest import nested_variant
from worlds.sql.query.literals import GenerateError, parse
from worlds.sql.sample import SAMPLE_DIR
from worlds.sql.styles.style_shape import read_shape
from worlds.sql.styles.style_slot import SlotRuntime
from worlds.sql.styles.style_slot_gold import SlotPack, slot_chain

LIBRARY = SAMPLE_DIR / "database" / "library" / "library.sqlite"
JOIN = (
    "SELECT count(*) FROM book AS T1 JOIN author AS T2 ON T1.author_id = T2.author_id "
    "WHERE T2.name = 'Ursula K. Le Guin'"
)


def shape(sql: str) -> Any:
    schema = read_schema(LIBRARY)
    return read_shape(parse(sql, schema), schema)


def import_questions(tmp_path: Path, questions: list[tuple[str, str]], style: str, db: Path = LIBRARY) -> Any:
    db_dir = tmp_path / "db"
    (db_dir / db.stem).mkdir(parents=True, exist_ok=True)
    (db_dir / db.stem / db.name).write_bytes(db.read_bytes())
    records = [{"db_id": db.stem, "question": q, "query": sql} for q, sql in questions]
    (tmp_path / "q.json").write_text(json.dumps(records))
    return import_world("spider", db_dir, tmp_path / "q.json", ImportOptions(world="j", style=style))


def call(world: Any, name: str, **arguments: Any) -> Any:
    return asyncio.run(world.call(ToolCall(id="x", name=name, arguments=arguments)))


def test_a_join_is_one_table_with_table_dot_column_names() -> None:
    read = shape(JOIN)
    assert read.join is not None and read.join.tables == ("book", "author")
    assert read.join.edges[0].on == (("book.author_id", "author.author_id"),)
    assert read.conditions[0].column == "author.name"
    comma = shape(
        "SELECT T1.title FROM book AS T1, author AS T2 WHERE T1.author_id = T2.author_id AND T2.country = 'UK'"
    )
    assert comma.join is not None and comma.join.edges[0].on == (("book.author_id", "author.author_id"),)
    assert [c.column for c in comma.conditions] == ["author.country"]  # the joining equality is the ON, not a filter
    for sql, reason in [
        ("SELECT T1.title FROM book AS T1 JOIN book AS T2 ON T1.author_id = T2.author_id", "join:self_join"),
        ("SELECT T1.title FROM book AS T1 JOIN author AS T2", "join:cross_join"),
        ("SELECT author_id FROM book AS T1 JOIN author AS T2 ON T1.author_id = T2.author_id", "join:ambiguous_column"),
        ("SELECT T1.title FROM book AS T1 JOIN author AS T2 USING (author_id)", "join:kind"),
    ]:
        with pytest.raises(GenerateError) as raised:
            shape(sql)
        assert raised.value.reason == reason, sql


def test_group_having_and_columns_beside_the_group_key() -> None:
    having = shape("SELECT genre FROM book GROUP BY genre HAVING count(*) >= 2")
    assert having.aggregate_hidden and having.having[0].op == ">=" and having.having[0].value == 2
    beside = shape("SELECT T2.name, count(*) FROM book AS T1 JOIN author AS T2 ON T1.author_id = T2.author_id "
                   "GROUP BY T2.author_id")  # fmt: skip
    assert beside.group_by == ["author.author_id", "author.name"] and beside.group_extended
    with pytest.raises(GenerateError, match="ungrouped_columns"):
        shape("SELECT title, max(price) FROM book")  # a bare column beside an aggregate: SQLite's own pick


def test_slot_join_question_starts_from_the_joined_table(tmp_path: Path) -> None:
    world = import_questions(tmp_path, [("How many books by Le Guin?", JOIN)], "slot")
    assert world.report.kept == 1 and list(world.initial) == [world.tasks[0].id]
    gold = world.tasks[0].goals[0].gold
    assert [g.name for g in gold] == ["filter", "aggregate"] and gold[0].arguments["ref"] == "r1"
    folder = write_world(world, tmp_path / "w")
    assert (folder / "initial.json").is_file()
    pack = load_world_folder(folder, {"kind": "sql", "name": "j", "style": "slot", "initial": "initial.json"})
    assert isinstance(pack, SlotPack)
    task = pack.tasks()[0]
    episode = pack.new_world(0, WorldContext(task=task))
    assert "r1, already made" in episode.instructions() and "author.name" in episode.instructions()
    assert set(episode.refs) == {"r1"} and "book.title" in episode.refs["r1"].columns
    for n, gold_call in enumerate(gold):
        assert call(episode, gold_call.name, **gold_call.arguments).status == "success", n
    assert list(pack.runtime.result(episode.last()).rows[0]) == task.goals[0].answer
    plain = pack.new_world(0)  # outside an episode (listing tools): no task, no initialisation
    assert plain.refs == {} and "already made" not in plain.instructions()


def test_slot_initialisation_must_name_a_task_of_the_world(tmp_path: Path) -> None:
    folder = write_world(import_questions(tmp_path, [("How many books by Le Guin?", JOIN)], "slot"), tmp_path / "w")
    steps = json.loads((folder / "initial.json").read_text())
    (folder / "initial.json").write_text(json.dumps({"nobody": next(iter(steps.values()))}))
    with pytest.raises(SqlWorldError, match="nobody"):
        load_world_folder(folder, {"kind": "sql", "name": "j", "style": "slot", "initial": "initial.json"})


def test_sel_join_and_bound_tools_reproduce_the_sql(tmp_path: Path) -> None:
    questions = [
        ("How many books by Le Guin?", JOIN),
        ("Authors of books over 400 pages, by price", "SELECT T2.name FROM book AS T1 JOIN author AS T2 ON "
         "T1.author_id = T2.author_id WHERE T1.pages > 400 ORDER BY T1.price DESC"),
        ("Average price of novels?", "SELECT avg(price) FROM book WHERE genre = 'novel'"),
        ("Books per genre?", "SELECT genre, count(*) FROM book GROUP BY genre"),
        ("Distinct genres of long books?", "SELECT DISTINCT genre FROM book WHERE pages > 300"),
        ("Three cheapest titles", "SELECT title FROM book ORDER BY price LIMIT 3"),
        ("Same join, unused", "SELECT T1.title FROM book AS T1 JOIN loan AS T2 ON T1.book_id = T2.book_id "
         "WHERE T1.title = 'no such book' OR T2.returned = 1"),
    ]  # fmt: skip
    world = import_questions(tmp_path, questions, "sel")
    assert world.report.kept == 6 and world.report.rejected_by_reason == {"shape:condition": 1}
    names = {f.name for f in world.functions}
    assert {"list_book_author_keys", "select_book_author_by_author_name", "sort_book_author_keys_by_book_price",
            "sort_book_keys_by_price_descending", "count_book_rows_per_genre", "average_of_values",
            "distinct_values"} <= names  # fmt: skip
    assert not any(n.startswith(("list_book_loan", "select_book_loan")) for n in names)  # a rejected join's tools
    used = [[g.name for g in task.goals[0].gold] for task in world.tasks]
    assert used[0] == ["select_book_author_by_author_name", "count_keys"]
    assert used[1][-2:] == ["sort_book_author_keys_by_book_price_descending", "get_book_author_author_name"]
    assert used[2][-2:] == ["get_book_price", "average_of_values"]
    assert used[3] == ["list_book_keys", "count_book_rows_per_genre"]
    assert used[4][-1] == "distinct_values" and used[5][-2] == "sort_book_keys_by_price"
    assert world.tasks[5].goals[0].gold[-2].arguments["limit"] == 3


def test_a_tie_at_the_limit_is_named_not_kept_wrong(tmp_path: Path) -> None:
    db = tmp_path / "ties.sqlite"
    with sqlite3.connect(db) as connection:
        connection.executescript(
            "CREATE TABLE visit (id INTEGER PRIMARY KEY, city TEXT);"
            "INSERT INTO visit (city) VALUES ('Oslo'), ('Lima'), ('Lima'), ('Oslo'), ('Rome');"
        )
    schema = read_schema(db)
    tied = read_shape(parse("SELECT city FROM visit GROUP BY city ORDER BY count(*) DESC LIMIT 1", schema), schema)
    runtime = SlotRuntime({"ties": db})
    outcomes = []
    for city in ("Oslo", "Lima"):  # either is SQL's answer: the chain keeps one, and names the other a tie
        try:
            slot_chain(tied, runtime, "ties", QueryResult(("city",), ((city,),)))
            outcomes.append("kept")
        except GenerateError as error:
            outcomes.append(error.reason)
    assert sorted(outcomes) == ["kept", "slot:tied_limit"]
    two = read_shape(parse("SELECT city FROM visit GROUP BY city ORDER BY count(*) DESC LIMIT 2", schema), schema)
    with pytest.raises(GenerateError, match="slot:mismatch"):  # no tie at the cut (2 visits, then 1): just wrong
        slot_chain(two, runtime, "ties", QueryResult(("city",), (("Rome",), ("Oslo",))))
    runtime.close()


def test_a_join_has_a_nested_variant_and_augmentation_adds_it_with_two_paths(tmp_path: Path) -> None:
    sql = (
        "SELECT T1.title FROM book AS T1 JOIN author AS T2 ON T1.author_id = T2.author_id "
        "WHERE T2.country = 'Nigeria' AND T1.pages > 100"
    )
    schema = read_schema(LIBRARY)
    variant = nested_variant(parse(sql, schema), schema)
    assert variant is not None
    assert variant.sql(dialect="sqlite") == (
        "SELECT T1.title FROM book AS T1 WHERE T1.pages > 100 AND T1.author_id IN "
        "(SELECT T2.author_id FROM author AS T2 WHERE T2.country = 'Nigeria')"
    )
    both = "SELECT T1.title, T2.name FROM book AS T1 JOIN author AS T2 ON T1.author_id = T2.author_id"
    assert nested_variant(parse(both, schema), schema) is None  # both tables' columns are selected
    db_dir = tmp_path / "db" / "library"
    db_dir.mkdir(parents=True)
    (db_dir / "library.sqlite").write_bytes(LIBRARY.read_bytes())
    (tmp_path / "q.json").write_text(json.dumps([{"db_id": "library", "question": "Nigerian authors' long books?",
                                                  "query": sql}]))  # fmt: skip
    world = import_world("spider", tmp_path / "db", tmp_path / "q.json", ImportOptions(world="a", augment=1))
    nested = [t for t in world.tasks if "nested-variant" in t.tags]
    assert len(nested) == 1 and world.tasks[0].goals[0].alternatives == []
    assert len(nested[0].goals[0].alternatives) == 1 and nested[0].goals[0].answer == world.tasks[0].goals[0].answer
