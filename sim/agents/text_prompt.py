"""What a text-protocol agent reads: the system prompt, observations and parse-error feedback.

Two protocols: ``react`` (Thought / Action / Action Input, then Final Answer; taught here) and ``tags`` (the
reference study's ``<API_CALL>`` JSON and ``<End of Turn>``; taught by ``tag_protocol``). The format taught is one
``text_parse`` reads best; the parser accepts either protocol, and sloppier forms, whatever the prompt.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from types import MappingProxyType
from typing import Any, Literal

from sim.agents import tag_protocol
from sim.agents.text_parse import ParseError
from sim.core.tools import ToolResult, ToolSpec

FORMAT = """\
To use a tool, write exactly these three lines and then stop:
Thought: <your reasoning about what to do next>
Action: <the tool name>
Action Input: <the arguments as one JSON object; {} if there are none>

The tool's result then comes back to you as:
Observation: <the result as JSON>

When you are done, need something from the user, or cannot go on, write:
Thought: <your reasoning>
Final Answer: <your reply to the user>

Rules:
- One Action per reply. Never write an Observation yourself.
- Action is exactly one tool name from the list.
- Action Input is valid JSON: double-quoted keys and strings, true/false/null."""

_NO_TOOLS = "No tools are available in this conversation: always reply with Final Answer."
_HINTS = MappingProxyType(
    {
        "unknown_tool": "Use one of the tool names listed below, spelled exactly.",
        "bad_arguments": 'Action Input must be one JSON object with double-quoted keys: {"key": "value", "n": 3}.',
        "no_action": "Every reply must end with either an Action and its Action Input, or a Final Answer.",
        "empty": "Every reply must end with either an Action and its Action Input, or a Final Answer.",
        "empty_answer": "Write your reply to the user after 'Final Answer:'.",
    }
)
_MAX_LISTED_TOOLS = 40  # worlds with tool search can offer hundreds; the feedback stays short


ToolStyle = Literal["schema", "signature"]
TextProtocol = Literal["react", "tags"]


def render_system_prompt(
    instructions: str, tools: Sequence[ToolSpec], style: ToolStyle = "schema", protocol: TextProtocol = "react"
) -> str:
    """Domain instructions, then the tools, then the protocol's format.

    ``schema`` shows each tool's full JSON schema; ``signature`` a one-line Python-like signature, about a
    third of the tokens, for small-context models (SmolLM2 has 4k).
    """
    parts = [instructions.strip()] if instructions.strip() else []
    if tools:
        listed = render_tools(tools, style)
        heading = "# APIs\n\nYou can call these APIs:" if protocol == "tags" else "# Tools\n\nYou can use these tools:"
        parts.append(f"{heading}\n\n{listed}")
        parts.append(f"# Format\n\n{tag_protocol.FORMAT if protocol == 'tags' else FORMAT}")
    elif protocol == "tags":
        parts.append(f"# Format\n\n{tag_protocol.NO_TOOLS}")
    else:
        parts.append(f"# Format\n\n{_NO_TOOLS}\nFinal Answer: <your reply to the user>")
    return "\n\n".join(parts)


def render_tools(tools: Sequence[ToolSpec], style: ToolStyle = "schema") -> str:
    """The tool list a prompt shows: full JSON schemas, or one-line signatures."""
    render = _render_tool if style == "schema" else _render_signature
    return ("\n\n" if style == "schema" else "\n").join(render(tool) for tool in tools)


def render_observation(result: ToolResult, max_chars: int | None = None, protocol: TextProtocol = "react") -> str:
    """``Observation: <compact JSON>`` (tags: ``<API_RESULT>...</API_RESULT>``). Text content is shown as is;
    failures always say they failed.

    A failure whose payload does not already carry an "error" key is wrapped as
    ``{"error": <payload>, "status": ...}`` so the model cannot mistake it for data.
    """
    content: Any = result.content
    if not result.ok and not (isinstance(content, dict) and "error" in content):
        error = (result.error_code or result.status) if content is None else content
        content = {"error": error, "status": result.status}
        if result.error_code:
            content["code"] = result.error_code
    elif result.ok and content is None:
        content = {"status": "success"}
    body = content if isinstance(content, str) else _compact(content)
    if max_chars is not None and len(body) > max_chars:
        body = f"{body[:max_chars]}... [truncated {len(body) - max_chars} characters]"
    return tag_protocol.render_result(body) if protocol == "tags" else f"Observation: {body}"


def render_parse_error(err: ParseError, tool_names: Collection[str], protocol: TextProtocol = "react") -> str:
    """Feedback for a reply the parser could not use: what was wrong, then the expected format."""
    names = list(tool_names)
    if protocol == "tags":
        return _render_tags_parse_error(err, names)
    lines = [f"Observation: your last reply could not be used. {err.message}", _HINTS.get(err.code, "")]
    if names:
        lines.append(f"Tools: {_listed(names)}.")
        lines.append(
            "Reply again in exactly this format:\n"
            "Thought: <your reasoning>\n"
            "Action: <one tool name>\n"
            'Action Input: {"argument": "value"}\n'
            "or, to reply to the user:\n"
            "Final Answer: <your reply>"
        )
    else:
        lines.append(f"{_NO_TOOLS}\nFinal Answer: <your reply>")
    return "\n".join(line for line in lines if line)


def _render_tags_parse_error(err: ParseError, names: list[str]) -> str:
    lines = [f"Your last reply could not be used. {err.message}", tag_protocol.HINTS.get(err.code, "")]
    if names:
        lines.append(f"APIs: {_listed(names)}.")
        lines.append(tag_protocol.RETRY)
    else:
        lines.append(tag_protocol.NO_TOOLS)
    return "\n".join(line for line in lines if line)


def _listed(names: list[str]) -> str:
    more = f" (and {len(names) - _MAX_LISTED_TOOLS} more)" if len(names) > _MAX_LISTED_TOOLS else ""
    return ", ".join(names[:_MAX_LISTED_TOOLS]) + more


def _render_tool(tool: ToolSpec) -> str:
    description = tool.description.strip().replace("\n", "\n  ")
    return f"- {tool.name}: {description}\n  Parameters: {_compact(tool.parameters)}"


def _render_signature(tool: ToolSpec) -> str:
    props: dict[str, Any] = tool.parameters.get("properties") or {}
    required = set(tool.parameters.get("required") or [])
    params = []
    for name, spec in props.items():
        kind = _type_hint(spec if isinstance(spec, dict) else {})
        params.append(f"{name}: {kind}" if name in required else f"{name}: {kind} = optional")
    summary = tool.description.strip().split("\n")[0]
    return f"- {tool.name}({', '.join(params)}): {summary}"


def _type_hint(spec: dict[str, Any]) -> str:
    if "enum" in spec:
        return " | ".join(json.dumps(v) for v in spec["enum"])
    kind = str(spec.get("type", "any"))
    if "minimum" in spec and "maximum" in spec:
        return f"{kind} {spec['minimum']}..{spec['maximum']}"
    return kind


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
