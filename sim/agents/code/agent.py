"""``code:MODEL``, a CodeAct-style agent: each step the model writes a Python program that calls the world's tools
as functions, or answers the user.

The program runs in a sandboxed child process (``sandbox``); every tool call it makes is a runtime call, so the
trace, the stressors and the judges see it exactly as a native call, under the same per-turn call budget. What the
program printed, and its traceback or why it was stopped, is the model's next observation. Earlier turns are shown
as the calls their programs made and what those returned (the events are the record; programs are not kept).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from sim.agents.code.sandbox import CodeLimits, ProgramRun, ToolCaller, run_program
from sim.agents.code.signatures import PythonTool, python_tools
from sim.core import AgentRuntime, ChatMessage, Event, ModelRequest, ToolCall

_PROGRAM = re.compile(r"```(?:python|py)[ \t]*\n(.*?)(?:```|\Z)", re.DOTALL | re.IGNORECASE)
_FINAL = re.compile(r"^\s*(?:final answer|answer)\s*:\s*", re.IGNORECASE)

HOW = """\
# How to act

To call tools, reply with your reasoning and then one program in a ```python fenced block. It runs in a fresh
Python process: the functions above are defined in it and call the real tools; the standard library is there,
nothing else (no network, no other processes, no files outside its working folder; at most {timeout:g} s and
{memory} MB). A function returns the tool's result (parsed JSON: dict, list, str or number); a call that fails
raises ToolError, whose .status, .code and .content say why, so your program can catch it and try another way.
Print what you need to see: you are shown what the program printed and any error. Variables do not carry over to
the next program.

When you are done, or need something from the user, reply to the user in plain text, with no code block."""


def system_prompt(instructions: str, tools: Sequence[PythonTool], limits: CodeLimits) -> str:
    listed = "\n\n".join(t.text for t in tools) if tools else "(none: reply to the user)"
    parts = [instructions.strip()] if instructions.strip() else []
    parts.append(f"# Tools (Python functions)\n\n```python\n{listed}\n```")
    parts.append(HOW.format(timeout=limits.timeout_s, memory=limits.memory_mb))
    return "\n\n".join(parts)


def find_program(text: str) -> str | None:
    """The first ```python block of a reply (an unclosed one runs to the end: a reply cut at the output limit)."""
    found = _PROGRAM.search(text)
    return found.group(1).strip() if found and found.group(1).strip() else None


class CodeActAgent:
    """Program, observation, program ... then a reply with no program ends the turn (or the step budget does)."""

    def __init__(
        self,
        name: str,
        model: str,
        max_tokens: int | None = None,
        temperature: float | None = 0.0,
        limits: CodeLimits | None = None,
    ) -> None:
        self.name = name
        self.model = model
        self._max_tokens = max_tokens
        self._temperature = temperature
        self.limits = limits or CodeLimits()

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        specs = runtime.current_tools()
        tools = python_tools(specs)
        messages = transcript(history, system_prompt(runtime.instructions, tools, self.limits), tools)
        while True:  # the episode's step budget (enforced by runtime.llm and runtime.call) ends a runaway loop
            request = ModelRequest(
                role="agent",
                model=self.model,
                messages=tuple(messages),
                max_tokens=self._max_tokens,
                temperature=self._temperature,
                seed=runtime.seed,
            )
            response = await runtime.llm.complete(request)
            text = response.text.strip()
            step = runtime.llm.steps
            messages.append(ChatMessage(role="assistant", content=text or "(empty)"))
            code = find_program(text)
            if code is None:
                return _FINAL.sub("", text)
            note = ""
            if (now := runtime.current_tools()) is not specs:  # a stressor changed the toolkit since the prompt
                specs, tools = now, python_tools(now)
                note = "The tools changed. They are now:\n```python\n" + "\n\n".join(t.text for t in tools) + "\n```\n"
            run = await run_program(code, tools, self.limits, _caller(runtime, step))
            _record(run, runtime, step)
            messages.append(ChatMessage(role="user", content=note + observation(run)))


def _caller(runtime: AgentRuntime, step: int) -> ToolCaller:
    async def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await runtime.call(ToolCall(id="", name=name, arguments=arguments), step=step)
        return {"status": result.status, "content": result.content, "error_code": result.error_code}

    return call


def _record(run: ProgramRun, runtime: AgentRuntime, step: int) -> None:
    """A program stopped at a limit, or stopped by the sandbox, is the agent's fault: recorded for the reports."""
    if run.outcome in ("timeout", "memory", "crashed"):
        runtime.fault("agent", f"agent:program_{run.outcome}", run.output[-300:], step)
    if run.refused:
        runtime.fault("agent", "agent:sandbox_refused", "; ".join(run.refused)[:300], step)


def observation(run: ProgramRun) -> str:
    printed = run.output if run.output.strip() else "(the program printed nothing)"
    return f"Program output:\n```\n{printed}\n```"


def transcript(history: Sequence[Event], system: str, tools: Sequence[PythonTool]) -> list[ChatMessage]:
    """Earlier turns: user and agent messages, and each step's calls as the program that makes them with what they
    returned as its output."""
    py_names = {t.name: t.py_name for t in tools}
    messages = [ChatMessage(role="system", content=system)]
    step_calls: list[tuple[ToolCall, Any]] = []
    key: tuple[int, int] | None = None

    def flush() -> None:
        if step_calls:
            code = "\n".join(f"print({_call_text(c, py_names)})" for c, _ in step_calls)
            shown = "\n".join(_shown(content) for _, content in step_calls)
            messages.append(ChatMessage(role="assistant", content=f"```python\n{code}\n```"))
            messages.append(ChatMessage(role="user", content=f"Program output:\n```\n{shown}\n```"))
            step_calls.clear()

    for ev in history:
        if ev.kind == "tool_result" and ev.call is not None and ev.result is not None:
            if key != (ev.turn, ev.step):
                flush()
                key = (ev.turn, ev.step)
            content = ev.result.content if ev.result.ok else {"error": ev.result.content, "status": ev.result.status}
            step_calls.append((ev.call, content))
        elif ev.kind in ("user_message", "agent_message"):
            flush()
            role = "user" if ev.kind == "user_message" else "assistant"
            messages.append(ChatMessage(role=role, content=ev.content or "(no reply)"))
    flush()
    return messages


def _call_text(call: ToolCall, py_names: dict[str, str]) -> str:
    args = ", ".join(f"{k}={v!r}" if k.isidentifier() else f"**{{{k!r}: {v!r}}}" for k, v in call.arguments.items())
    return f"{py_names.get(call.name, call.name)}({args})"


def _shown(content: Any) -> str:
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, default=str)
