"""What the agent is shown: --system-prompt before the world's instructions, tool schemas trimmed (and what that
saves), while the world keeps the full specs."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sim.agents.agent_view import AgentView, ViewedAgent
from sim.bench.tool_tokens import table
from sim.core import AgentRuntime, Event, ToolSpec
from tests.support.cli import squall

SPEC = ToolSpec(
    name="set_light",
    description="Turn a light on or off and set its brightness, in percent, for the room the user names.",
    parameters={
        "type": "object",
        "properties": {
            "room": {"type": "string", "description": "Which room."},
            "level": {"type": "integer", "description": "0-100", "minimum": 0},
        },
        "required": ["room"],
    },
)


class FakeRuntime:
    instructions = "You control a home."
    turn = 3

    def current_tools(self) -> tuple[ToolSpec, ...]:
        return (SPEC,)


class Recorder:
    name = "rec"

    def __init__(self) -> None:
        self.seen: list[tuple[str, tuple[ToolSpec, ...], int]] = []

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        self.seen.append((runtime.instructions, runtime.current_tools(), runtime.turn))
        return "ok"


def shown(view: AgentView) -> tuple[str, tuple[ToolSpec, ...], int]:
    inner = Recorder()
    agent = ViewedAgent(inner, view)
    runtime: Any = FakeRuntime()
    asyncio.run(agent.respond([], runtime))
    asyncio.run(agent.respond([], runtime))  # the second turn reads the cached trimmed specs
    assert inner.seen[0] == inner.seen[1]
    return inner.seen[0]


def test_system_prompt_and_trimming() -> None:
    instructions, tools, turn = shown(AgentView("Be brief.", 20, True))
    assert instructions == "Be brief.\n\nYou control a home." and turn == 3  # the rest is the real runtime's
    (tool,) = tools
    assert tool.description == "Turn a light on or…" and len(tool.description) <= 20
    assert tool.parameters == {
        "type": "object",
        "properties": {"room": {"type": "string"}, "level": {"type": "integer", "minimum": 0}},
        "required": ["room"],
    }
    assert SPEC.parameters["properties"]["room"]["description"] == "Which room."  # the world's spec is untouched
    _, (untrimmed,), _ = shown(AgentView(tool_descriptions=0))
    assert untrimmed.description == "" and untrimmed.parameters == SPEC.parameters
    assert not AgentView().changes_anything and AgentView().tool(SPEC) is SPEC


def test_trimming_saves_tokens_on_multidomain() -> None:
    rows = {name: (tokens, saved) for name, tokens, saved in table("multidomain")}
    assert rows["whole"][1] == 0 and rows["whole"][0] > 5000
    assert 0.1 < rows["--param-descriptions drop"][1] < rows["--tool-descriptions 0 --param-descriptions drop"][1]


def test_system_prompt_from_a_file_and_a_missing_one(tmp_path: Path) -> None:
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("You are terse.")
    args = ("run", "--agent", "oracle", "--world", "smart_home", "--limit", "1", "--out", str(tmp_path / "o"), "-q")
    code, _, err = squall(*args, "--system-prompt", f"@{prompt}", "--run-id", "p")
    assert code == 0, err
    assert (tmp_path / "o" / "p" / "manifest.json").read_text().count("You are terse.") == 1
    code, _, err = squall(*args, "--system-prompt", f"@{tmp_path / 'missing.txt'}")
    assert code == 2 and "--system-prompt" in err and "missing.txt" in err
