"""Reads task files: ``.jsonl`` (one Task per line) or ``.json`` (a list of Tasks).

Errors say where: ``tasks.jsonl:3: turns.0.gold.1.name: Field required`` (line number) or
``tasks.json[2]: ...`` (list index), one line per problem, so a task author can fix a file in one pass.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sim.core import Task
from sim.core.bounded_read import DATA_LIMIT, InputFileError, read_text
from sim.core.structured import check_depth
from sim.core.text_check import surrogate_problem

SUFFIXES = (".json", ".jsonl")


class TaskFileError(ValueError):
    """A task file that cannot be read, parsed or validated. The message names file, place and field."""


def load_tasks(path: Path) -> list[Task]:
    """All tasks of one file, in file order. Raises TaskFileError on any problem, including duplicate ids."""
    path = Path(path)
    if path.suffix not in SUFFIXES:
        raise TaskFileError(f"{path}: task files end in .json or .jsonl")
    try:
        text = read_text(path, DATA_LIMIT)
    except InputFileError as error:
        raise TaskFileError(str(error)) from None
    items = _jsonl_items(path, text) if path.suffix == ".jsonl" else _json_items(path, text)
    tasks: list[Task] = []
    first_seen: dict[str, str] = {}
    for where, item in items:
        task = _validate(where, item)
        if task.id in first_seen:
            raise TaskFileError(f"{where}: duplicate task id '{task.id}' (first at {first_seen[task.id]})")
        first_seen[task.id] = where
        tasks.append(task)
    if not tasks:
        raise TaskFileError(f"{path}: no tasks")
    return tasks


def _jsonl_items(path: Path, text: str) -> Iterator[tuple[str, Any]]:
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            yield where, json.loads(line)
        except json.JSONDecodeError as error:
            raise TaskFileError(f"{where}: invalid JSON: {error.msg} (column {error.colno})") from error
        except (ValueError, RecursionError) as error:  # an integer too long, nesting too deep
            raise TaskFileError(f"{where}: unreadable JSON: {error or type(error).__name__}") from error


def _json_items(path: Path, text: str) -> Iterator[tuple[str, Any]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise TaskFileError(f"{path}:{error.lineno}: invalid JSON: {error.msg} (column {error.colno})") from error
    except (ValueError, RecursionError) as error:  # an integer too long, nesting too deep
        raise TaskFileError(f"{path}: unreadable JSON: {error or type(error).__name__}") from error
    if not isinstance(data, list):
        raise TaskFileError(f"{path}: a .json task file holds a list of tasks, not a {type(data).__name__}")
    for index, item in enumerate(data):
        yield f"{path}[{index}]", item


def _validate(where: str, item: Any) -> Task:
    try:
        check_depth(item, where)  # else validating, freezing or storing it may run out of stack mid-run
    except InputFileError as error:
        raise TaskFileError(str(error)) from None
    if problem := surrogate_problem(item):  # else it validates, then crashes the run's first write of a trace
        raise TaskFileError(f"{where}: {problem}")
    try:
        return Task.model_validate(item)
    except ValidationError as error:
        lines = [_describe(where, e["loc"], e["msg"]) for e in error.errors(include_url=False)]
        raise TaskFileError("\n".join(lines)) from error


def _describe(where: str, loc: tuple[int | str, ...], msg: str) -> str:
    field = ".".join(str(part) for part in loc)
    return f"{where}: {field}: {msg}" if field else f"{where}: {msg}"
