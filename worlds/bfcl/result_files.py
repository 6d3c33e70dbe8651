"""BFCL's result and score files, read: what ``bfcl generate`` and ``bfcl evaluate`` write for one model.

A result file is ``BFCL_v<N>_<category>_result.json`` (v3 and v4 alike), one JSON object per line: ``{"id": ...,
"result": ...}`` (``result``: the model's raw output, decoded by ``worlds.bfcl.result_decode``); other keys (latency,
token counts, inference logs) are ignored. A score file is ``BFCL_v<N>_<category>_score.json``: a header line
(``accuracy``, ``correct_count``, ``total_count``), then one line per entry BFCL failed, with its ``error_type`` (at
the top, or inside ``error`` for multi-turn entries); an entry not listed passed.

v3's ``simple`` category and its ids (``simple_3``) are read as v4's ``simple_python`` (``simple_python_3``); every
entry is scored against the installed bfcl-eval's data.

A result file whose last line is cut short (``bfcl generate`` interrupted) is read without it, and says so; any other
line that is not one JSON object with an ``id`` of the file's category is an error naming the file and line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from sim.core.bounded_read import DATA_LIMIT, InputFileError, read_text
from worlds.bfcl.categories import ALIASES, MULTI_TURN, NOT_SUPPORTED, SINGLE_TURN
from worlds.bfcl.source import BfclError

RESULT_NAME = re.compile(r"^BFCL_v(\d+)_(\w+?)_result\.json$")
SCORE_NAME = re.compile(r"^BFCL_v(\d+)_(\w+?)_score\.json$")
SUPPORTED = frozenset((*SINGLE_TURN, *MULTI_TURN))


class BfclResultError(BfclError):
    """A result or score file squall cannot read: the message names the file (and line)."""


@dataclass(frozen=True)
class ResultEntry:
    """One line of a result file."""

    id: str
    category: str
    result: Any
    """The model's raw output as BFCL stored it."""
    where: str
    """``FILE:LINE``, for messages."""


