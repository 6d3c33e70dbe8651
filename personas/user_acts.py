"""Dual control for a user without a model: the task's own user-side acts (``Goal.user_gold``), done when asked.

A scripted user of a world that gives it tools (``UserContext.tools``) does, after each agent reply, the goal's
pending user acts that the reply asks for by their tool's name (each as often as it is named), in the gold's order,
and tells the agent what its tools answered. An act the agent never asks for is never done: an agent that does not
ask (the null agent) leaves the user's side as it was, and the task's checks on it fail.
"""

from __future__ import annotations

import json
import re

from sim.core import Task, ToolCall, UserAct, UserGoldCall, UserMessage, UserTools

SHOWN_CHARS = 300
"""Of each tool answer, what the user repeats to the agent."""


def times_asked(name: str, agent_message: str) -> int:
    """How many times the reply names the tool (``reboot_device``, or in words: 'reboot device')."""
    text = agent_message.lower()
    named = len(re.findall(rf"\b{re.escape(name.lower())}\b", text))
    return max(named, len(re.findall(rf"\b{re.escape(name.replace('_', ' ').lower())}\b", text)))


class ScriptedUserActs:
    """The pending user acts of one conversation, goal by goal."""

    def __init__(self, task: Task, tools: UserTools) -> None:
        self._tools = tools
        self._pending: dict[int, list[UserGoldCall]] = {g: list(goal.user_gold) for g, goal in enumerate(task.goals)}

    def pending(self, goal: int) -> bool:
        return bool(self._pending.get(goal))

    async def act(self, goal: int, agent_message: str) -> UserMessage | None:
        """The user's report after doing the acts the reply asks for; None when it asks for none of them."""
        pending = self._pending.get(goal, [])
        asked: list[UserGoldCall] = []
        for gold in pending:  # each act as many times as the reply asks for it (a second reboot is asked again)
            if sum(1 for a in asked if a.name == gold.name) < times_asked(gold.name, agent_message):
                asked.append(gold)
        if not asked:
            return None
        lines: list[str] = []
        for gold in asked:
            pending.remove(gold)
            result = await self._tools.call(ToolCall(id="", name=gold.name, arguments=dict(gold.arguments)))
            shown = result.content if isinstance(result.content, str) else json.dumps(result.content, default=str)
            lines.append(f"{gold.name}: {shown[:SHOWN_CHARS]}")
        return UserMessage(text="I did that. " + " ".join(lines), goal=goal, act=UserAct(kind="answer"))
