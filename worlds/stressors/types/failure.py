"""System failures: cryptic infrastructure errors with codes and trace ids.

Real backends fail in ways that explain nothing to the user ('ERR 0x8004 upstream_reset trace=3f9c…'). The
agent should retry where a retry is sensible, and otherwise say plainly what did not happen and what the
user can do. Errors are drawn from seeded variants (per row, or a built-in list), so the same seed gives the
same text. ``tools: ["*"]`` targets every tool (the 10%-noise setting of ARE/Gaia2).

Params:
- ``variants``: ``[{"status", "code", "message"}]``; ``{trace}`` (seeded hex), ``{ms}``, ``{tool}`` and
  ``{region}`` in a message are filled in per call. Default: ``BUILTIN``.
- ``transient`` (int): only the first N attempts of the same call (tool and arguments) can fail, so a
  retry gets through.
- ``executed`` (bool): the world runs the call and the error replaces its answer (a gateway timeout after
  the commit), so a blind retry repeats the action.
- ``rate`` / the row's ``probability``: a seeded coin per targeted call.
"""

from __future__ import annotations

import json
from typing import Any, cast, get_args

from sim.core import CallContext, CallNext, CallOutcome, Task, ToolCall, ToolResult, failure
from sim.core.tools import ToolStatus
from worlds.stressors.scenario import ScenarioStressor
from worlds.stressors.types.limitation import attach_reference

WILDCARD = "*"
BUILTIN: tuple[dict[str, str], ...] = (
    {"status": "unavailable", "code": "upstream_reset", "message": "ERR 0x8004 upstream_reset trace={trace}"},
    {"status": "timeout", "code": "gateway_timeout", "message": "504 Gateway Time-out after {ms} ms (req {trace})"},
    {"status": "failed", "code": "internal_error", "message": "500 InternalServerError: unexpected EOF [{trace}]"},
    {
        "status": "unavailable",
        "code": "no_healthy_upstream",
        "message": "no healthy upstream ({region}) x-request-id={trace}",
    },
)
REGIONS = ("eu-west-1", "eu-central-1", "us-east-1", "uk-south")


class Failure(ScenarioStressor):
    """Answers targeted calls with a seeded infrastructure error instead of (or after) the world's answer."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.any_tool = WILDCARD in self.tools
        self.attempts: dict[str, int] = {}

    def targets(self, call: ToolCall) -> bool:
        """As the base, with ``*`` matching every tool."""
        if not (self.any_tool or call.name in self.tools):
            return False
        return self.probability >= 1 or self.rng.random() < self.probability

    def _transient_spent(self, call: ToolCall) -> bool:
        """Counts this attempt; true once the same call has been tried more than ``transient`` times."""
        limit = self.params.get("transient")
        if limit is None or not (self.any_tool or call.name in self.tools):
            return False
        key = call.name + json.dumps(call.arguments, sort_keys=True, default=str)
        self.attempts[key] = self.attempts.get(key, 0) + 1
        return self.attempts[key] > int(limit)

    def error(self, call: ToolCall) -> ToolResult:
        variants: list[dict[str, str]] = list(self.params.get("variants") or BUILTIN)
        variant = variants[self.rng.randrange(len(variants))]
        fill = {
            "trace": f"{self.rng.getrandbits(64):016x}",
            "ms": str(self.rng.randrange(5000, 30001, 500)),
            "tool": call.name,
            "region": self.rng.choice(REGIONS),
        }
        message = variant["message"].format_map(fill)
        status = variant.get("status", "unavailable")
        if status not in get_args(ToolStatus) or status == "success":
            raise ValueError(f"{self.name}: variant status '{status}' is not an error status")
        return failure(call, cast(ToolStatus, status), variant.get("code", "system_error"), message)

    def on_task(self, task: Task) -> Task:
        affected = [any(self.any_tool or c.name in self.tools for path in t.paths() for c in path) for t in task.goals]
        return attach_reference(task, affected, self.scenario)

    async def on_call(self, call: ToolCall, ctx: CallContext, next: CallNext) -> CallOutcome:
        if self._transient_spent(call) or not self.targets(call):
            return await next(call)
        if self.params.get("executed"):  # the world acts; its answer is lost on the way back
            return (await next(call, fired=self.name)).replaced(self.error(call))
        return CallOutcome.answered(self.error(call), self.name)


STRESSOR = Failure
