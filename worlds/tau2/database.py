"""A τ² domain database: the wheel's tables loaded once per pack, copied per episode only where an episode writes.

A domain's database is a few tables (``flights``, ``users``, ``reservations``...), each a mapping from a record's key
to the record as JSON. ``Tables`` is the frozen base every world of a pack shares; ``Database`` is one episode's view
of it: a read returns the base's record, a write first copies that one record into the episode's own overlay. So
10,000 episodes alive hold the base once and, each, the few records they changed.

Tools keep to the discipline: ``row``/``rows`` for reading (never mutate what they return), ``edit`` for the record
they change, ``insert`` for a new one.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

from sim.core.task_state import ABSENT, changed, flatten

Record = dict[str, Any]
Tables = Mapping[str, Mapping[str, Record]]
"""Table name -> record key -> record: the pack's base data, never written."""


def freeze_tables(data: Mapping[str, Mapping[str, Record]]) -> Tables:
    """The wheel's database as read-only mappings (the records inside are the base's: only ``Database`` copies)."""
    return MappingProxyType({name: MappingProxyType(dict(rows)) for name, rows in data.items()})


class Database:
    """One episode's database: the shared base plus the records this episode wrote."""

    def __init__(self, base: Tables) -> None:
        self._base = base
        self._own: dict[str, dict[str, Record | None]] = {name: {} for name in base}
        """Table -> key -> this episode's copy of the record (None: deleted)."""

    # --- reading ---------------------------------------------------------------------------------------------

    def row(self, table: str, key: str) -> Record | None:
        """The record, or None. Read it; change it only through ``edit``."""
        own = self._own[table]
        if key in own:
            return own[key]
        return self._base[table].get(key)

    def rows(self, table: str) -> Iterator[tuple[str, Record]]:
        """Every record of a table, base order first, then the records this episode added."""
        own = self._own[table]
        base = self._base[table]
        for key, record in base.items():
            mine = own.get(key, record)
            if mine is not None:
                yield key, mine
        for key, added in own.items():
            if key not in base and added is not None:
                yield key, added

    @property
    def tables(self) -> tuple[str, ...]:
        return tuple(self._base)

    def written(self) -> set[tuple[str, str]]:
        """(table, key) of every record this episode wrote (changed, added or deleted)."""
        return {(table, key) for table, own in self._own.items() for key in own}

    def __contains__(self, item: tuple[str, str]) -> bool:
        return self.row(*item) is not None

    # --- writing ---------------------------------------------------------------------------------------------

    def edit(self, table: str, key: str) -> Record:
        """The record, this episode's own copy, to change in place. KeyError when it does not exist."""
        own = self._own[table]
        if key in own:
            record = own[key]
            if record is None:
                raise KeyError(key)
            return record
        found = self._base[table][key]
        mine = copy.deepcopy(found)
        own[key] = mine
        return mine

    def insert(self, table: str, key: str, record: Record) -> None:
        self._own[table][key] = record

    # --- state -----------------------------------------------------------------------------------------------

    def snapshot(self) -> dict[str, dict[str, Record | None]]:
        """The records this episode wrote (JSON-serialisable: the base is the pack's)."""
        return copy.deepcopy(self._own)

    def restore(self, snapshot: Mapping[str, Mapping[str, Record | None]]) -> None:
        self._own = {name: dict(copy.deepcopy(dict(snapshot.get(name, {})))) for name in self._base}

    def changes(self) -> dict[str, Any]:
        """Flat changes from the base (``sim.core.task_state``): ``reservations.HATHAT.status`` and the like, with
        ``ABSENT`` for a field or record that is gone. Only written records are compared."""
        flat: dict[str, Any] = {}
        for table, own in self._own.items():
            base = self._base[table]
            for key, record in own.items():
                old = base.get(key)
                if record == old:
                    continue
                before = flatten({table: {key: old}}) if old is not None else {}
                after = flatten({table: {key: record}}) if record is not None else {}
                flat |= changed(before, after) if record is not None else {p: ABSENT for p in before}
        return flat

    def state_hash(self) -> str:
        text = json.dumps(self.changes(), sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def frozen(self) -> Tables:
        """This database as a new base: the records it wrote, and the base's records it left alone shared, not copied
        (a base is never written: every ``Database`` on it copies a record before changing it)."""
        return freeze_tables({table: dict(self.rows(table)) for table in self._base})

    def whole(self) -> dict[str, dict[str, Record]]:
        """The whole database as plain JSON (tests compare it with another implementation's)."""
        return {table: {key: copy.deepcopy(record) for key, record in self.rows(table)} for table in self._base}
