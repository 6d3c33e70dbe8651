"""The parser with many tool names: the benchmark script runs and agrees with the earlier parser, and what the
speed-up changed (one lookup table per name set, the fuzzy hint only for the error returned) keeps the answers."""

from __future__ import annotations

import subprocess
import sys

from sim.agents.text_calls import lookup_tool, name_table, resolve_tool
from sim.agents.text_parse import Action, ParseError, parse_step
from tests.support.paths import REPO_ROOT as ROOT

NAMES = [f"tool_{i:04d}" for i in range(2000)] + ["Get_Weather", "get_weather_now"]


def test_the_benchmark_runs_and_both_parsers_agree() -> None:
    script = ROOT / "scripts" / "bench_parser.py"
    out = subprocess.run(
        [sys.executable, str(script), "--names", "60", "--patterns", "20", "--repeat", "1"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    assert "same steps: True" in out and "x faster" in out


def test_names_resolve_exactly_by_namespace_and_by_unique_case() -> None:
    names = frozenset(NAMES)
    assert lookup_tool("functions.tool_0007", names) == "tool_0007"
    assert lookup_tool("get_weather", names) == "Get_Weather"
    assert lookup_tool("TOOL_0001()", names) == "tool_0001"
    assert lookup_tool("use the tool_0003 tool", names) is None
    assert lookup_tool("use the tool_0003 tool", names, tokens=True) == "tool_0003"
    assert name_table(names) is name_table(frozenset(NAMES))  # built once per name set


def test_an_unknown_name_gets_its_close_matches_once_in_the_returned_error() -> None:
    step = parse_step("Action: tool_00007\nAction Input: {}", NAMES)
    assert isinstance(step, ParseError) and step.code == "unknown_tool"
    assert step.message.startswith("Unknown tool 'tool_00007'. Did you mean 'tool_0007'")
    quiet = resolve_tool("tool_00007", frozenset(NAMES), hint=False)
    assert isinstance(quiet, ParseError) and quiet.message == "Unknown tool 'tool_00007'."


def test_prose_full_of_unknown_calls_still_finds_the_known_one() -> None:
    prose = "\n".join(f"Perhaps foo_{i}(x) could work." for i in range(300))
    step = parse_step(f"{prose}\ntool_0042(city='Paris')", NAMES)
    assert isinstance(step, Action) and step.name == "tool_0042" and step.arguments == {"city": "Paris"}
