"""A user that plays the task's goals in its styles, from the task's own wordings: no model involved."""

from __future__ import annotations

from personas.dialogue import GoalDialogue
from personas.spec import UserSpec
from sim.core import Task, UserContext, UserMessage, UserView


class ScriptedUser:
    """Opens each goal with its styled wording and stays on it while something is owed (``GoalDialogue``).

    The plain ``scripted`` user (no style, no persona named) takes one turn per goal whatever the agent says, as
    squall's user always did. Any other spec (``scripted:explicit`` included) answers one question per goal from
    the persona's facts, or says it knows nothing more."""

    def __init__(self, spec: UserSpec | None = None) -> None:
        self.spec = spec or UserSpec("scripted")
        self.name = self.spec.label
        self._dialogue: GoalDialogue | None = None

    async def open(self, task: Task, context: UserContext) -> UserMessage:
        persona = self.spec.persona_for(task.persona)
        plain = not self.spec.styles and self.spec.persona is None
        self._dialogue = GoalDialogue(
            task, self.spec.styles_for(persona), persona, context.seed, answers_questions=not plain
        )
        return self._dialogue.request(0)

    async def reply(self, view: UserView) -> UserMessage | None:
        assert self._dialogue is not None, "open() must be called first"
        return self._dialogue.next_message(view.agent_message)
