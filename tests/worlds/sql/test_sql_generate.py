"""The SQL function generator: literals in textual order, the three-function split, read-only safety."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from sim.core import ToolCall
from worlds.sql.engine.execute import QueryError, open_readonly, read_schema, run_query
from worlds.sql.engine.formats import Question
from worlds.sql.engine.model import Rejection, SqlFunction
from worlds.sql.engine.world import SqlPack, close_matches
from worlds.sql.query.functions import FunctionLibrary, build_function
from worlds.sql.query.literals import parametrise, parse
from worlds.sql.query.split import LIST_SLOT
from worlds.sql.query.verify import Database, Verified, answer_value, verify_question
from worlds.sql.serve.rest_client import to_result

SCHEMA_SQL = """
CREATE TABLE team (team_id INTEGER PRIMARY KEY, name TEXT, city TEXT, founded INTEGER, budget REAL);
CREATE TABLE player (player_id INTEGER PRIMARY KEY, name TEXT, team_id INTEGER, goals INTEGER, born TEXT);
INSERT INTO team VALUES (1, 'Rovers', 'Leeds', 1904, 2.5), (2, 'United', 'York', 1922, -1.5),
    (3, 'Athletic', 'Leeds', 1950, 4.0), (4, 'Wanderers', 'Bath', 1880, 1.0);
INSERT INTO player VALUES (1, 'Ann', 1, 10, '1990-05-01'), (2, 'Bob', 1, 3, '1985-02-11'),
    (3, 'Cid', 2, 7, '2001-09-30'), (4, 'Dee', 3, 0, '1995-12-24'), (5, 'Eve', 3, 12, '1999-01-01');
