"""A contains-parameter is text, not a pattern: ``%`` and ``_`` from the agent match themselves (escaped with
``ESCAPE '\\'``), where they used to return every row; folders imported before keep their raw binding."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from sim.core import ToolCall
from worlds.sql.engine.model import SqlFunction, escape_like
from worlds.sql.sample import SAMPLE_DIR, import_sample
from worlds.sql.styles.style_slot_gold import SlotPack

pytestmark = pytest.mark.reliability  # issue 25's suite

DATABASE = SAMPLE_DIR / "database" / "library" / "library.sqlite"


def contains_function() -> SqlFunction:
    world = import_sample()
    return next(f for f in world.functions if any(p.contains for p in f.params))


def titles(function: SqlFunction, text: str, database: Path = DATABASE) -> list[Any]:
    param = next(p for p in function.params if p.contains)
    with sqlite3.connect(database) as conn:
        return conn.execute(function.sql, function.bindings({param.name: text})).fetchall()


def test_wildcards_from_the_agent_match_themselves(tmp_path: Path) -> None:
    function = contains_function()
    assert function.like_escape and "ESCAPE '\\'" in function.sql
    assert titles(function, "Sun") == [("Half of a Yellow Sun",)]
    assert titles(function, "%") == [] and titles(function, "_") == [] and titles(function, "\\") == []
    db = tmp_path / "library.sqlite"
    shutil.copyfile(DATABASE, db)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE book SET title = '100% Sun_shine' WHERE title = 'Kindred'")
    assert titles(function, "0% Sun_", db) == [("100% Sun_shine",)]
    assert titles(function, "0% Sunx", db) == []


def test_a_function_imported_before_the_escape_binds_raw_as_its_sql_expects() -> None:
    function = contains_function()
    old = function.model_copy(update={"sql": function.sql.replace(" ESCAPE '\\'", ""), "like_escape": False})
    assert "ESCAPE" not in old.sql and titles(old, "Sun") == [("Half of a Yellow Sun",)]
    assert len(titles(old, "%")) == 14  # what escaping stops: raw, a '%' matched every book
    stored = SqlFunction.model_validate({k: v for k, v in old.model_dump().items() if k != "like_escape"})
    assert stored.like_escape is False  # a functions.json without the field loads as it was written


def test_escape_like_escapes_the_escape_first() -> None:
    assert escape_like("a%b_c\\d") == "a\\%b\\_c\\\\d"


def test_the_slot_style_filter_contains_is_a_substring() -> None:
    world = SlotPack("s", [], {"library": DATABASE}).new_world(0)

    def call(name: str, **arguments: Any) -> Any:
        return asyncio.run(world.call(ToolCall(id="x", name=name, arguments=arguments)))

    assert call("retrieve", table="book").status == "success"
    assert call("filter", ref="r1", column="title", op="contains", value="%").content["row_count"] == 0
    sun = call("filter", ref="r1", column="title", op="contains", value="Sun").content
    assert [row["title"] for row in sun["rows"]] == ["Half of a Yellow Sun"]
