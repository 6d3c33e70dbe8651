"""Function descriptions say what a query does in words, never its SQL; obfuscated worlds name no table or column.

Checked on every query of the shipped sample and, when present, of the shared Spider sample (dev and the hr_1
train queries), for the per-question and SEL styles, plain and obfuscated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlglot
from typer.testing import CliRunner

from sim.cli.app import app
from tests.support.paths import SPIDER
from worlds.registry import load_world
from worlds.sql.describe.leaks import name_leaks, name_pattern, query_names, sql_leaks
from worlds.sql.engine.execute import read_schema
from worlds.sql.engine.model import SqlFunction
from worlds.sql.ingest.importer import ImportedWorld, ImportOptions, import_world
from worlds.sql.query.literals import parametrise, parse
from worlds.sql.query.prose import PlainNamer, Prose
from worlds.sql.sample import SAMPLE_DIR, import_sample

runner = CliRunner()
LIBRARY = read_schema(SAMPLE_DIR / "database" / "library" / "library.sqlite")
spider = pytest.mark.skipif(not (SPIDER / "dev.json").is_file(), reason=f"Spider sample not found at {SPIDER}")


def texts(function: SqlFunction) -> list[str]:
    return [function.describe(), *(p.description for p in function.params)]


def sql_problems(world: ImportedWorld) -> list[str]:
    return [
        f"{f.name}: {found} in {text!r}"
        for f in world.functions
        for text in texts(f)
        if (found := sql_leaks(text, f.sql))
    ]


def name_problems(world: ImportedWorld, databases: dict[str, Path]) -> list[str]:
    """Any table or column name of a function's query (or of its whole database) in what the agent reads of it."""
    problems = []
    schemas = {db_id: read_schema(path) for db_id, path in databases.items()}
    for f in world.functions:
        tables, columns = query_names(f.sql)
        everything = [*tables, *columns]
        everything += [c.name for cs in schemas[f.db_id].values() for c in cs.values()] + list(schemas[f.db_id])
        readable = [*texts(f), f.name, *(p.name for p in f.params)]
        hidden = name_pattern(everything)  # what name_leaks matches, compiled once for the function's texts
        found_in = [(text, [m.group(0) for m in hidden.finditer(text)] if hidden else []) for text in readable]
        problems += [f"{f.name}: {found} in {text!r}" for text, found in found_in if found]
    return problems


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT title FROM book WHERE genre = 'novel'", "Returns the title of book rows whose genre is ⟨p0⟩."),
        (
            "SELECT title FROM book ORDER BY price DESC LIMIT 3",
            "Returns the title of book rows, sorted by price (highest first), keeping only the first ⟨p0⟩ rows.",
        ),
        (
            "SELECT genre, count(*) FROM book GROUP BY genre HAVING count(*) > 2",
            "Returns the genre and the number of rows for each genre of book rows, keeping only the groups for "
            "which the number of rows is greater than ⟨p0⟩.",
        ),
        (
            "SELECT count(*) FROM book AS T1 JOIN author AS T2 ON T1.author_id = T2.author_id WHERE T2.name = 'x'",
            "Returns the number of book rows combined with author rows (matched on author id) for which name of "
            "author is ⟨p0⟩.",
        ),
        (
            "SELECT title FROM book WHERE price > (SELECT avg(price) FROM book)",
            "Returns the title of book rows whose price is greater than the average price over book rows.",
        ),
        (
            "SELECT name FROM member WHERE member_id NOT IN (SELECT member_id FROM loan) AND city LIKE '%o%'",
            "Returns the name of member rows whose member id is not one of the member id of loan rows and city "
            "contains ⟨p0⟩.",
        ),
    ],
)
def test_a_query_reads_as_words(sql: str, expected: str) -> None:
    tree = parametrise(parse(sql, LIBRARY), LIBRARY).tree
    assert Prose(PlainNamer(LIBRARY)).sentence(tree) == expected


def test_the_leak_check_catches_sql_and_names() -> None:
    sql = "SELECT title FROM book WHERE genre = :p0"
    assert sql_leaks("Looks up title. Query: SELECT title FROM book WHERE genre = `genre`", sql)
    assert sql_leaks("Returns COUNT(*) of the rows", sql) and sql_leaks("uses book.genre", sql)
    assert sql_leaks("title from book where it fits", sql)  # three tokens of the query in a row
    assert not sql_leaks("Returns the title of book rows whose genre is `genre`.", sql)
    assert name_leaks("the Books of field 3", ["book"]) == ["Books"]
    assert name_leaks("their birth year", ["birth_year"]) == ["birth year"]
    assert not name_leaks("field 3 of table 2", ["book", "genre"])


@pytest.mark.parametrize("style", ["per_question", "sel"])
def test_no_sample_description_contains_sql(style: str) -> None:
    world = import_sample(ImportOptions(world="s", style=style))
    assert world.functions and sql_problems(world) == []
    if style == "per_question":
        assert all("Data: the library database" in f.describe() for f in world.functions)


@pytest.mark.parametrize("style", ["per_question", "sel"])
def test_obfuscated_sample_names_nothing_of_the_schema(style: str) -> None:
    world = import_sample(ImportOptions(world="s", style=style, obfuscate=True, augment=0))
    assert world.functions and sql_problems(world) == [] and name_problems(world, world.databases) == []
    assert all(f.name.startswith("function_") for f in world.functions)
    compared = [f for f in world.functions if any(p.column for p in f.params)]
    assert compared and all("such as" in f.describe() for f in compared)  # what a compared field holds


