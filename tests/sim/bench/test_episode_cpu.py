"""The in-process episode bench plays the plan's episodes and writes their traces without timings."""

from __future__ import annotations

import json
from pathlib import Path

from sim.bench.episode_cpu import main


def test_plays_and_traces_without_timings(tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    assert main(["--episodes", "3", "--trace", str(trace)]) == 0
    results = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    assert [r["episode_id"] for r in results] == ["sh-001#0", "sh-002#0", "sh-003#0"]
    assert all("duration_s" not in r and all("t" not in e for e in r["events"]) for r in results)
    assert any(e["kind"] == "tool_call" for e in results[0]["events"])  # the mock model called a tool
    again = tmp_path / "again.jsonl"
    main(["--episodes", "3", "--trace", str(again)])
    assert again.read_text(encoding="utf-8") == trace.read_text(encoding="utf-8")
