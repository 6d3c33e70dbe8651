"""Reading an API description file (JSON or YAML) as plain JSON values, within squall's input limits."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

from sim.core.bounded_read import DATA_LIMIT, InputFileError, read_text
from sim.core.structured import load_yaml, parse_json
from worlds.simulated.problems import SpecError


def load_document(path: Path) -> Any:
    """The parsed file: JSON when it ends in ``.json`` or starts with ``{``, else YAML. Raises SpecError (one line
    naming the file, and the line for a syntax error)."""
    try:
        text = read_text(path, DATA_LIMIT)
        if path.suffix.lower() == ".json" or text.lstrip().startswith("{"):
            return parse_json(text, path)
        return plain_json(load_yaml(text, path))
    except InputFileError as error:
        raise SpecError([str(error)]) from None


def plain_json(value: Any) -> Any:
    """YAML's extra types as JSON ones: keys as strings (an unquoted ``200:`` is an int), dates as ISO text,
    binary as text, so the spec's values survive being written to operations.json."""
    if isinstance(value, dict):
        return {_key(key): plain_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain_json(item) for item in value]
    if isinstance(value, datetime.date | datetime.datetime):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if isinstance(value, set):  # YAML's !!set
        return sorted(str(item) for item in value)
    return value


def _key(key: Any) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    if isinstance(key, datetime.date | datetime.datetime):
        return key.isoformat()
    return str(key)
