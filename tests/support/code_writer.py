"""A scripted model for ``code:`` agents over real HTTP: for the user's request it writes the goal's gold calls as a
Python program (each call's result printed), then answers with what the program printed. Oracle-like: a run of it
scores 1.0 wherever the gold is right, so any loss is the harness's."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sim.agents.code.signatures import python_tools
from sim.core import Task, ToolSpec
from tests.support.canned_provider import Canned


def reply(content: str) -> Canned:
    usage = {"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55}
    choice = {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
    return Canned({"id": "x", "object": "chat.completion", "model": "m", "choices": [choice], "usage": usage})


Key = tuple[str, str]
"""(the conversation's first user message, the latest): tasks share wordings, never both."""


def gold_programs(tasks: list[Task], specs: list[ToolSpec]) -> dict[Key, str]:
    """(first request, each goal's wordings) -> the program that makes its gold calls, by the names the prompt shows."""
    py_names = {t.name: t.py_name for t in python_tools(specs)}
    programs: dict[Key, str] = {}
    for task in tasks:
        first = task.goals[0].user.explicit.strip()
        for goal in task.goals:
            lines = []
            for call in goal.gold:
                arguments = json.loads(json.dumps(call.arguments))  # thawed: plain dicts and lists
                args = ", ".join(f"**{{{k!r}: {v!r}}}" for k, v in arguments.items())
                lines.append(f"print({py_names.get(call.name, call.name)}({args}))")
            for wording in (goal.user.explicit, goal.user.coreferential, *goal.user.paraphrases):
                if wording:
                    programs[first, wording.strip()] = "\n".join(lines) or "print('nothing to call')"
    return programs


def gold_program_writer(programs: dict[Key, str]) -> Callable[[dict[str, Any]], Canned]:
    def answer(request: dict[str, Any]) -> Canned:
        assert "tools" not in request  # a code agent's tools are in its prompt, as Python functions
        last = request["messages"][-1]["content"]
        if last.startswith("Program output:"):
            return reply(last.removeprefix("Program output:").strip().strip("`").strip())
        asked = [m["content"].strip() for m in request["messages"] if m["role"] == "user"]
        asked = [text for text in asked if not text.startswith("Program output:")]
        return reply(f"I'll call the tools.\n```python\n{programs[asked[0], asked[-1]]}\n```")

    return answer
