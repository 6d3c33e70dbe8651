"""Per-episode world state as copy-on-write tables over frozen base data.

The base (every table's rows, loaded once per pack) is shared by all episodes and never changes; an
episode's ``Tables`` holds only the rows it changed. A new episode costs one empty dict, whatever the size of
the data, which is what lets 10,000 episodes be alive at once. Rows are frozen mappings: a tool changes a
row by putting a new one (``tables.put("devices", id, {**row, "power": True})``).

The state hash is a XOR of per-row digests, kept per table: the base digests are computed once, and a hash
costs the changed rows only. Two episodes whose rows are alike hash alike however they got there.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from typing import Any

from sim.core.frozen import FrozenDict, freeze, thaw
from sim.core.task_state import ABSENT

Row = Mapping[str, Any]


def _digest(table: str, key: str, row: Row) -> int:
    text = json.dumps([table, key, row], sort_keys=True, separators=(",", ":"))
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=16).digest(), "big")


class BaseData:
    """Frozen tables (table -> key -> row), with each row's digest; load once per pack."""

    def __init__(self, tables: Mapping[str, Mapping[str, Row]]) -> None:
        self.tables: dict[str, dict[str, FrozenDict]] = {
            name: {str(key): freeze(row) for key, row in rows.items()} for name, rows in tables.items()
        }
        self.digests: dict[str, dict[str, int]] = {
            name: {key: _digest(name, key, row) for key, row in rows.items()} for name, rows in self.tables.items()
        }
        self.hash = 0
        for rows in self.digests.values():
            for digest in rows.values():
                self.hash ^= digest


class Tables:
    """One episode's view: base rows overlaid with its own changes (``None`` marks a deleted row)."""

    __slots__ = ("_base", "_changed")

    def __init__(self, base: BaseData) -> None:
        self._base = base
        self._changed: dict[str, dict[str, FrozenDict | None]] = {}

    def get(self, table: str, key: str) -> Row | None:
        changed = self._changed.get(table)
        if changed is not None and key in changed:
            return changed[key]
        return self._base.tables[table].get(key)

    def rows(self, table: str) -> Iterator[tuple[str, Row]]:
        """Every live row of ``table``: base rows in their order (changed ones as changed), then new rows."""
        changed = self._changed.get(table, {})
        for key, base_row in self._base.tables[table].items():
            current = changed.get(key, base_row)
            if current is not None:
                yield key, current
        for key, new_row in changed.items():
            if new_row is not None and key not in self._base.tables[table]:
                yield key, new_row

    def put(self, table: str, key: str, row: Row) -> None:
        if table not in self._base.tables:
            raise KeyError(f"no table {table!r}")
        self._changed.setdefault(table, {})[key] = freeze(row)

    def delete(self, table: str, key: str) -> None:
        self._changed.setdefault(table, {})[key] = None

    def state_hash(self) -> str:
        value = self._base.hash
        for table, changed in self._changed.items():
            base_digests = self._base.digests[table]
            for key, row in changed.items():
                if key in base_digests:
                    value ^= base_digests[key]
                if row is not None:
                    value ^= _digest(table, key, row)
        return f"{value:032x}"

    def changes(self) -> dict[str, Any]:
        """What differs from the base, flat (``sim.core.task_state``): ``table/key.field`` -> value for each field
        that differs (every field of a new row), ``table/key`` -> ABSENT for a deleted row. A row changed and
        changed back is not a change: the state judge compares worlds on what they hold, not on how they got there."""
        flat: dict[str, Any] = {}
        for table, rows in self._changed.items():
            base_rows = self._base.tables[table]
            for key, row in rows.items():
                base_row = base_rows.get(key)
                if row is None:
                    if base_row is not None:
                        flat[f"{table}/{key}"] = ABSENT
                    continue
                base_fields: Mapping[str, Any] = base_row if base_row is not None else {}
                for field, value in row.items():
                    if field not in base_fields or base_fields[field] != value:
                        flat[f"{table}/{key}.{field}"] = thaw(value)
                for field in base_fields:
                    if field not in row:
                        flat[f"{table}/{key}.{field}"] = ABSENT
        return flat

    def snapshot(self) -> dict[str, dict[str, Any]]:
        """The changes only, as plain JSON (the base is the pack's, identical for every episode)."""
        return {table: {key: thaw(row) for key, row in rows.items()} for table, rows in self._changed.items()}

    def restore(self, snapshot: Mapping[str, Mapping[str, Any]]) -> None:
        self._changed = {
            table: {key: None if row is None else freeze(row) for key, row in rows.items()}
            for table, rows in snapshot.items()
        }
