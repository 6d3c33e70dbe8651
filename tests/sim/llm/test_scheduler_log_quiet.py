"""A run's scheduler decisions (limit_cut, pacing...) go to RUN_DIR/scheduler.jsonl and never to the terminal, where
they printed over the progress bar and into `squall chat` (issue 23)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from sim.config.run_config import RunConfig


def test_scheduler_decisions_go_to_the_file_not_the_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)  # as on a terminal, where they used to be echoed
    scheduler = RunConfig(agent="oracle").build_scheduler(tmp_path / "scheduler.jsonl")
    scheduler.log.event("limit_cut", endpoint="e", limit=2, limit_before=4)
    scheduler.log.event("pacing", endpoint="e", admitted=10, rate_limited=0)
    scheduler.log.close()
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""
    lines = [json.loads(x) for x in (tmp_path / "scheduler.jsonl").read_text().splitlines()]
    assert [x["event"] for x in lines] == ["limit_cut", "pacing"]
