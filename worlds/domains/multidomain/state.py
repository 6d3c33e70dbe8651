"""One episode's state of the multi-domain world: copy-on-write tables, a frozen clock, deterministic ids,
and what the conversation has looked up so far.

``known`` enforces the lookup edges of the dependency graph: an id the agent has not seen in a lookup's
result (``reveal``) is refused by the tools that act on it (``require_known``), as a real API refuses an id
it never issued to this session. It and the id counters are session facts, not world facts: they are kept
in snapshots but not in the state hash, so a search path and a lookup path that change the same rows end in
the same state.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from worlds.common.errors import ToolError
from worlds.common.tables import BaseData, Row, Tables


class WorldState:
    __slots__ = ("_counters", "known", "now", "tables")

    def __init__(self, base: BaseData, now: str) -> None:
        self.tables = Tables(base)
        self.now = now
        """ISO timestamp of the frozen clock: time does not pass inside an episode."""
        self.known: set[str] = set()
        self._counters: dict[str, int] = {}

    # rows -------------------------------------------------------------------------------------------

    def get(self, table: str, key: str) -> Row | None:
        return self.tables.get(table, key)

    def row(self, table: str, key: str) -> Row:
        """A row that must exist (primitives and tests reading ids they took from the tables)."""
        row = self.tables.get(table, key)
        if row is None:
            raise KeyError(f"{table}/{key}")
        return row

    def rows(self, table: str) -> Iterator[tuple[str, Row]]:
        return self.tables.rows(table)

    def put(self, table: str, key: str, row: Mapping[str, Any]) -> None:
        self.tables.put(table, key, row)

    def update(self, table: str, key: str, **changes: Any) -> Row:
        row = self.tables.get(table, key)
        if row is None:
            raise KeyError(f"{table}/{key}")
        new = {**row, **changes}
        self.tables.put(table, key, new)
        return new

    def delete(self, table: str, key: str) -> None:
        self.tables.delete(table, key)

    def new_id(self, prefix: str) -> str:
        """The next id with this prefix (``order-0001``): the same calls give the same ids in every run."""
        n = self._counters.get(prefix, 0) + 1
        self._counters[prefix] = n
        return f"{prefix}-{n:04d}"

    # lookups ----------------------------------------------------------------------------------------

    def reveal(self, kind: str, *keys: str) -> None:
        self.known.update(f"{kind}:{key}" for key in keys)

    def is_known(self, kind: str, key: str) -> bool:
        return f"{kind}:{key}" in self.known

    def require(self, table: str, key: str, kind: str, how: str) -> Row:
        """The row, if it exists and the conversation has looked it up; else the refusal an API would give."""
        row = self.tables.get(table, key)
        if row is None:
            raise ToolError("not_found", f"unknown_{kind}", f"No {kind} with id '{key}'. Use {how} to find ids.")
        if not self.is_known(kind, key):
            raise ToolError(
                "failed",
                "not_looked_up",
                f"The {kind} '{key}' has not been looked up in this session: use {how} first.",
            )
        return row

    # episode plumbing ---------------------------------------------------------------------------------

    def state_hash(self) -> str:
        return self.tables.state_hash()

    def task_state(self) -> dict[str, Any]:
        """The rows changed from the data (ids known to the session and id counters are not world facts)."""
        return self.tables.changes()

    def snapshot(self) -> dict[str, Any]:
        return {"tables": self.tables.snapshot(), "known": sorted(self.known), "counters": dict(self._counters)}

    def restore(self, snapshot: Mapping[str, Any]) -> None:
        self.tables.restore(snapshot["tables"])
        self.known = set(snapshot["known"])
        self._counters = dict(snapshot["counters"])


def apply_table_edit(state: WorldState, edit: Mapping[str, Any]) -> None:
    """One row changed as an event says (``MultiDomainWorld.apply_change``); ValueError names what is wrong."""
    table, key = edit.get("table"), edit.get("key")
    if not isinstance(table, str) or not isinstance(key, str):
        raise ValueError("an edit names its 'table' and 'key'")
    actions = [a for a in ("set", "row", "delete") if a in edit]
    if len(actions) != 1:
        raise ValueError("an edit does exactly one of 'set', 'row' or 'delete'")
    if actions[0] == "row":
        if state.get(table, key) is not None:
            raise ValueError(f"{table}/{key} exists already")
        state.put(table, key, dict(edit["row"]))
        return
    row = state.get(table, key)
    if row is None:
        raise ValueError(f"no row {table}/{key}")
    if actions[0] == "delete":
        state.delete(table, key)
        return
    changes = dict(edit["set"])
    unknown = sorted(set(changes) - set(row))
    if unknown:
        raise ValueError(f"{table}/{key} has no field(s) {', '.join(unknown)}")
    state.update(table, key, **changes)
