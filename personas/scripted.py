"""A user that plays the task's turns in order, as written."""

from __future__ import annotations

from typing import Literal

from sim.core import Task, UserView

Rendering = Literal["explicit", "coreferential"]


class ScriptedUser:
    """Plays turn i's intent after the agent's reply to turn i-1; stops after the last turn.

    ``rendering="coreferential"`` uses each later turn's coreferential wording where the task has one,
    so the agent must carry entities across turns.
    """

    name = "scripted"

    def __init__(self, rendering: Rendering = "explicit") -> None:
        self.rendering = rendering
        self._task: Task | None = None

    async def open(self, task: Task) -> str:
        self._task = task
        return self._say(0)

    async def reply(self, view: UserView) -> str | None:
        assert self._task is not None, "open() must be called first"
        nxt = view.turn + 1
        return self._say(nxt) if nxt < len(self._task.turns) else None

    def _say(self, turn: int) -> str:
        assert self._task is not None
        intent = self._task.turns[turn].user
        if self.rendering == "coreferential" and turn > 0 and intent.coreferential:
            return intent.coreferential
        return intent.explicit
