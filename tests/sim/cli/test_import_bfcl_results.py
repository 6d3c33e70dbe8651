"""``squall import bfcl-results`` at the command line: a run per category, the table it prints, and bad input refused
with one line and nothing written. (Agreement with BFCL's checker: ``tests/sim/run/test_bfcl_results_agreement.py``.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("bfcl_eval")

from sim.cli.app import run_cli
from sim.cli.import_bfcl_results import model_of
from worlds.bfcl.result_encode import write_result_file

GOLD_0 = "[calculate_triangle_area(base=10, height=5, unit='units')]"
"""simple_python_0's gold call, as a prompting model writes it."""


def _results(folder: Path) -> Path:
    rows = [("simple_python_0", GOLD_0), ("simple_python_1", []), ("simple_python_2", "[not a call")]
    write_result_file(folder, "simple_python", rows)
    return folder


def test_results_become_a_run_scored_by_squalls_judges(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = _results(tmp_path / "my-model")
    assert run_cli(["import", "bfcl-results", str(results), "--out", str(tmp_path / "runs")]) == 0
    printed = capsys.readouterr().out
    assert "simple_python                    3    33.3%        -  no BFCL score file\n" in printed, printed
    episodes = [json.loads(line) for line in (tmp_path / "runs/simple_python/episodes.jsonl").read_text().splitlines()]
    assert sorted(e["agent"] for e in episodes) == ["replay:my-model"] * 3
    undecodable = next(e for e in episodes if e["task_id"] == "simple_python_2")
    assert [ev["code"] for ev in undecodable["events"] if ev["kind"] == "error"] == ["agent:parse_error:bad_arguments"]


def test_the_model_is_named_by_bfcls_folder_above_its_groups(tmp_path: Path) -> None:
    grouped = tmp_path / "result" / "my-model" / "non_live"
    _results(grouped)
    assert model_of(grouped / "BFCL_v4_simple_python_result.json") == "my-model"
    assert model_of(grouped) == model_of(grouped.parent) == "my-model"


def test_bad_input_is_one_line_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = _results(tmp_path / "m")
    (results / "BFCL_v4_multiple_result.json").write_text(json.dumps({"id": "multiple_99999", "result": []}) + "\n")
    assert run_cli(["import", "bfcl-results", str(results), "--out", str(tmp_path / "runs")]) == 2
    error = capsys.readouterr().err
    assert "BFCL_v4_multiple_result.json:1: field 'id': multiple_99999 is not an entry of BFCL's multiple data" in error
    assert not (tmp_path / "runs").exists()


def test_an_existing_run_folder_is_refused_before_any_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "runs/simple_python").mkdir(parents=True)
    assert run_cli(["import", "bfcl-results", str(_results(tmp_path / "m")), "--out", str(tmp_path / "runs")]) == 2
    assert "runs/simple_python already exists" in capsys.readouterr().err


def test_a_replay_agent_cannot_run_from_its_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["run", "--world", "bfcl:simple", "--limit", "1", "--agent", "replay:m", "--out", str(tmp_path), "-q"]
    assert run_cli(argv) == 2
    assert "plays recorded outputs" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())
