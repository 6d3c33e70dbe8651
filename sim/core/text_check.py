"""Text that cannot be written: a lone surrogate (``"\\ud800"``) is valid escaped JSON and YAML and a valid Python
string, but no UTF-8 encoder takes it, so it passes validation and then crashes the first write of a trace. Files are
checked for it when they load, with the place named."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError


def encodable(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def unencodable_field(value: Any) -> str | None:
    """The dotted place (``goals.0.text``) of the first key or string under ``value`` that UTF-8 cannot encode, ``""``
    for ``value`` itself; None when every string is writable."""
    stack: list[tuple[tuple[str, ...], Any]] = [((), value)]
    while stack:
        place, item = stack.pop()
        if isinstance(item, str):
            if not encodable(item):
                return ".".join(place)
        elif isinstance(item, dict):
            for key, child in reversed(list(item.items())):
                if isinstance(key, str) and not encodable(key):
                    return ".".join(place)
                stack.append(((*place, str(key)), child))
        elif isinstance(item, list | tuple):
            stack.extend(((*place, str(i)), child) for i, child in reversed(list(enumerate(item))))
    return None


def surrogate_problem(value: Any) -> str | None:
    """One line for an error message, or None: ``field goals.0.text: a lone surrogate ...``."""
    place = unencodable_field(value)
    if place is None:
        return None
    return f"field {place or '(top level)'}: text with a lone surrogate (\\ud800-\\udfff), which no file can hold"


_SURROGATES = re.compile("[\ud800-\udfff]")


def scrub(value: Any) -> Any:
    """``value`` with every lone surrogate in its keys and strings replaced by U+FFFD: what a record that came with
    one (a model's reply can carry an escaped ``\\ud800``) is stored as, so one episode never stops a run."""
    if isinstance(value, str):
        return value if encodable(value) else _SURROGATES.sub("\ufffd", value)
    if isinstance(value, dict):
        return {scrub(k): scrub(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub(v) for v in value]
    return value


def json_line(record: BaseModel) -> str:
    """The record as one JSON line; a record holding a lone surrogate is stored with it replaced (see ``scrub``)."""
    try:
        return record.model_dump_json()
    except PydanticSerializationError:
        return json.dumps(scrub(record.model_dump(mode="json")), ensure_ascii=False, separators=(",", ":"))
