"""Dual control for a user without a model: the task's own user-side acts (``Goal.user_gold``), done when asked.

A scripted user of a world that gives it tools (``UserContext.tools``) does, after each agent reply, the goal's
pending user acts that the reply asks for by their tool's name, in the gold's order, and tells the agent what
its tools answered. An act the agent never asks for is never done: an agent that does not ask (the null agent)
leaves the user's side as it was, and the task's checks on it fail.
"""

from __future__ import annotations

import json
import re

from sim.core import Task, ToolCall, UserAct, UserGoldCall, UserMessage, UserTools

SHOWN_CHARS = 300
"""Of each tool answer, what the user repeats to the agent."""


def asked_for(name: str, agent_message: str) -> bool:
    """The reply names the tool (``toggle_roaming``, or in words: 'toggle roaming')."""
    text = agent_message.lower()
    return re.search(rf"\b{re.escape(name.lower())}\b", text) is not None or name.replace("_", " ").lower() in text


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
        asked = [u for u in pending if asked_for(u.name, agent_message)]
        if not asked:
            return None
        lines: list[str] = []
        for gold in asked:
            pending.remove(gold)
            result = await self._tools.call(ToolCall(id="", name=gold.name, arguments=dict(gold.arguments)))
            shown = result.content if isinstance(result.content, str) else json.dumps(result.content, default=str)
            lines.append(f"{gold.name}: {shown[:SHOWN_CHARS]}")
        return UserMessage(text="I did that. " + " ".join(lines), goal=goal, act=UserAct(kind="answer"))
