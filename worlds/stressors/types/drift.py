"""Schema drift: the API moved on, the documentation the agent reads did not.

Real services ship a new schema version while cached docs, SDKs and prompts still describe the old one. Here the
agent keeps reading the OLD spec (``on_spec`` is the identity), while from goal ``from_goal`` (default 0) the world
side enforces the NEW schema: a call in the new schema is translated back to the world's native call and passed on;
an old-schema call (or anything else the new schema rejects) is refused without reaching the world, with a
validation error that names what the new schema expects, as a real 422 or 410 would. So an agent that reads its
errors recovers; one that keeps retrying the documented schema fails those goals. Gold of the targeted tools in
goals >= ``from_goal`` (every path) is rewritten to the new schema, so replaying it still scores.

Row params: ``op`` and what it needs.
- ``rename_endpoint``: ``new_name``, a tool name the agent was never shown; the old name is "moved".
- ``rename_param``: ``param`` -> ``new_param`` (a semantic equivalent).
- ``type_drift``: ``param`` (integer or boolean) must now be sent as a string: ``'30'``, ``'true'``.
- ``required_swap``: optional ``param`` becomes required; gold gives it its effective ``default``.
- ``default_flip``: optional ``param`` now defaults to ``new_default`` instead of the documented ``default``. Nothing
  is refused: a call that leaves it out gets the new default, and the result says so (``applied_defaults``, as real
  APIs echo effective values); gold that relied on the old default gives it explicitly.
- ``nest_params``: flat ``params`` grouped into one object parameter ``into``.
A row with tools ``["*"]`` names only ``op`` (and optionally ``from_goal``, ``seed``): it picks its tool and the
rest per task (``drift_auto``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from sim.core import CallContext, CallNext, CallOutcome, GoldCall, Task, ToolCall, ToolSpec, failure
from worlds.stressors.scenario import Scenario, ScenarioStressor
from worlds.stressors.types.drift_auto import drifted_goals, plan_for
from worlds.stressors.types.notice import with_field
from worlds.stressors.types.spec_edit import rewrite_paths

OPS = ("rename_endpoint", "rename_param", "type_drift", "required_swap", "default_flip", "nest_params")
NEEDS = {
    "rename_endpoint": ("new_name",),
    "rename_param": ("param", "new_param"),
    "type_drift": ("param", "from"),
    "required_swap": ("param", "default"),
    "default_flip": ("param", "default", "new_default"),
    "nest_params": ("params", "into"),
}
"""The params a row naming its tools must give for each operator (an auto row derives them)."""


class _Refused(Exception):
    """A call the new schema does not accept; the message is what the agent reads."""


class SchemaDrift(ScenarioStressor):
    """The world enforces a new schema for the targeted tools from ``from_goal`` on; the docs stay old."""

    @classmethod
    def affected_goals(cls, task: Task, scenario: Scenario) -> list[int]:
        """The goals from ``from_goal`` on that call a tool the row drifts for this task (an auto row's pick)."""
        return drifted_goals(task, scenario)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.op = str(self.params.get("op"))
        if self.op not in OPS:
            raise ValueError(f"{self.name}: unknown drift op '{self.op}' (one of {', '.join(OPS)})")
        self.auto = "*" in self.tools
        self.row_params = dict(self.params)  # an auto row's own, before a task's pick fills in the rest
        self.moved_told = False
        """A renamed endpoint's 410 has been given in this episode: from then on ``on_tools`` lists the new name."""
        self._moved_spec: tuple[ToolSpec, ToolSpec] | None = None  # (old spec, it under the new name), made once
        if self.auto:
            self._configure(frozenset(), self.params)  # targets nothing until on_task picks a tool
            return
        missing = [k for k in NEEDS[self.op] if k not in self.params]
        if missing:
            raise ValueError(f"{self.name}: drift op '{self.op}' needs {', '.join(missing)}")
        if self.op == "rename_endpoint" and len(self.tools) != 1:
            raise ValueError(f"{self.name}: rename_endpoint targets exactly one tool")
        self._configure(self.tools, self.params)

    def _configure(self, tools: frozenset[str], params: Mapping[str, Any]) -> None:
        self.tools = tools
        self.params = dict(params)
        self.from_goal = int(params.get("from_goal", 0))
        self.new_name = str(params.get("new_name", ""))
        self.param = str(params.get("param", ""))
        self.new_param = str(params.get("new_param", ""))
        self.nested: tuple[str, ...] = tuple(params.get("params", ()))
        self.into = str(params.get("into", ""))
        self.old_name = next(iter(tools), "")

    # what the agent observes -------------------------------------------------------------------------------

    async def on_call(self, call: ToolCall, ctx: CallContext, next: CallNext) -> CallOutcome:
        mine = call.name in self.tools or (self.op == "rename_endpoint" and call.name == self.new_name)
        if not mine or ctx.goal < self.from_goal:
            return await next(call)
        if self.op == "default_flip":
            return await self._flip_default(call, ctx, next)
        try:
            native = self._to_native(call)
        except _Refused as refused:
            status: Literal["not_found", "invalid_arguments"] = (
                "not_found" if self.op == "rename_endpoint" else "invalid_arguments"
            )
            code = "endpoint_moved" if self.op == "rename_endpoint" else "schema_mismatch"
            self.moved_told = self.moved_told or (self.op == "rename_endpoint" and call.name == self.old_name)
            return CallOutcome.answered(failure(call, status, code, str(refused)), self.name)
        return await next(native, fired=self.name)

    def on_tools(self, goal: int, specs: list[ToolSpec]) -> list[ToolSpec]:
        """After the 410 that named it, the new endpoint is listed right after the old one (whose spec it takes)."""
        if not self.moved_told or any(s.name == self.new_name for s in specs):
            return specs
        listed: list[ToolSpec] = []
        for s in specs:
            listed.append(s)
            if s.name == self.old_name:
                listed.append(self._moved(s))
        return listed

    def _moved(self, old: ToolSpec) -> ToolSpec:
        # The same object every time: the runtime hands transports a new toolkit only when one changed.
        if self._moved_spec is None or self._moved_spec[0] is not old:
            self._moved_spec = (old, old.model_copy(update={"name": self.new_name}))
        return self._moved_spec[1]

    def on_replay(self, call: ToolCall, goal: int) -> ToolCall:
        """A replayed gold call (the isolated setup) as the world's own: what ``on_call`` passes on. A flipped
        default needs nothing: the gold gives the value explicitly."""
        mine = call.name in self.tools or (self.op == "rename_endpoint" and call.name == self.new_name)
        if not mine or goal < self.from_goal or self.op == "default_flip":
            return call
        try:
            return self._to_native(call)
        except _Refused as refused:
            raise ValueError(f"{self.name}: gold {call.name} is not in the new schema: {refused}") from refused

    async def _flip_default(self, call: ToolCall, ctx: CallContext, next: CallNext) -> CallOutcome:
        """An explicit value passes as it is; a left-out one gets the NEW default, echoed in the result."""
        if self.param in call.arguments:
            return await next(call)
        new_default = self.params["new_default"]
        with_default = call.model_copy(update={"arguments": {**call.arguments, self.param: new_default}})
        outcome = await next(with_default, fired=self.name)
        result = outcome.result
        content = result.content
        applied = content.get("applied_defaults") if isinstance(content, dict) else None
        applied = {**(applied if isinstance(applied, dict) else {}), self.param: new_default}
        return outcome.replaced(result.model_copy(update={"content": with_field(content, "applied_defaults", applied)}))

    def _to_native(self, call: ToolCall) -> ToolCall:
        """The world's own call for a new-schema call; raises _Refused for anything else."""
        args = dict(call.arguments)
        if self.op == "rename_endpoint":
            if call.name != self.new_name:
                raise _Refused(
                    f"410 Gone: endpoint '{call.name}' has been moved to '{self.new_name}' in API v2 and no longer "
                    f"accepts requests. Call '{self.new_name}' with the same arguments."
                )
            return call.model_copy(update={"name": self.old_name})
        if self.op == "rename_param":
            if self.param in args:
                raise _Refused(
                    f"422 Unprocessable Entity: unknown parameter '{self.param}'; it was renamed to "
                    f"'{self.new_param}' in API v2."
                )
            if self.new_param in args:
                args[self.param] = args.pop(self.new_param)
            elif self.params.get("required", False):
                raise _Refused(f"422 Unprocessable Entity: missing required parameter '{self.new_param}'.")
        elif self.op == "type_drift":
            if self.param in args:
                args[self.param] = self._from_string(args[self.param])
        elif self.op == "required_swap":
            if self.param not in args:
                raise _Refused(
                    f"422 Unprocessable Entity: missing required parameter '{self.param}' (required since API v2)."
                )
        else:  # nest_params
            flat = [p for p in self.nested if p in args]
            if flat:
                raise _Refused(
                    f"422 Unprocessable Entity: top-level parameter(s) {', '.join(map(repr, flat))} are not "
                    f"accepted since API v2; send {', '.join(map(repr, self.nested))} inside the object "
                    f"parameter '{self.into}'."
                )
            group = args.pop(self.into, None)
            if not isinstance(group, dict):
                raise _Refused(
                    f"422 Unprocessable Entity: missing required object parameter '{self.into}' "
                    f"(with {', '.join(map(repr, self.nested))})."
                )
            unknown = sorted(set(group) - set(self.nested))
            if unknown:
                raise _Refused(
                    f"422 Unprocessable Entity: unknown field(s) {', '.join(map(repr, unknown))} in '{self.into}'."
                )
            args.update(group)
        return call.model_copy(update={"arguments": args})

    def _from_string(self, value: Any) -> Any:
        kind = self.params["from"]
        if isinstance(value, str):
            if kind == "boolean" and value in ("true", "false"):
                return value == "true"
            if kind == "integer" and re.fullmatch(r"-?[0-9]+", value):
                return int(value)
        # Raised as made, never kept in a local: an exception held by the frame its traceback holds is a reference
        # cycle that keeps the episode alive until the cyclic collector runs.
        example = "'true' or 'false'" if kind == "boolean" else "'3'"
        raise _Refused(
            f"422 Unprocessable Entity: parameter '{self.param}' must be a string since API v2 "
            f"(e.g. {example}), got {type(value).__name__} {value!r}."
        )

    # what the gold expects ---------------------------------------------------------------------------------

    def on_task(self, task: Task) -> Task:
        if self.auto:
            plan = plan_for(task, self.scenario, self.row_params)
            if plan is None:
                self._configure(frozenset(), self.row_params)  # nothing in this task suits the operator: no drift
                return task
            self._configure(plan.tools, plan.params)
        task = rewrite_paths(
            task, lambda goal, path: path if goal < self.from_goal else [self._to_new(c) for c in path]
        )
        task = self._criteria_to_new(task)
        if self.op not in ("rename_endpoint", "rename_param") or not any(g.free_arguments for g in task.goals):
            return task
        goals = [
            g if i < self.from_goal else g.model_copy(update={"free_arguments": self._free_to_new(g.free_arguments)})
            for i, g in enumerate(task.goals)
        ]
        return task.model_copy(update={"goals": goals})

    def _criteria_to_new(self, task: Task) -> Task:
        """A benchmark's own gold actions (``Task.evaluation["actions"]``: τ²'s, whose ACTION check compares the
        agent's calls with them) in the new schema too, as the gold is: else the oracle's right call, made in the new
        schema, would miss its action. They belong to the task's one goal, so a drift from a later goal leaves them."""
        actions = (task.evaluation or {}).get("actions")
        if self.from_goal > 0 or not isinstance(actions, list):
            return task
        renamed: list[Any] = []
        for action in actions:
            if not (
                isinstance(action, dict) and isinstance(action.get("name"), str) and action.get("name") in self.tools
            ):
                renamed.append(action)
                continue
            arguments = action.get("arguments")
            call = self._to_new(GoldCall(name=str(action["name"]), arguments=dict(arguments or {})))  # type: ignore[arg-type]
            keys = action.get("compare_args")
            if isinstance(keys, list) and self.op == "rename_param":
                keys = [self.new_param if k == self.param else k for k in keys]
            elif isinstance(keys, list) and self.op == "nest_params":
                keys = list(dict.fromkeys(self.into if k in self.nested else k for k in keys))
            new = {**action, "name": call.name, "compare_args": keys}
            renamed.append(new | ({"arguments": call.arguments} if isinstance(arguments, dict) else {}))
        return task.model_copy(update={"evaluation": {**(task.evaluation or {}), "actions": renamed}})

    def _free_to_new(self, free: list[str]) -> list[str]:
        """A goal's free arguments as the new schema names them: a renamed endpoint's or parameter's new name."""
        renamed: list[str] = []
        for entry in free:
            tool, dot, param = entry.partition(".")
            if self.op == "rename_endpoint" and dot and tool == self.old_name:
                renamed.append(f"{self.new_name}.{param}")
            elif self.op == "rename_param" and dot and tool in self.tools and param == self.param:
                renamed.append(f"{tool}.{self.new_param}")
            elif self.op == "rename_param" and not dot and entry == self.param:
                renamed += [entry, *(f"{t}.{self.new_param}" for t in sorted(self.tools))]  # other tools keep it
            else:
                renamed.append(entry)
        return renamed

    def _to_new(self, call: GoldCall) -> GoldCall:
        """The gold call written in the new schema (the inverse of ``_to_native``)."""
        if call.name not in self.tools:
            return call
        args = dict(call.arguments)
        if self.op == "rename_endpoint":
            return call.model_copy(update={"name": self.new_name})
        if self.op == "rename_param" and self.param in args:
            args[self.new_param] = args.pop(self.param)
        elif self.op == "type_drift" and self.param in args:
            value = args[self.param]
            args[self.param] = ("true" if value else "false") if isinstance(value, bool) else str(value)
        elif self.op in ("required_swap", "default_flip"):
            args.setdefault(self.param, self.params["default"])
        elif self.op == "nest_params":
            args[self.into] = {p: args.pop(p) for p in self.nested if p in args}
        return call.model_copy(update={"arguments": args}) if args != call.arguments else call


STRESSOR = SchemaDrift
