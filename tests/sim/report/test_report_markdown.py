"""``summary.md``: written beside summary.json by a run and by a re-score, with the same numbers."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from judges.run.run_summary import RunSummary
from sim.cli.app import app
from sim.report.markdown import markdown_summary


def test_a_run_writes_a_markdown_summary_with_the_json_numbers(tmp_path: Path) -> None:
    args = ["run", "--agent", "oracle", "--world", "multidomain", "--limit", "6", "--out", str(tmp_path), "-q"]
    args += ["--user", "scripted:explicit,scripted:underspecified", "--stressors", "outage,outage.impossible"]
    args += ["--run-id", "md"]
    assert CliRunner().invoke(app, args).exit_code == 0
    run = tmp_path / "md"
    summary = json.loads((run / "summary.json").read_text())
    text = (run / "summary.md").read_text()
    assert text.startswith("# squall run md: oracle+outage,outage.impossible\n\nagent: oracle · world: multidomain")
    assert f"| core API accuracy | {100 * summary['core_api_accuracy']:.1f}% |" in text
    assert f"{summary['scored_turns']} goals" in text and "## By user" in text and "| scripted:underspecified |" in text
    assert "| give-up rate |" in text and "95% intervals over 6 tasks: bootstrap over tasks" in text
    (run / "summary.md").unlink()
    assert CliRunner().invoke(app, ["score", str(run)]).exit_code == 0
    assert (run / "summary.md").read_text() == text  # the same verdicts, the same page


def test_pipes_in_values_are_escaped() -> None:
    text = markdown_summary(
        RunSummary.model_validate(
            {"run_id": "r", "per_task": {"a|b": {"trials": 1, "conversation_success": 1.0}}, "episodes": 1}
        )
    )
    assert "| a\\|b | 1 | 100.0% |" in text
