"""SEL and SLOT styles on the real Spider sample (../shared/data/spider): kept/rejected counts with reasons, every
kept chain replayed on the loaded world reproduces the SQL, and the oracle scores 1.0. Skips when absent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sim.cli.app import app
from tests.support.paths import SPIDER
from tests.support.sql_chains import check_chains
from worlds.registry import load_world
from worlds.sql.engine.world import SqlPack
from worlds.sql.styles.style_slot_gold import SlotPack

runner = CliRunner()

pytestmark = [
    pytest.mark.spider,
    pytest.mark.skipif(not (SPIDER / "dev.json").is_file(), reason=f"Spider sample not found at {SPIDER}"),
]


# Shares of the questions the quality filters keep (447 of 493: 44 empty results and 2 over 100 rows dropped).
@pytest.mark.parametrize(("style", "least_share"), [("sel", 0.5), ("slot", 0.6)])
@pytest.mark.slow
def test_spider_style_import_replay_and_oracle(tmp_path: Path, style: str, least_share: float) -> None:
    folder = tmp_path / style
    args = ["import", "spider", "--db-dir", str(SPIDER / "database"), "--questions", str(SPIDER / "dev.json")]
    result = runner.invoke(app, [*args, "--out", str(folder), "--style", style])
    assert result.exit_code == 0, result.output
    report = json.loads((folder / "import_report.json").read_text())
    eligible = report["questions"] - report["filtered"]["empty_result"] - report["filtered"]["over_max_rows"]
    assert report["kept"] >= least_share * eligible and report["kept"] + report["rejected"] == report["questions"]
    assert sum(report["rejected_by_reason"].values()) == report["rejected"]
    assert not any(r.endswith(":mismatch") for r in report["rejected_by_reason"]), report["rejected_by_reason"]
    pack = load_world(str(folder))
    assert isinstance(pack, SlotPack if style == "slot" else SqlPack)
    databases = {p.stem: p for p in (folder / "databases").glob("*.sqlite")}
    assert check_chains(pack, databases) == report["kept"]
    run = runner.invoke(app, ["run", "--world", str(folder), "--agent", "oracle", "--out", str(tmp_path / "runs"),
                              "--run-id", "r"])  # fmt: skip
    assert run.exit_code == 0, run.output
    assert json.loads((tmp_path / "runs" / "r" / "summary.json").read_text())["conversation_success"] == 1.0
