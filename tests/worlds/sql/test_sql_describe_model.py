"""Model-written descriptions of SQL functions: kept only when they check out against the code, else offline ones."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from sim.cli.app import app
from sim.core import ModelRequest
from tests.support.mockllm_server import mock_llm_server
from worlds.sql.describe.describe_model import check_description, describe_functions, identifier_tokens, read_schema
from worlds.sql.engine.model import SqlFunction
from worlds.sql.sample import SAMPLE_DIR, import_sample

WORLD = import_sample()
SCHEMAS = {db_id: read_schema(path) for db_id, path in WORLD.databases.items()}
GENRE = next(f for f in WORLD.functions if f.name == "get_book_title_by_genre")
COUNT = next(f for f in WORLD.functions if f.name == "count_book")
GOOD = "Returns the title of every book whose genre equals `genre`."


def _reply_for(request: ModelRequest) -> str:
    prompt = request.messages[0].content or ""
    if "Function: get_book_title_by_genre\n" in prompt:
        return GOOD
    if "Function: get_author_name_by_country\n" in prompt:
        return "Returns author names."  # no `country`
    if "Function: get_book_title_by_min_pages\n" in prompt:
        return "Returns book titles with more pages than min_pages, sorted by page_count."  # page_count is made up
    if "Function: count_book\n" in prompt:
        return "Counts the books. " * 20  # too long
    return ""


async def test_scripted_replies_are_kept_or_rejected_by_reason() -> None:
    functions = [GENRE, COUNT, *(f for f in WORLD.functions if f.name.endswith(("by_country", "by_min_pages")))]
    asked: list[ModelRequest] = []

    async def complete(request: ModelRequest) -> str | None:
        asked.append(request)
        return _reply_for(request)

    out, report = await describe_functions(complete, "mock", functions, SCHEMAS)
    assert len(asked) == report.asked == 4
    assert report.kept == 1 and dict(report.rejected_by_reason) == {
        "missing_parameter": 1,
        "invented_identifier": 1,
        "too_long": 1,
    }
    assert out[0].describe() == GOOD and out[1:] == functions[1:]  # the rejected keep the offline text
    prompt = asked[0].messages[0].content or ""  # the SQL shows parameter names, the schema the table's columns
    assert "genre = :genre" in prompt and "- genre (string)" in prompt and "book(" in prompt


async def test_request_failures_keep_the_offline_text() -> None:
    async def complete(request: ModelRequest) -> str | None:
        return None

    out, report = await describe_functions(complete, "mock", [GENRE], SCHEMAS)
    assert out == [GENRE] and report.request_failures == 1 and report.kept == 0


def test_check_rules() -> None:
    schema = SCHEMAS[GENRE.db_id]
    assert check_description(GOOD, GENRE, schema) is None
    assert check_description("Lists titles for a GENRE.", GENRE, schema) is None  # names are case-insensitive
    assert check_description("Returns matches for genre.", GENRE, schema) == "no_table_or_column"
    assert check_description("Titles of books in `genre` by :author_name.", GENRE, schema) == "invented_identifier"
    assert check_description("Titles of books in genre by author_id.", GENRE, schema) is None  # a real column
    assert check_description("", GENRE, schema) == "empty"
    assert check_description("SELECT title FROM book WHERE genre = `genre`.", GENRE, schema) == "contains_sql"
    assert check_description("The title of a book where the genre is `genre`.", GENRE, schema) == "contains_sql"
    assert check_description("Book titles: title from book, genre matching `genre`.", GENRE, schema) == "contains_sql"
    assert identifier_tokens("uses `x`, :y and z_w but not plain words.") == {"x", "y", "z_w"}
    spaced = SqlFunction(name="f", db_id="d", sql="SELECT n FROM due_loan", summary="s")
    assert check_description("Returns n for each due loan.", spaced, {}) is None  # underscores read as spaces


def _import_args(out: Path, cache: Path) -> list[str]:
    return [
        "import", "spider", "--db-dir", str(SAMPLE_DIR / "database"), "--questions", str(SAMPLE_DIR / "questions.json"),
        "--out", str(out), "--cache-dir", str(cache), "--force",
    ]  # fmt: skip


def test_cli_against_the_mock_server_keeps_checked_descriptions_and_reruns_from_cache(tmp_path: Path) -> None:
    by_user = {
        "Function: get_book_title_by_genre\n": [{"text": GOOD}],
        "Function: get_author_name_by_country\n": [{"text": "Returns author names."}],
    }
    policy = {"kind": "script", "steps": [{"text": "Counts the books. " * 20}], "by_user": by_user}
    out = tmp_path / "world"
    args = _import_args(out, tmp_path / "cache")
    with mock_llm_server({"policy": policy}) as srv:
        model = f"openai-chat:mock@{srv.url}"
        first = CliRunner().invoke(app, [*args, "--describe-model", model])
        assert first.exit_code == 0, first.output
        assert srv.stats()["completions"] == len(WORLD.functions)
        report = json.loads((out / "import_report.json").read_text())["model_descriptions"]
        again = CliRunner().invoke(app, [*args, "--describe-model", model])
        assert again.exit_code == 0, again.output
        assert srv.stats()["completions"] == len(WORLD.functions)  # the re-run was served by the cache
    assert report["asked"] == len(WORLD.functions) and report["kept"] == 1 and report["request_failures"] == 0
    assert report["rejected_by_reason"]["missing_parameter"] >= 1 and report["rejected_by_reason"]["too_long"] >= 1
    assert report["kept"] + report["rejected"] == report["asked"]
    functions = {f["name"]: f for f in json.loads((out / "functions.json").read_text())}
    assert functions["get_book_title_by_genre"]["summary"] == GOOD
    assert functions["count_book"]["summary"] == COUNT.summary
    assert json.loads((out / "import_report.json").read_text())["model_descriptions"] == report


def test_a_bad_describe_model_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "world"
    result = CliRunner().invoke(app, [*_import_args(out, tmp_path / "cache"), "--describe-model", "nope:model"])
    assert result.exit_code == 2 and "--describe-model" in result.output
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".world")]
