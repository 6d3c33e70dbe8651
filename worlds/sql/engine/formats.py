"""Readers for the official text-to-SQL formats.

Spider: ``dev.json`` is a list of ``{"db_id", "question", "query", ...}``; databases live at
``<db-dir>/<db_id>/<db_id>.sqlite``. BIRD: ``dev.json`` is a list of ``{"db_id", "question", "SQL",
"evidence", ...}`` with the same database layout. Errors name the file, the item and the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from sim.core.bounded_read import DATA_LIMIT, InputFileError
from sim.core.files import is_file_name
from sim.core.structured import load_json

SourceFormat = Literal["spider", "bird"]
FORMATS: tuple[SourceFormat, ...] = ("spider", "bird")
_SQL_FIELD: dict[SourceFormat, str] = {"spider": "query", "bird": "SQL"}


class FormatError(ValueError):
    """Input that does not follow the format; the message says where."""


@dataclass(frozen=True)
class Question:
    index: int
    db_id: str
    question: str
    sql: str
    evidence: str = ""


def read_questions(path: Path, source: SourceFormat) -> list[Question]:
    """Every question of a Spider/BIRD question file, in file order."""
    try:
        data: Any = load_json(path, DATA_LIMIT)  # a regular file, at most DATA_LIMIT bytes of UTF-8 JSON
    except InputFileError as error:
        raise FormatError(str(error)) from None
    if not isinstance(data, list):
        raise FormatError(f"{path}: a {source} question file holds a list, not a {type(data).__name__}")
    sql_field = _SQL_FIELD[source]
    questions: list[Question] = []
    for index, item in enumerate(data):
        where = f"{path}[{index}]"
        if not isinstance(item, dict):
            raise FormatError(f"{where}: expected an object, got a {type(item).__name__}")
        fields = {name: item.get(name) for name in ("db_id", "question", sql_field)}
        for name, value in fields.items():
            if not isinstance(value, str) or not value.strip():
                raise FormatError(f"{where}: field '{name}' must be a non-empty string")
        if not is_file_name(fields["db_id"]):  # it names a folder and a file: never a path out of them
            raise FormatError(
                f"{where}: field 'db_id': {str(fields['db_id'])[:80]!r} is not a database name (letters, digits, "
                "'.', '_', '-'; no path)"
            )
        evidence = item.get("evidence", "")
        if not isinstance(evidence, str):
            raise FormatError(f"{where}: field 'evidence' must be a string")
        questions.append(
            Question(index, str(fields["db_id"]), str(fields["question"]).strip(), str(fields[sql_field]), evidence)
        )
    if not questions:
        raise FormatError(f"{path}: no questions")
    return questions


def database_path(db_dir: Path, db_id: str) -> Path:
    """``<db-dir>/<db_id>/<db_id>.sqlite`` (the layout of both releases)."""
    return Path(db_dir) / db_id / f"{db_id}.sqlite"


def check_databases(db_dir: Path, questions: list[Question], questions_file: Path) -> dict[str, Path]:
    """db_id -> SQLite file for every database the questions name; an error names the first missing one."""
    if not Path(db_dir).is_dir():
        raise FormatError(f"{db_dir}: no such database folder")
    paths: dict[str, Path] = {}
    for question in questions:
        if question.db_id in paths:
            continue
        path = database_path(db_dir, question.db_id)
        if not path.is_file():
            raise FormatError(
                f"{questions_file}[{question.index}]: field 'db_id': database '{question.db_id}' has no file {path}"
            )
        paths[question.db_id] = path
    return paths
