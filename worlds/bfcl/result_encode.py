"""Calls written as a BFCL result file holds them: what ``bfcl generate`` would have stored for a model that made them.

The inverse of ``worlds.bfcl.result_decode``, in either shape: ``fc`` (function calling: a list of ``{name: JSON
arguments}`` per model response) or ``prompting`` (a text ``[name(a=1, b='x')]``). Files are named and laid out as
``bfcl generate`` names them: ``BFCL_v4_<category>_result.json``, one ``{"id", "result"}`` object per line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from worlds.bfcl.result_decode import Call

Style = Literal["fc", "prompting"]
VERSION_PREFIX = "BFCL_v4"


def encode_step(calls: Sequence[Call], style: Style = "fc") -> Any:
    """One model response that made ``calls``."""
    if style == "fc":
        return [{name: json.dumps(arguments)} for name, arguments in calls]
    rendered = (f"{name}({', '.join(f'{k}={v!r}' for k, v in arguments.items())})" for name, arguments in calls)
    return f"[{', '.join(rendered)}]"


def encode_turns(turns: Sequence[Sequence[Sequence[Call]]], style: Style = "fc") -> list[list[Any]]:
    """A multi-turn output: per turn, per model response, its calls."""
    return [[encode_step(step, style) for step in steps] for steps in turns]


def result_file_name(category: str) -> str:
    return f"{VERSION_PREFIX}_{category}_result.json"


def write_result_file(folder: Path, category: str, entries: Iterable[tuple[str, Any]]) -> Path:
    """``folder/BFCL_v4_<category>_result.json`` holding each (id, raw result), one JSON object per line."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / result_file_name(category)
    lines = [json.dumps({"id": entry_id, "result": result}) for entry_id, result in entries]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path