"""


@pytest.fixture()
def db(tmp_path: Path) -> Database:
    path = tmp_path / "league.sqlite"
    connection = sqlite3.connect(path)
    connection.executescript(SCHEMA_SQL)
    connection.close()
    return Database.open("league", path)


def literals_of(sql: str, db: Database) -> list[tuple[str, object]]:
    template = parametrise(parse(sql, db.schema), db.schema)
    function = build_function(template.tree, "league", template.literals)
    by_slot = {lit.slot: lit.value for lit in template.literals}
    return [(p.name, by_slot[p.slot]) for p in function.params]


def test_literals_in_textual_order_with_negatives_like_dates_and_repeats(db: Database) -> None:
    sql = (
        "SELECT name FROM player WHERE born < '2000-01-01' AND goals > -2 AND name LIKE '%e%' "
        "AND team_id IN (3, 1) AND goals != 3 AND born < '2000-01-01' ORDER BY goals DESC LIMIT 2"
    )
    assert literals_of(sql, db) == [
        ("max_born", "2000-01-01"),
        ("min_goals", -2),
        ("name_contains", "e"),
        ("team_id", 3),
        ("team_id_2", 1),
        ("other_than_goals", 3),
        ("max_born_2", "2000-01-01"),
        ("limit", 2),
    ]


def test_literal_on_the_left_flips_the_comparison_and_between_names_both_ends(db: Database) -> None:
    assert literals_of("SELECT name FROM team WHERE 1900 < founded", db) == [("min_founded", 1900)]
    sql = "SELECT name FROM team WHERE founded BETWEEN 1900 AND 1950"
    assert literals_of(sql, db) == [("founded_from", 1900), ("founded_to", 1950)]


def test_double_quoted_word_is_a_string_unless_it_names_a_column(db: Database) -> None:
    assert literals_of('SELECT name FROM team WHERE city = "Leeds"', db) == [("city", "Leeds")]
    assert literals_of('SELECT "name" FROM team WHERE "city" = "York"', db) == [("city", "York")]


def test_like_pattern_with_inner_wildcards_stays_a_pattern(db: Database) -> None:
    assert literals_of("SELECT name FROM team WHERE name LIKE 'R%s'", db) == [("name_pattern", "R%s")]


def test_real_column_makes_an_integer_literal_a_number(db: Database) -> None:
    template = parametrise(parse("SELECT name FROM team WHERE budget > 2", db.schema), db.schema)
    assert template.literals[0].json_type == "number"


def verified(sql: str, db: Database, library: FunctionLibrary | None = None) -> Verified:
    outcome = verify_question(Question(0, "league", "q?", sql), db, library or FunctionLibrary(), "w")
    assert isinstance(outcome, Verified), outcome
    return outcome


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT name FROM team WHERE team_id NOT IN (SELECT team_id FROM player WHERE goals > 5)",
        "SELECT name FROM team WHERE team_id IN (SELECT team_id FROM player WHERE born > '1995-01-01')",
        "SELECT name FROM player WHERE goals > (SELECT avg(goals) FROM player)",
        "SELECT name FROM player WHERE goals BETWEEN (SELECT min(goals) FROM player WHERE goals > 0) AND 11",
        "SELECT name FROM team WHERE team_id = (SELECT team_id FROM player ORDER BY goals DESC LIMIT 1)",
        "SELECT city FROM team WHERE founded < 1910 INTERSECT SELECT city FROM team WHERE founded > 1940",
        "SELECT city FROM team EXCEPT SELECT T1.city FROM team AS T1 JOIN player AS T2 ON T1.team_id = T2.team_id",
        "SELECT name, city FROM team WHERE budget > 2 UNION SELECT name, city FROM team WHERE city = 'Bath'",
    ],
)
def test_nested_query_gives_three_functions_and_two_disjoint_verified_paths(sql: str, db: Database) -> None:
    library = FunctionLibrary()
    turn = verified(sql, db, library).task.goals[0]
    assert len(turn.gold) == 1 and len(turn.alternatives) == 1
    inner, outer = turn.alternatives[0]
    assert (inner.role, outer.role, turn.gold[0].role) == ("support", "core", "core")
    assert len({turn.gold[0].name, inner.name, outer.name}) == 3  # disjoint: an outage of one leaves the other
    functions = {f.name: f for f in library.functions()}
    inner_result = run_query(db.connection, functions[inner.name].sql, functions[inner.name].bindings(inner.arguments))
    fed = list_argument_of(functions[outer.name], outer.arguments)
    assert fed == (inner_result.rows[0][0] if not isinstance(fed, list) else fed)  # the gold feeds the inner's result
    assert sorted(map(repr, turn.answer)) == sorted(map(repr, answer_value(run_query(db.connection, sql))))


def list_argument_of(function: SqlFunction, arguments: dict[str, object]) -> object:
    param = next(p for p in function.params if p.slot == LIST_SLOT)
    return arguments[param.name]


def test_correlated_and_derived_subqueries_are_rejected_with_reasons(db: Database) -> None:
    correlated = (
        "SELECT name FROM player AS p WHERE goals > (SELECT avg(goals) FROM player AS q WHERE q.team_id = p.team_id)"
    )
    derived = "SELECT count(*) FROM (SELECT team_id FROM player WHERE goals > 1)"
    for sql, reason in [(correlated, "inner_not_standalone"), (derived, "not_split")]:
        outcome = verify_question(Question(0, "league", "q?", sql), db, FunctionLibrary(), "w")
        assert isinstance(outcome, Rejection) and outcome.reason == reason, outcome


def test_queries_sharing_a_template_share_one_function(db: Database) -> None:
    library = FunctionLibrary()
    a = verified("SELECT name FROM team WHERE city = 'Leeds'", db, library)
    b = verified("SELECT name FROM team WHERE city = 'York'", db, library)
    assert a.task.goals[0].gold[0].name == b.task.goals[0].gold[0].name
    assert len(library.functions()) == 1


def test_connection_refuses_every_write(db: Database) -> None:
    before = hashlib.sha256(db.path.read_bytes()).hexdigest()
    connection = open_readonly(db.path)
    for sql in [
        "INSERT INTO team VALUES (9, 'x', 'y', 1, 1)",
        "DROP TABLE team",
        "CREATE TEMP TABLE t (a)",
        "UPDATE team SET name = 'z'",
        "PRAGMA query_only = OFF",
        f"ATTACH DATABASE '{db.path}' AS other",
    ]:
        with pytest.raises(QueryError):
            run_query(connection, sql)
    assert hashlib.sha256(db.path.read_bytes()).hexdigest() == before


async def test_agent_strings_are_bound_never_spliced_and_empty_results_hint(db: Database) -> None:
    task = verified("SELECT name FROM team WHERE city = 'Leeds'", db).task
    library = FunctionLibrary()
    verify_question(Question(0, "league", "q?", "SELECT name FROM team WHERE city = 'Leeds'"), db, library, "w")
    pack = SqlPack("w", library.functions(), [task], {"league": db.path})
    world = pack.new_world(0)
    name = library.functions()[0].name
    injected = "Leeds'; DROP TABLE team; --"
    result = await world.call(ToolCall(id="1", name=name, arguments={"city": injected}))
    rows = result.content if isinstance(result.content, list) else result.content["results"]
    assert result.ok and rows == []
    assert "team" in read_schema(db.path)
    typo = await world.call(ToolCall(id="2", name=name, arguments={"city": "Leds"}))
    assert typo.ok and "'Leeds'" in typo.content["hint"]
    found = await world.call(ToolCall(id="3", name=name, arguments={"city": "Leeds"}))
    assert sorted(r["name"] for r in found.content) == ["Athletic", "Rovers"]
    bad = await world.call(ToolCall(id="4", name=name, arguments={"city": 3}))
    assert bad.status == "invalid_arguments"


async def test_an_aggregate_over_no_rows_hints_as_an_empty_result_does(db: Database) -> None:
    """MAX over nothing is one row of NULLs: as empty as no rows (the API-styles study hints on both), so the agent
    reads the close values beside the null, and the hint survives the REST round trip."""
    sql = "SELECT max(budget) FROM team WHERE city = 'Leeds'"
    library = FunctionLibrary()
    task = verify_question(Question(0, "league", "q?", sql), db, library, "w")
    assert isinstance(task, Verified)
    world = SqlPack("w", library.functions(), [task.task], {"league": db.path}).new_world(0)
    name = library.functions()[0].name
    typo = await world.call(ToolCall(id="1", name=name, arguments={"city": "Leds"}))
    assert typo.ok and typo.content["results"] == [{"MAX(budget)": None}] and "'Leeds'" in typo.content["hint"]
    found = await world.call(ToolCall(id="2", name=name, arguments={"city": "Leeds"}))
    assert found.content == [{"MAX(budget)": 4.0}]
    call = ToolCall(id="1", name=name, arguments={})
    served = to_result(call, 200, [{"max(budget)": None}], '"No rows matched."')
    assert served.content == {"results": [{"max(budget)": None}], "hint": "No rows matched."}
    assert to_result(call, 200, [{"max(budget)": None}], None).content == [{"max(budget)": None}]


def test_close_matches_are_case_insensitive_and_skip_the_exact_value() -> None:
    assert close_matches("leeds", ["Leeds", "York"]) == ["Leeds"]
    assert close_matches("York", ["Leeds", "York"]) == []
