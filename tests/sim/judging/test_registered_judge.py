"""Adding a judge is its file and one registry line: a judge defined here, registered in one line, runs in a real
run and shows up in summary.json and in the terminal, Markdown and HTML reports, with no other module touched."""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from judges import registry
from judges.common.reduction import EpisodeFacts, Reduction, RunFacts
from judges.common.stats import rate
from judges.common.summary_view import Section, pct
from judges.registry import JudgeEntry
from judges.run.run_summary import RunSummary
from sim.config.run_config import RunConfig
from sim.core import EpisodeResult, Score
from sim.judging.judge_set import judge_names
from sim.report.terminal import render
from sim.run.runner import execute


class ToolCallsSeen:
    """A test-only judge: did the agent call any tool in the episode, and how many calls."""

    name = "tool_calls_seen"

    async def score(self, result: EpisodeResult) -> Score:
        calls = sum(ev.kind == "tool_call" and not ev.replayed for ev in result.events)
        ident = {"episode_id": result.episode_id, "task_id": result.task_id, "trial": result.trial}
        return Score(**ident, judge=self.name, value=float(calls > 0), details={"calls": calls})


class ToolCallsSeenSummary(Reduction[int]):
    judge = "tool_calls_seen"
    label = "episodes with a tool call"

    def __init__(self) -> None:
        self.episodes = self.with_call = self.calls = 0

    def verdict(self, score: Score) -> int | None:
        return None if score.value is None else int(score.details["calls"])

    def add(self, verdict: int, episode: EpisodeFacts) -> None:
        self.episodes += 1
        self.with_call += verdict > 0
        self.calls += verdict

    def result(self, run: RunFacts) -> dict[str, Any]:
        return {
            "tool_calls_seen": rate(self.with_call, self.episodes),
            "tool_calls_seen_episodes": self.episodes,
            "tool_calls_total": self.calls,
        }

    @staticmethod
    def rows(summary: Mapping[str, Any]) -> list[list[str]]:
        n = summary.get("tool_calls_seen_episodes")
        return [["episodes with a tool call", pct(summary.get("tool_calls_seen")), "", f"{n} episodes"]] if n else []

    @staticmethod
    def sections(summary: Mapping[str, Any]) -> list[Section]:
        total = summary.get("tool_calls_total")
        return [Section.of("tool_calls", "tool calls seen", ("measure", "count"), [("agent calls", str(total))])]


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    entry = JudgeEntry("tool_calls_seen", ToolCallsSeen, "plain", ToolCallsSeenSummary)  # the one line
    monkeypatch.setattr(registry, "JUDGES", (*registry.JUDGES, entry))


async def test_a_judge_registered_in_one_line_reaches_summary_and_every_report(
    registered: None, tmp_path: Path
) -> None:
    assert judge_names()[-1] == "tool_calls_seen"
    config = RunConfig.model_validate({"agent": "oracle", "world": "smart_home", "out": tmp_path, "run_id": "r"})
    store, summary = await execute(config)
    run = tmp_path / "r"
    stored = json.loads((run / "summary.json").read_text())
    episodes = stored["episodes"]
    assert stored["tool_calls_seen"] == 1.0 and stored["tool_calls_seen_episodes"] == episodes == 10
    calls = sum(1 for e in store.episodes() for ev in e.events if ev.kind == "tool_call" and not ev.replayed)
    assert stored["tool_calls_total"] == calls > 0
    assert stored["core_api_accuracy"] == 1.0  # the registered judges still there
    assert summary.judged["tool_calls_total"] == calls and json.loads(json.dumps(summary.as_dict())) == stored

    markdown = (run / "summary.md").read_text()
    assert f"| episodes with a tool call | 100.0% |  | {episodes} episodes |" in markdown
    assert "## Tool calls seen" in markdown and f"| agent calls | {calls} |" in markdown
    html = (run / "report.html").read_text()
    assert "<td>episodes with a tool call</td><td class=num>100.0%</td>" in html
    assert "<h2 id=tool_calls>Tool calls seen</h2>" in html
    out = io.StringIO()
    render(RunSummary.model_validate(stored), Console(file=out, width=200))  # the stored summary renders alike
    terminal = out.getvalue()
    assert "episodes with a tool call" in terminal and f"{episodes} episodes" in terminal
    assert "tool calls seen" in terminal and "agent calls" in terminal


async def test_without_the_line_the_judge_is_nowhere(tmp_path: Path) -> None:
    assert "tool_calls_seen" not in judge_names()
    config = RunConfig.model_validate({"agent": "oracle", "world": "smart_home", "out": tmp_path, "run_id": "r"})
    await execute(config)
    assert "tool_calls_seen" not in json.loads((tmp_path / "r" / "summary.json").read_text())
    assert "tool call" not in (tmp_path / "r" / "summary.md").read_text()
