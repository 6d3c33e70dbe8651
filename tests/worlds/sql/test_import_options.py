"""Import options are a value the importer checks: each bad one or bad pair is refused naming its field, and the
command line says it with the option's name."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import squall
from worlds.sql.engine.model import ImportOptionError, ImportOptions


@pytest.mark.parametrize(
    ("given", "field", "says"),
    [
        ({"style": "grid"}, "style", "unknown style 'grid'"),
        ({"augment": -1}, "augment", "not a number of extra tasks"),
        ({"style": "sel", "augment": 2}, "augment", "per_question only, not 'sel'"),
        ({"style": "slot", "only_split": True}, "only_split", "per_question only, not 'slot'"),
        ({"max_rows": 0}, "max_rows", "not a row count"),
        ({"query_time_limit_s": 0.0}, "query_time_limit_s", "not a number of seconds"),
        ({"query_time_limit_s": float("nan")}, "query_time_limit_s", "not a number of seconds"),
        ({"obfuscate": True, "describe_model": "openai-chat:m@http://127.0.0.1:9/v1"}, "describe_model", "obfuscation"),
    ],
)
def test_a_bad_option_is_refused_by_the_importer_naming_its_field(given: dict, field: str, says: str) -> None:
    with pytest.raises(ImportOptionError) as refused:
        ImportOptions(**given)
    assert refused.value.field == field and says in str(refused.value)


def test_the_defaults_are_the_studys_and_valid() -> None:
    options = ImportOptions()
    assert (options.style, options.drop_empty, options.max_rows, options.only_split) == (
        "per_question",
        True,
        100,
        False,
    )


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--style", "sel", "--augment", "1"], "--augment: works with style per_question only, not 'sel'"),
        (["--query-time-limit", "-1"], "--query-time-limit: -1.0 is not a number of seconds"),
        (["--style", "grid"], "--style: unknown style 'grid'"),
    ],
)
def test_the_command_line_names_the_option(tmp_path: Path, argv: list[str], says: str) -> None:
    out = tmp_path / "world"
    code, _, err = squall(
        "import", "spider", "--db-dir", str(tmp_path), "--questions", str(tmp_path / "q.json"), "--out", str(out), *argv
    )
    assert code == 2 and says in " ".join(err.split())
    assert not out.exists()
