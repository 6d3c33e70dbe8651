"""A judge's hand-labelled set (one JSON object a line), read and checked the same way for every judge that has one:
each row an object, its text fields strings, its ``id`` used once; each problem named by file, line and field."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from sim.core.bounded_read import DATA_LIMIT, InputFileError, read_text
from sim.core.structured import parse_json


class LabelsError(ValueError):
    """The labelled set is malformed; the message names the file, line and field."""


def labelled_rows(
    path: Path, text_fields: Sequence[str], check: Callable[[str, dict[str, Any]], None]
) -> list[dict[str, Any]]:
    """Every row, checked: an object, its text fields strings, then the judge's own ``check(file:line, row)`` of its
    label and other fields (raising ``LabelsError``), then its ``id`` unused before."""
    try:
        lines = read_text(path, DATA_LIMIT).splitlines()
        rows = [(number, parse_json(line, f"{path}:{number}")) for number, line in enumerate(lines, 1) if line.strip()]
    except InputFileError as exc:
        raise LabelsError(str(exc)) from None
    checked: list[dict[str, Any]] = []
    seen: set[str] = set()
    for number, row in rows:
        where = f"{path}:{number}"
        if not isinstance(row, dict):
            raise LabelsError(f"{where}: expected an object")
        for field in ("id", *text_fields):
            if not isinstance(row.get(field), str):
                raise LabelsError(f"{where}: field '{field}' must be a string")
        check(where, row)
        if row["id"] in seen:
            raise LabelsError(f"{where}: field 'id': {row['id']!r} is used twice")
        seen.add(row["id"])
        checked.append(row)
    return checked