def test_obfuscated_descriptions_keep_the_functions_apart() -> None:
    """Hidden names, yet two functions with different queries read differently."""
    world = import_sample(ImportOptions(world="s", obfuscate=True))
    by_sql: dict[str, str] = {}
    for f in world.functions:
        by_sql.setdefault(f.describe(), f.sql)
    assert len(by_sql) == len(world.functions)


@pytest.mark.parametrize("style", ["per_question", "sel"])
def test_an_obfuscated_import_runs_with_the_oracle(tmp_path: Path, style: str) -> None:
    out = tmp_path / "w"
    args = ["import", "spider", "--db-dir", str(SAMPLE_DIR / "database"), "--questions",
            str(SAMPLE_DIR / "questions.json"), "--out", str(out), "--style", style, "--obfuscate"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    functions = json.loads((out / "functions.json").read_text())
    assert all(f["name"].startswith("function_") and "SELECT" not in f["summary"] for f in functions)
    result = runner.invoke(
        app, ["run", "--world", str(out), "--agent", "oracle", "--out", str(tmp_path / "runs"), "--run-id", "r"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "runs" / "r" / "summary.json").read_text())["conversation_success"] == 1.0


@pytest.fixture(scope="module")
def spider_worlds() -> dict[str, ImportedWorld]:
    database = SPIDER / "database"
    worlds = {}
    for style in ("per_question", "sel"):
        for obfuscate in (False, True):
            options = ImportOptions(world="s", style=style, obfuscate=obfuscate)
            worlds[f"{style}{'+obfuscate' if obfuscate else ''}"] = import_world(
                "spider", database, SPIDER / "dev.json", options
            )
    return worlds


@pytest.mark.spider
@spider
@pytest.mark.parametrize("kind", ["per_question", "sel", "per_question+obfuscate", "sel+obfuscate"])
@pytest.mark.slow
def test_no_spider_description_contains_sql_or_hidden_names(spider_worlds: dict[str, ImportedWorld], kind: str) -> None:
    world = spider_worlds[kind]
    print(f"\n{kind}: {len(world.functions)} functions")
    assert len(world.functions) > 50 and sql_problems(world) == []
    if kind.endswith("+obfuscate"):
        assert name_problems(world, world.databases) == []


@pytest.mark.spider
@spider
def test_no_hr_1_train_description_contains_sql(tmp_path: Path) -> None:
    rows = [line.rstrip("\n").split("\t") for line in (SPIDER / "train_gold_hr_1.sql").read_text().splitlines()]
    items = [{"db_id": db, "question": f"hr_1 train query {i}", "query": sql} for i, (sql, db) in enumerate(rows)]
    questions = tmp_path / "hr_1.json"
    questions.write_text(json.dumps(items))
    for obfuscate in (False, True):
        world = import_world("spider", SPIDER / "database", questions, ImportOptions(obfuscate=obfuscate))
        assert world.functions and sql_problems(world) == []
        if obfuscate:
            assert name_problems(world, world.databases) == []


def test_every_sample_query_parses_back_from_its_function() -> None:
    """The descriptions are written from the SQL the functions run; it must stay parseable."""
    for f in import_sample().functions:
        sqlglot.parse_one(f.sql, read="sqlite")


def test_an_obfuscated_slot_world_hides_its_tools_and_tables_and_the_oracle_scores_one(tmp_path: Path) -> None:
    out = tmp_path / "slot"
    args = ["import", "spider", "--db-dir", str(SAMPLE_DIR / "database"), "--questions",
            str(SAMPLE_DIR / "questions.json"), "--out", str(out), "--style", "slot", "--obfuscate"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    pack = load_world(str(out))
    specs = pack.tool_specs()
    tables = list(LIBRARY)
    assert specs and all(s.name.startswith("function_") for s in specs)
    for spec in specs:
        readable = [spec.description, *spec.parameters["properties"]]
        assert not any(name_leaks(text, tables) for text in readable), spec
        assert not any(sql_leaks(text) for text in readable), spec
    assert any("table_" in s.description for s in specs)  # the tables an agent may retrieve, by code
    gold = [c for t in pack.tasks() for c in t.goals[0].gold]
    assert all(c.name.startswith("function_") for c in gold)
    result = runner.invoke(
        app, ["run", "--world", str(out), "--agent", "oracle", "--out", str(tmp_path / "runs"), "--run-id", "r"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "runs" / "r" / "summary.json").read_text())["conversation_success"] == 1.0


async def test_an_obfuscated_slot_refusal_lists_table_codes(tmp_path: Path) -> None:
    from sim.core import ToolCall
    from worlds.sql.describe.slot_obfuscate import ObfuscatedSlotPack

    pack = ObfuscatedSlotPack("s", [], {"library": SAMPLE_DIR / "database" / "library" / "library.sqlite"}, seed=3)
    world = pack.new_world(0)
    retrieve = pack.names.tools["retrieve"]
    argument = pack.names.arguments["retrieve"]["table"]
    wrong = await world.call(ToolCall(id="1", name=retrieve, arguments={argument: "nothing"}))
    assert not wrong.ok and "table_1" in wrong.content["error"] and not name_leaks(wrong.content["error"], ["book"])
    code = pack.names.tables["book"]
    right = await world.call(ToolCall(id="2", name=retrieve, arguments={argument: code}))
    assert right.ok and right.call_id == "2" and "title" in right.content["columns"]
