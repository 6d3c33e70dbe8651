"""BIRD's column documentation: ``<db>/database_description/<table>.csv`` beside each database file.

Columns of each CSV: ``original_column_name, column_name, column_description, data_format, value_description``.
The readable name becomes the column's label (what descriptions call it); the description and the value
description (what codes mean: "0: no; 1: yes") become its note in function and argument descriptions. Files are
read as UTF-8 (with or without a byte-order mark) or, failing that, Latin-1, as BIRD's own files come.
"""

from __future__ import annotations

import csv
import io
from dataclasses import replace
from pathlib import Path

from worlds.sql.engine.execute import Column

DESCRIPTION_DIR = "database_description"
MAX_NOTE = 240
Schema = dict[str, dict[str, Column]]


def with_docs(schema: Schema, database_file: Path) -> Schema:
    """``schema`` with labels and notes from the CSVs beside ``database_file`` (unchanged where there are none)."""
    folder = Path(database_file).parent / DESCRIPTION_DIR
    if not folder.is_dir():
        return schema
    files = {path.stem.lower(): path for path in folder.glob("*.csv")}
    documented: Schema = {}
    for table, columns in schema.items():
        path = files.get(table.lower())
        docs = _read(path) if path is not None else {}
        documented[table] = {key: _document(column, docs.get(key)) for key, column in columns.items()}
    return documented


def _document(column: Column, row: dict[str, str] | None) -> Column:
    if row is None:
        return column
    label = _clean(row.get("column_name", ""))
    description = _clean(row.get("column_description", ""))
    values = _clean(row.get("value_description", ""))
    note = "; ".join(part.rstrip(".") for part in (description, f"values: {values}" if values else "") if part)
    if len(note) > MAX_NOTE:
        note = note[: MAX_NOTE - 3].rstrip() + "..."
    return replace(column, label=label if label.lower() != column.name.lower() else "", description=note)


def _read(path: Path) -> dict[str, dict[str, str]]:
    """original column name (lower-case) -> the CSV row."""
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    rows: dict[str, dict[str, str]] = {}
    for row in csv.DictReader(io.StringIO(text)):
        cleaned = {(k or "").strip().lower(): (v or "") for k, v in row.items()}
        name = cleaned.get("original_column_name", "").strip()
        if name:
            rows[name.lower()] = cleaned
    return rows


def _clean(text: str) -> str:
    return " ".join(text.split())
