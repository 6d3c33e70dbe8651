"""Copy-on-write tables: episodes share the base, change only their own rows, and hash by content."""

from __future__ import annotations

import pytest

from worlds.common.tables import BaseData, Tables


def _base() -> BaseData:
    return BaseData({"lights": {"a": {"on": False, "tags": ["x"]}, "b": {"on": True, "tags": []}}})


def test_changes_stay_in_their_episode() -> None:
    base = _base()
    one, two = Tables(base), Tables(base)
    one.put("lights", "a", {**(one.get("lights", "a") or {}), "on": True})
    assert one.get("lights", "a") == {"on": True, "tags": ["x"]}
    assert two.get("lights", "a") == {"on": False, "tags": ["x"]}
    with pytest.raises(TypeError):
        one.get("lights", "a")["tags"].append("y")  # type: ignore[index]


def test_hash_depends_on_content_not_on_history() -> None:
    base = _base()
    fresh, back_and_forth = Tables(base), Tables(base)
    back_and_forth.put("lights", "a", {"on": True, "tags": ["x"]})
    assert back_and_forth.state_hash() != fresh.state_hash()
    back_and_forth.put("lights", "a", {"on": False, "tags": ["x"]})
    assert back_and_forth.state_hash() == fresh.state_hash()
    back_and_forth.put("lights", "c", {"on": True, "tags": []})
    back_and_forth.delete("lights", "c")
    assert back_and_forth.state_hash() == fresh.state_hash()


def test_rows_deletes_inserts_snapshot_and_restore() -> None:
    tables = Tables(_base())
    tables.delete("lights", "a")
    tables.put("lights", "c", {"on": True, "tags": ["z"]})
    assert [key for key, _ in tables.rows("lights")] == ["b", "c"]
    snapshot = tables.snapshot()
    digest = tables.state_hash()
    other = Tables(_base())
    other.restore(snapshot)
    assert other.state_hash() == digest and [k for k, _ in other.rows("lights")] == ["b", "c"]
    with pytest.raises(KeyError):
        tables.put("nope", "x", {})
