"""A user that plays the task's goals in its styles, from the task's own wordings: no model involved."""

from __future__ import annotations

from personas.dialogue import GoalDialogue
from personas.spec import UserSpec
from personas.user_acts import ScriptedUserActs
from sim.core import Task, UserContext, UserMessage, UserView


class ScriptedUser:
    """Opens each goal with its styled wording and stays on it while something is owed (``GoalDialogue``).

    The plain ``scripted`` user (no style, no persona named) takes one turn per goal whatever the agent says, as
    squall's user always did. Any other spec (``scripted:explicit`` included) answers one question per goal from
    the persona's facts, or says it knows nothing more.

    In a world that gives the user tools, it does the goal's user-side acts (``Goal.user_gold``) the agent asks
    for, by name, and reports what its tools showed, staying on the goal while it does (``personas.user_acts``)."""

    def __init__(self, spec: UserSpec | None = None) -> None:
        self.spec = spec or UserSpec("scripted")
        self.name = self.spec.label
        self._dialogue: GoalDialogue | None = None
        self._acts: ScriptedUserActs | None = None

    async def open(self, task: Task, context: UserContext) -> UserMessage:
        persona = self.spec.persona_for(task.persona)
        plain = not self.spec.styles and self.spec.persona is None
        self._dialogue = GoalDialogue(
            task, self.spec.styles_for(persona), persona, context.seed, answers_questions=not plain
        )
        self._acts = ScriptedUserActs(task, context.tools) if context.tools is not None else None
        return self._dialogue.request(0)

    async def reply(self, view: UserView) -> UserMessage | None:
        assert self._dialogue is not None, "open() must be called first"
        goal = self._dialogue.progress.goal if self._dialogue.progress is not None else 0
        if self._acts is not None and (done := await self._acts.act(goal, view.agent_message)) is not None:
            return done  # dual control: it did on its own tools what the agent asked, and says what they showed
        return self._dialogue.next_message(view.agent_message)
