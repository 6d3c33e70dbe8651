"""Informational notices: a successful result carries advisory text, often naming a companion function.

Real APIs attach such notes ('values are from the nearest station', 'a price changed since you added it').
The result itself stays intact; the notice is one more field. Where the row sets ``required_followup``, the
notice asks for a call the user's intent now needs (the active weather warnings, the updated delivery
details): the gold gains that companion call, as a core call right after the targeted one, so an agent that
reads past the notice loses the goal.

Params: ``text`` (the notice), ``field`` (default ``notice``), ``required_followup`` (optional
``{"name": tool, "arguments": {...}}`` whose string values ``"$arg"`` copy the targeted call's argument).
A required follow-up only makes sense at probability 1: the gold cannot know whether a coin fired.
"""

from __future__ import annotations

from typing import Any

from sim.core import CallContext, CallNext, CallOutcome, GoldCall, Task, ToolCall
from worlds.stressors.scenario import ScenarioStressor


def render_arguments(template: dict[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """A template's arguments with ``"$name"`` values taken from ``arguments``; a missing one is left out."""
    rendered: dict[str, Any] = {}
    for key, value in template.items():
        if isinstance(value, str) and value.startswith("$"):
            if value[1:] in arguments:
                rendered[key] = arguments[value[1:]]
        else:
            rendered[key] = value
    return rendered


def with_field(content: Any, field: str, value: Any) -> Any:
    """A copy of a result payload with one more field; a payload that is not an object is wrapped."""
    if isinstance(content, dict):
        return {**content, field: value}
    return {"result": content, field: value}


class Notice(ScenarioStressor):
    """Adds an advisory field to successful results of the targeted tools."""

    def followup(self, call: GoldCall | ToolCall) -> GoldCall | None:
        spec = self.params.get("required_followup")
        if not spec:
            return None
        arguments = render_arguments(dict(spec.get("arguments", {})), dict(call.arguments))
        return GoldCall(name=str(spec["name"]), arguments=arguments, role="core")

    def on_task(self, task: Task) -> Task:
        if not self.params.get("required_followup"):
            return task
        goals = []
        for goal in task.goals:
            paths = [self._with_followups(path) for path in goal.paths()]
            if paths == goal.paths():
                goals.append(goal)
            else:
                goals.append(goal.model_copy(update={"gold": paths[0], "alternatives": paths[1:]}))
        return task.model_copy(update={"goals": goals})

    def _with_followups(self, path: list[GoldCall]) -> list[GoldCall]:
        """After each targeted call, its companion, unless the path already makes that call later on."""
        out: list[GoldCall] = []
        for i, call in enumerate(path):
            out.append(call)
            if call.name not in self.tools:
                continue
            companion = self.followup(call)
            later = path[i + 1 :]
            if companion is not None and not any(
                c.name == companion.name and c.arguments == companion.arguments for c in later
            ):
                out.append(companion)
        return out

    async def on_call(self, call: ToolCall, ctx: CallContext, next: CallNext) -> CallOutcome:
        outcome = await next(call)
        result = outcome.result
        if not result.ok or not self.targets(call):
            return outcome
        content = with_field(result.content, str(self.params.get("field", "notice")), str(self.params["text"]))
        return outcome.replaced(result.model_copy(update={"content": content}), self.name)


STRESSOR = Notice
