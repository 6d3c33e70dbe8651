"""Input tokens the tool schemas cost per agent request, whole and trimmed (``--tool-descriptions``,
``--param-descriptions drop``): ``python -m sim.bench.tool_tokens [WORLD ...]``.

Counts the ``tools`` JSON a native agent sends every step (as ``sim.llm.transports.openai_chat`` encodes it) with
the o200k tokenizer; a provider's own count of the same request differs by a few tokens of framing."""

from __future__ import annotations

import json
import sys

from sim.agents.agent_view import AgentView
from sim.core import ToolSpec
from sim.llm.tokens import count_tokens

VIEWS = (
    ("whole", AgentView()),
    ("--param-descriptions drop", AgentView(drop_param_descriptions=True)),
    ("--tool-descriptions 80", AgentView(tool_descriptions=80)),
    ("--tool-descriptions 80 --param-descriptions drop", AgentView(tool_descriptions=80, drop_param_descriptions=True)),
    ("--tool-descriptions 0 --param-descriptions drop", AgentView(tool_descriptions=0, drop_param_descriptions=True)),
)


def tools_tokens(tools: list[ToolSpec], view: AgentView) -> int:
    encoded = json.dumps([view.tool(t).to_openai() for t in tools], ensure_ascii=False, separators=(",", ":"))
    return count_tokens(encoded)


def table(world: str) -> list[tuple[str, int, float]]:
    """(view, tokens, share saved) per view, for the world's whole toolset."""
    from worlds.registry import load_world

    tools = load_world(world).tool_specs()
    whole = tools_tokens(tools, VIEWS[0][1])
    return [(name, n, 1 - n / whole) for name, view in VIEWS for n in [tools_tokens(tools, view)]]


def main(argv: list[str]) -> None:
    for world in argv or ["multidomain"]:
        print(f"{world}: tool schemas per request")
        for name, tokens, saved in table(world):
            print(f"  {name:<50} {tokens:>7,} tokens  {saved:>6.1%} saved")


if __name__ == "__main__":
    main(sys.argv[1:])
