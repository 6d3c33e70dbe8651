"""A person at the keyboard plays the user (``squall chat``).

The human pursues the task's goals in order and says when one is done (``/next``); every message is tagged with
the goal they are on, so the saved episode is judged like any other. Commands: ``/help``, ``/goal`` (the goals,
the current one marked), ``/tools`` (what the agent can call), ``/next``, ``/quit`` (end and save).
End of input (Ctrl-D) is ``/quit``. While the agent answers, ``stop_agent`` (``sim.core.StoppableUser``) lets the
person stop it: the turn's request is cancelled and the conversation ends there, saved and judged.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from sim.core import Task, UserAct, UserContext, UserMessage, UserView

Ask = Callable[[str], Awaitable[str | None]]
"""Prompt the person and return their line; None at end of input."""
Show = Callable[[str], None]

HELP = """commands:
  /goal   the task's goals (the one you are on is marked)
  /next   the current goal is done: move on to the next one
  /tools  the tools the agent can call
  /help   this list
  /quit   end the conversation and save it (Ctrl-D too)
anything else is your message to the agent"""


class HumanUser:
    """Reads the user's side of the conversation from a person; ``tools`` lists what the agent can call."""

    name = "human"

    def __init__(
        self,
        ask: Ask,
        show: Show,
        tools: Callable[[], list[str]] | None = None,
        sent: Callable[[], None] | None = None,
    ) -> None:
        self._ask = ask
        self._show = show
        self._tools = tools or (lambda: [])
        self._sent = sent or (lambda: None)
        self._task: Task | None = None
        self.goal = 0
        self._opened_goal = -1
        self.working = False
        """True from a message sent until the person is asked again: the agent is answering it."""
        self._stop_agent = asyncio.Event()

    @property
    def stop_agent(self) -> asyncio.Event:
        """Set to stop the agent mid-turn (``sim.core.StoppableUser``): Ctrl-C while it works."""
        return self._stop_agent

    async def open(self, task: Task, context: UserContext) -> UserMessage:
        self._task = task
        self._show(self._goals_text())
        self._show("Type your message to the agent; /help lists the commands.")
        message = await self._next_line()
        if message is None:  # quit before saying anything: an empty conversation, still saved
            return UserMessage(text="", goal=0, ends=True)
        return message

    async def reply(self, view: UserView) -> UserMessage | None:
        return await self._next_line()

    async def _next_line(self) -> UserMessage | None:
        assert self._task is not None
        self.working = False
        while True:
            line = await self._ask("you › ")
            if line is None or line.strip() in ("/quit", "/exit", "/q"):
                return None
            text = line.strip()
            if not text:
                continue
            if text == "/help":
                self._show(HELP)
            elif text == "/goal":
                self._show(self._goals_text())
            elif text == "/tools":
                names = self._tools()
                self._show(f"{len(names)} tools: " + ", ".join(names) if names else "no tools")
            elif text == "/next":
                if self.goal + 1 >= len(self._task.goals):
                    self._show("That was the last goal. /quit ends and saves the conversation.")
                else:
                    self.goal += 1
                    self._show(f"Goal {self.goal + 1} of {len(self._task.goals)}: {self._goal(self.goal)}")
            elif text.startswith("/"):
                self._show(f"unknown command {text.split()[0]}; /help lists them")
            else:
                kind = "request" if self.goal != self._opened_goal else "answer"
                self._opened_goal = self.goal
                self.working = True
                self._sent()
                return UserMessage(text=text, goal=self.goal, act=UserAct(kind=kind, styles=["human"]))

    def _goal(self, index: int) -> str:
        assert self._task is not None
        return self._task.goals[index].user.explicit

    def _goals_text(self) -> str:
        assert self._task is not None
        lines = [f"Task {self._task.id}: {len(self._task.goals)} goals, one at a time (/next when one is done)"]
        for i in range(len(self._task.goals)):
            mark = "→" if i == self.goal else ("✓" if i < self.goal else " ")
            lines.append(f" {mark} {i + 1}. {self._goal(i)}")
        return "\n".join(lines)
