"""SEL and SLOT import styles on the shipped SQL sample: counts with reasons, chains that reproduce the SQL,
the oracle through `squall import --style` and `squall run`, refusals of bad names, and no way to write."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sim.cli.app import app
from sim.core import ToolCall
from tests.support.sql_chains import check_chains
from worlds.registry import load_world
from worlds.sql.engine.world import SqlPack
from worlds.sql.ingest.importer import ImportOptions
from worlds.sql.sample import SAMPLE_DIR, import_sample
from worlds.sql.styles.style_slot import SlotWorld
from worlds.sql.styles.style_slot_gold import SlotPack

DATABASE = SAMPLE_DIR / "database" / "library" / "library.sqlite"
SHAPE_REJECTS = {"shape:condition": 1, "shape:set_operation": 3, "shape:subquery": 4}
runner = CliRunner()


def import_cli(tmp_path: Path, style: str) -> Path:
    out = tmp_path / style
    args = ["import", "spider", "--db-dir", str(SAMPLE_DIR / "database"), "--questions"]
    result = runner.invoke(app, [*args, str(SAMPLE_DIR / "questions.json"), "--out", str(out), "--style", style])
    assert result.exit_code == 0, result.output
    assert f"{style} style" in result.output
    return out


@pytest.mark.parametrize(
    ("style", "kept", "style_rejects"),
    [
        ("sel", 11, {"sel:comparison_on_text": 1, "sel:operator": 1}),
        ("slot", 13, {}),
    ],
)  # fmt: skip
def test_sample_counts_per_style_with_reasons(style: str, kept: int, style_rejects: dict[str, int]) -> None:
    world = import_sample(ImportOptions(world="s", style=style))
    assert world.report.kept == kept == len(world.tasks)
    assert world.report.rejected_by_reason == dict(sorted((SHAPE_REJECTS | style_rejects).items()))
    assert all(r.detail for r in world.report.rejections)
    assert all(f"style:{style}" in t.tags for t in world.tasks)


@pytest.mark.parametrize("style", ["sel", "slot"])
def test_every_kept_chain_reproduces_the_sql_and_the_oracle_scores_one(tmp_path: Path, style: str) -> None:
    folder = import_cli(tmp_path, style)
    pack = load_world(str(folder))
    assert isinstance(pack, SlotPack if style == "slot" else SqlPack)
    assert check_chains(pack, {"library": folder / "databases" / "library.sqlite"}) >= 6
    result = runner.invoke(app, ["run", "--world", str(folder), "--agent", "oracle", "--out", str(tmp_path / "runs"),
                                 "--run-id", "r"])  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "runs" / "r" / "summary.json").read_text())
    assert summary["conversation_success"] == 1.0


def test_sel_tools_are_getters_and_selectors_per_table() -> None:
    world = import_sample(ImportOptions(world="s", style="sel"))
    names = {f.name for f in world.functions}
    assert {"get_book_title", "list_book_keys", "select_book_by_genre", "select_book_by_pages_above"} <= names
    assert {"select_book_by_pages_below", "intersect_keys", "count_keys"} <= names
    assert "select_book_by_genre_above" not in names  # comparisons only on numeric columns
    used = Counter(call.name for task in world.tasks for call in task.goals[0].gold)
    assert used["intersect_keys"] >= 1


def slot_world() -> tuple[SlotPack, SlotWorld]:
    pack = SlotPack("s", [], {"library": DATABASE})
    return pack, pack.new_world(0)


def call(world: SlotWorld, name: str, **arguments: Any) -> Any:
    return asyncio.run(world.call(ToolCall(id="x", name=name, arguments=arguments)))


def test_slot_refuses_bad_names_with_a_clear_error() -> None:
    _, world = slot_world()
    assert call(world, "retrieve", table="books").error_code == "unknown_table"
    assert "book" in call(world, "retrieve", table="books").content["error"]
    assert call(world, "filter", ref="r1", column="title", op="=", value="x").error_code == "unknown_ref"
    assert call(world, "retrieve", table="book").status == "success"
    bad_column = call(world, "filter", ref="r1", column='title" OR 1=1 --', op="=", value="x")
    assert bad_column.error_code == "unknown_column" and "columns: book_id" in bad_column.content["error"]
    bad_op = call(world, "filter", ref="r1", column="title", op="LIKE", value="x")
    assert bad_op.status == "invalid_arguments" and "contains" in bad_op.content["error"]
    # The argument checker is not the only guard: execute itself checks operators and functions.
    with pytest.raises(ValueError, match="operator"):
        world.execute("filter", {"ref": "r1", "column": "title", "op": "; DELETE", "value": 1})
    with pytest.raises(ValueError, match="function"):
        world.execute("aggregate", {"ref": "r1", "function": "group_concat", "column": "title"})
    assert call(world, "aggregate", ref="r1", function="sum", column="*").error_code == "unknown_column"
    assert call(world, "group", ref="r1", columns=["genre"]).status == "success"
    assert call(world, "sort", ref="r2", column="genre").error_code == "grouped_result"


def test_slot_values_are_bound_and_nothing_can_be_written() -> None:
    before = DATABASE.read_bytes()
    pack, world = slot_world()
    call(world, "retrieve", table="book")
    hostile = call(world, "filter", ref="r1", column="title", op="=", value="x'; DROP TABLE book; --")
    assert hostile.status == "success" and hostile.content["row_count"] == 0
    with pytest.raises(ValueError, match=r"not authorized|readonly|read-only"):
        pack.runtime.run(world.last(), "DELETE FROM book")
    assert DATABASE.read_bytes() == before


def test_slot_state_is_per_episode_and_snapshots_restore() -> None:
    pack, world = slot_world()
    empty = world.state_hash()
    call(world, "retrieve", table="book")
    shot = world.snapshot()
    call(world, "filter", ref="r1", column="pages", op=">", value=400)
    assert world.state_hash() != empty and set(world.refs) == {"r1", "r2"}
    assert pack.new_world(0).state_hash() == empty  # a fresh episode starts with no labels
    changed = world.state_hash()
    world.restore(shot)
    assert set(world.refs) == {"r1"}
    assert call(world, "filter", ref="r1", column="pages", op=">", value=400).content["ref"] == "r2"
    assert world.state_hash() == changed
    assert json.loads(json.dumps(world.snapshot())) == world.snapshot()


def test_styles_refuse_augment_and_unknown_style(tmp_path: Path) -> None:
    args = ["import", "spider", "--db-dir", str(SAMPLE_DIR / "database"), "--questions",
            str(SAMPLE_DIR / "questions.json"), "--out", str(tmp_path / "w")]  # fmt: skip
    bad = runner.invoke(app, [*args, "--style", "rest_v9"])
    assert bad.exit_code == 2 and "unknown style" in bad.output + (bad.stderr if bad.stderr_bytes else "")
    aug = runner.invoke(app, [*args, "--style", "slot", "--augment", "1"])
    assert aug.exit_code == 2 and not (tmp_path / "w").exists()