@dataclass(frozen=True)
class ResultFile:
    """A result file's entries, and what reading it left out."""

    path: Path
    category: str
    entries: tuple[ResultEntry, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ScoreFile:
    """BFCL's verdicts of one category: every entry scored passed but those in ``failures`` (id -> error type)."""

    path: Path
    category: str
    total: int
    failures: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


def category_of(path: Path, pattern: re.Pattern[str] = RESULT_NAME) -> str | None:
    """The category a BFCL file's name says (``BFCL_v3_simple_result.json`` -> ``simple_python``); None: not one."""
    match = pattern.match(path.name)
    if match is None:
        return None
    return ALIASES.get(match.group(2), match.group(2))


def find_result_files(path: Path) -> list[Path]:
    """The result files ``path`` names: itself, or every ``BFCL_v*_*_result.json`` under the folder (sorted)."""
    if path.is_file():
        if category_of(path) is None:
            raise BfclResultError(f"{path}: not a BFCL result file (its name is not BFCL_v<N>_<category>_result.json)")
        return [path]
    if not path.is_dir():
        raise BfclResultError(f"{path}: no such file or folder")
    found = sorted(p for p in path.rglob("BFCL_v*_result.json") if category_of(p) is not None)
    if not found:
        raise BfclResultError(f"{path}: no BFCL result files (BFCL_v<N>_<category>_result.json) in this folder")
    return found


def read_result_file(path: Path) -> ResultFile:
    """Every entry of a result file. Raises BfclResultError naming the file and line."""
    category = category_of(path)
    if category is None:
        raise BfclResultError(f"{path}: not a BFCL result file name")
    if category not in SUPPORTED:
        why = NOT_SUPPORTED.get(category, "an unknown BFCL category")
        raise BfclResultError(f"{path}: category {category!r} is not scored by squall: {why}")
    text = _read(path)
    lines = text.split("\n")
    entries: list[ResultEntry] = []
    notes: list[str] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            item = json.loads(line)
        except RecursionError:
            raise BfclResultError(f"{where}: not JSON: nested too deeply") from None
        except json.JSONDecodeError as error:
            if number == len(lines) and not text.endswith("\n"):  # cut short mid-write: the rest is still sound
                notes.append(f"{where}: last line cut short ({error.msg}); read without it")
                break
            raise BfclResultError(f"{where}: not JSON: {error.msg}") from None
        entries.append(_entry(item, category, where, seen))
    if not entries:
        raise BfclResultError(f"{path}: no entries")
    return ResultFile(path, category, tuple(entries), tuple(notes))


def _entry(item: Any, category: str, where: str, seen: set[str]) -> ResultEntry:
    if not isinstance(item, dict):
        raise BfclResultError(f"{where}: not a JSON object")
    if "id" not in item or "result" not in item:
        missing = "id" if "id" not in item else "result"
        raise BfclResultError(f"{where}: field {missing!r} is missing")
    entry_id = item["id"]
    prefix, _, number = entry_id.rpartition("_") if isinstance(entry_id, str) else ("", "", "")
    if ALIASES.get(prefix, prefix) != category:
        raise BfclResultError(f"{where}: field 'id': {entry_id!r} is not an entry of category {category}")
    entry_id = f"{category}_{number}"  # v3's simple_3 is v4's simple_python_3
    if entry_id in seen:
        raise BfclResultError(f"{where}: field 'id': {entry_id} appears twice")
    seen.add(entry_id)
    return ResultEntry(entry_id, category, item["result"], where)


def find_score_files(folder: Path) -> dict[str, Path]:
    """Category -> its score file under ``folder`` (the newest version's, where v3 and v4 both exist)."""
    found: dict[str, tuple[int, Path]] = {}
    for path in sorted(folder.rglob("BFCL_v*_score.json")):
        match = SCORE_NAME.match(path.name)
        if match is None:
            continue
        category = ALIASES.get(match.group(2), match.group(2))
        version = int(match.group(1))
        if category not in found or found[category][0] < version:
            found[category] = (version, path)
    return {category: path for category, (_, path) in found.items()}


def read_score_file(path: Path) -> ScoreFile:
    """BFCL's verdicts from a score file. Raises BfclResultError naming the file and line."""
    category = category_of(path, SCORE_NAME)
    if category is None:
        raise BfclResultError(f"{path}: not a BFCL score file name")
    lines = [line for line in _read(path).splitlines() if line.strip()]
    failures: dict[str, str] = {}
    total = 0
    for number, line in enumerate(lines, start=1):
        try:
            item = json.loads(line)
        except RecursionError:
            raise BfclResultError(f"{path}:{number}: not JSON: nested too deeply") from None
        except json.JSONDecodeError as error:
            raise BfclResultError(f"{path}:{number}: not JSON: {error.msg}") from None
        if not isinstance(item, dict):
            raise BfclResultError(f"{path}:{number}: not a JSON object")
        if number == 1:
            if not isinstance(item.get("total_count"), int):
                raise BfclResultError(f"{path}:1: field 'total_count' is missing (not a BFCL score file header)")
            total = item["total_count"]
            continue
        if "id" not in item:
            raise BfclResultError(f"{path}:{number}: field 'id' is missing")
        failures[str(item["id"])] = _error_type(item)
    return ScoreFile(path, category, total, MappingProxyType(failures))


def _read(path: Path) -> str:
    """A file the user named, read within squall's bound for data files (a FIFO or a device refused)."""
    try:
        return read_text(path, DATA_LIMIT)
    except InputFileError as error:
        raise BfclResultError(str(error)) from None
    except OSError as error:
        raise BfclResultError(f"{path}: cannot read: {error.strerror or error}") from None


def _error_type(item: Mapping[str, Any]) -> str:
    """A failed entry's error type: at the top (single-turn) or inside ``error`` (multi-turn)."""
    error = item.get("error")
    kind = item.get("error_type") or (error.get("error_type") if isinstance(error, dict) else None)
    return str(kind or "failed")
