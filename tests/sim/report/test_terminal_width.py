"""The terminal report is quiet and fits 80 columns: the per-task table only for few tasks or with --tasks, and a
table too wide for the console split into parts rather than its cells cut to "scrip…"."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from judges.common.summary_view import Section
from judges.run.run_summary import RunSummary
from sim.report.terminal import FEW_TASKS, column_groups, render, render_sections
from tests.support.cli import invoke


def console80() -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, width=80, force_terminal=False, color_system=None), buf


def summary_with_tasks(n: int) -> RunSummary:
    per_task = {f"task-{i:03d}": {"conversation_success": 1.0, "trials": 1} for i in range(n)}
    return RunSummary.model_validate({"run_id": "r", "episodes": n, "scored_episodes": n, "per_task": per_task})


def test_the_per_task_table_shows_for_few_tasks_or_when_asked() -> None:
    for n, asked, shown in ((FEW_TASKS, None, True), (FEW_TASKS + 1, None, False), (40, True, True), (3, False, False)):
        console, buf = console80()
        render(summary_with_tasks(n), console, asked)
        out = buf.getvalue()
        assert ("task-000" in out) is shown, (n, asked)
        assert ("--tasks shows it" in out) is (not shown and asked is None), (n, asked)  # said when left out by default


def test_a_wide_table_is_split_not_cut() -> None:
    columns = ("user", "goals", "goal acc.", "retention [95% CI]", "success", "turns/goal", "asked", "faults")
    row = ("scripted:coreferential", "30", "100.0%", "1.000 [1.000, 1.000]", "100.0%", "1.00", "—", "0")
    groups = column_groups(columns, [row], 80)
    assert len(groups) == 2 and all(g[0] == 0 for g in groups)
    assert sorted({i for g in groups for i in g}) == list(range(len(columns)))
    console, buf = console80()
    render_sections([Section.of("users", "by user", columns, [row])], console)
    out = buf.getvalue()
    assert "…" not in out and out.count("scripted:coreferential") == 2
    assert max(len(line) for line in out.splitlines()) <= 80


def test_report_of_a_run_with_three_users_fits_80_columns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    users = "scripted:explicit,scripted:coreferential,scripted:terse"
    code, out = invoke("run", "--agent", "naive", "--world", "smart_home", "--limit", "2", "--user", users,
                       "--out", str(tmp_path), "--run-id", "u", "-q")  # fmt: skip
    assert code == 0, out
    code, out = invoke("report", str(tmp_path / "u"), "--no-html")
    assert code == 0 and "…" not in out and "scripted:coreferential" in out
    assert max(len(line) for line in out.splitlines()) <= 80
    assert json.loads((tmp_path / "u" / "summary.json").read_text())["episodes"] == 6


def test_the_headline_is_one_table_at_80_columns_each_value_beside_its_interval_and_denominator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stressed run's headline at 80 columns: one table (not parts that set values and intervals apart), numbers
    never wrapped, F1's precision and recall on rows of their own with their own denominators and intervals."""
    monkeypatch.setenv("COLUMNS", "80")
    code, out = invoke("run", "--agent", "naive", "--world", "multidomain", "--limit", "8", "--stressors",
                       "outage,drift", "--out", str(tmp_path), "--run-id", "h")  # fmt: skip
    assert code == 0, out
    assert "headline (1/" not in out and "P / R" not in out
    assert max(len(line) for line in out.splitlines()) <= 80
    summary = json.loads((tmp_path / "h" / "summary.json").read_text())
    _, made, gold = summary["call_f1"]["counts"]["intent"]
    rows = {cells[0]: cells[1:] for line in out.splitlines() if (cells := [c.strip() for c in line.split("│")[1:-1]])}
    assert rows["core API accuracy"][0] == f"{100 * summary['core_api_accuracy']:.1f}%"
    assert (
        rows["core API accuracy"][1].startswith("[")
        and rows["core API accuracy"][2] == f"{summary['scored_turns']} goals"
    )
    assert rows["intent precision"][2] == f"{made} calls made" and rows["intent recall"][2] == f"{gold} gold calls"
    assert rows["intent precision"][1].startswith("[") and rows["intent F1"][1] == ""
    said = " ".join(out.split())
    assert "not shown, nothing here for them to judge" in said and "BFCL multi-turn accuracy" in said  # named once
    assert "BFCL multi-turn accuracy" not in rows and "n/a" not in rows["core API accuracy"]
    (collateral,) = [v for k, v in rows.items() if k.startswith("episodes with")]  # its name may wrap at a word
    assert collateral[0] == str(summary["collateral_damage_episodes"])
