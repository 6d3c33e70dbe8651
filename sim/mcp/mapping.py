"""squall's tool values in MCP's shapes: what an outside agent lists and what a call answers it.

Only what the agent would observe in-process crosses: a tool's name, documentation and schema (plus the world's
read-only flag as ``readOnlyHint``); a result's payload and whether it failed. Never the harness's side of a call
(its recorded id, scenarios fired, raw results, state, gold).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import mcp_types as types

from sim.core import ToolResult, ToolSpec
from sim.core.frozen import thaw


def mcp_tool(spec: ToolSpec) -> types.Tool:
    """One tool as ``tools/list`` shows it."""
    return types.Tool(
        name=spec.name,
        description=spec.description,
        input_schema=thaw(spec.parameters),
        annotations=types.ToolAnnotations(read_only_hint=spec.read_only),
    )


def mcp_tools(specs: Sequence[ToolSpec]) -> types.ListToolsResult:
    """A whole toolkit, never to be cached by the client: stressors change it per goal and after calls."""
    return types.ListToolsResult(tools=[mcp_tool(s) for s in specs], ttl_ms=0, cache_scope="private")


def result_text(content: Any) -> str:
    """A result's payload as text, as the in-process agents show it to their model (``sim.agents.history``)."""
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)


def mcp_result(result: ToolResult) -> types.CallToolResult:
    """What a call answers: the payload as text, and as structured content when it is a JSON object (what
    pydantic-ai hands its model); ``isError`` for every status but success."""
    return types.CallToolResult(
        content=[types.TextContent(text=result_text(result.content))],
        structured_content=result.content if isinstance(result.content, dict) else None,
        is_error=not result.ok,
    )


def refusal(message: str) -> types.CallToolResult:
    """A call the server refused (the turn's step limit): an error the agent's model can read and act on."""
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)
