"""BFCL's multi-turn entries, loaded once per run: frozen data each episode's backends are built from.

An entry names its backend classes (``involved_classes``) and their starting state (``initial_config``); BFCL builds
each class with ``cls()`` and, unless it is stateless, ``_load_scenario(copy of its config, long_context=...)``.
The config is kept as JSON text, so every episode parses its own fresh copy.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from sim.core import ToolSpec
from worlds.bfcl.gorilla_types import tool_spec
from worlds.bfcl.source import BfclError, answer_file, backend_class, data_file, func_doc_file, read_lines
from worlds.bfcl.source import stateless_classes as bfcl_stateless_classes

CLASSES: tuple[str, ...] = (
    "GorillaFileSystem",
    "MathAPI",
    "MessageAPI",
    "TwitterAPI",
    "TicketAPI",
    "TradingBot",
    "TravelAPI",
    "VehicleControlAPI",
)
"""The backend classes of BFCL's multi-turn categories (128 functions)."""


@dataclass(frozen=True)
class Entry:
    """One multi-turn entry as BFCL's files hold it."""

    id: str
    category: str
    classes: tuple[str, ...]
    config: str
    """``initial_config`` as JSON text: parsed afresh for every world."""
    long_context: bool
    turns: tuple[tuple[str, ...], ...]
    """Each turn's user messages (an empty turn: the one where held-out functions come back)."""
    ground_truth: tuple[tuple[str, ...], ...]
    """Each turn's ground-truth calls, as BFCL writes them."""
    missed: Mapping[int, tuple[str, ...]]
    """Turn -> the functions held out until that turn (miss_func)."""


@dataclass(frozen=True)
class Backends:
    """What every world of the pack shares: the classes, their tool specs, and which class owns which tool."""

    classes: Mapping[str, type]
    specs: Mapping[str, tuple[ToolSpec, ...]]
    """Class -> its tools, in BFCL's doc order."""
    owner: Mapping[str, str]
    """Tool name -> the class whose method it runs."""
    signatures: Mapping[str, inspect.Signature]
    """Tool name -> the method's signature (positional gold arguments bind to it; bad arguments are caught by it)."""
    stateless: frozenset[str]

    def build(self, entry: Entry | None) -> dict[str, object]:
        """Fresh instances for one world, exactly as BFCL's executor makes them (every class when no entry)."""
        if entry is None:
            return {name: self._make(name, {}, long_context=False) for name in self.classes}
        config: dict[str, Any] = json.loads(entry.config)
        return {name: self._make(name, config.get(name, {}), entry.long_context) for name in entry.classes}

    def _make(self, name: str, config: dict[str, Any], long_context: bool) -> object:
        instance = self.classes[name]()
        if name not in self.stateless:
            instance._load_scenario(config, long_context=long_context)
        return instance

    def tool_names(self, classes: Sequence[str]) -> list[str]:
        return [spec.name for name in classes for spec in self.specs[name]]


def load_backends() -> Backends:
    classes = {name: backend_class(name) for name in CLASSES}
    specs: dict[str, tuple[ToolSpec, ...]] = {}
    owner: dict[str, str] = {}
    signatures: dict[str, inspect.Signature] = {}
    for name, cls in classes.items():
        specs[name] = tuple(tool_spec(doc) for doc in read_lines(func_doc_file(name)))
        for spec in specs[name]:
            method = getattr(cls, spec.name, None)
            if method is None or spec.name in owner:
                raise BfclError(f"{name}: function doc '{spec.name}' has no method of its own on the class")
            owner[spec.name] = name
            signatures[spec.name] = inspect.signature(method)
            # Unbound: drop ``self`` so positional arguments bind as they do on an instance.
            params = list(signatures[spec.name].parameters.values())[1:]
            signatures[spec.name] = signatures[spec.name].replace(parameters=params)
    return Backends(
        MappingProxyType(classes),
        MappingProxyType(specs),
        MappingProxyType(owner),
        MappingProxyType(signatures),
        bfcl_stateless_classes(),
    )


def load_entries(category: str) -> list[Entry]:
    """A category's entries with their ground truth. Raises BfclError when the files disagree."""
    answers = {str(a["id"]): a["ground_truth"] for a in read_lines(answer_file(category))}
    entries = []
    for raw in read_lines(data_file(category)):
        entry_id = str(raw["id"])
        if entry_id not in answers:
            raise BfclError(f"{category}: entry {entry_id} has no ground truth")
        turns = tuple(tuple(str(m["content"]) for m in turn if m.get("role") == "user") for turn in raw["question"])
        truth = tuple(tuple(str(c) for c in turn) for turn in answers[entry_id])
        if len(truth) != len(turns):
            raise BfclError(f"{entry_id}: {len(turns)} turns but {len(truth)} ground-truth turns")
        unknown = sorted(set(raw["involved_classes"]) - set(CLASSES))
        if unknown:
            raise BfclError(f"{entry_id}: unknown backend class(es) {', '.join(unknown)}")
        missed = {int(t): tuple(names) for t, names in (raw.get("missed_function") or {}).items()}
        entries.append(
            Entry(
                id=entry_id,
                category=category,
                classes=tuple(raw["involved_classes"]),
                config=json.dumps(raw.get("initial_config") or {}),
                long_context="long_context" in category,
                turns=turns,
                ground_truth=truth,
                missed=MappingProxyType(missed),
            )
        )
    return entries
