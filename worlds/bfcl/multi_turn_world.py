"""One episode's BFCL multi-turn world: the entry's backend instances (BFCL's own classes), called as BFCL calls them.

A call runs the instance method of the same name with the agent's arguments; what comes back is BFCL's result
string (``str`` as is, a ``dict`` as ``json.dumps``, falling back to ``str``, anything else ``str``; an exception as
``"Error during execution: ..."``), so the agent sees what BFCL's models see and a judge can compare it with
``GoldCall.result``. Statuses say what squall's judges need to know beside it: an unknown function is
``not_found``, arguments that do not fit the method's signature ``invalid_arguments`` (the method never ran), an
exception inside the method ``failed``; every call that returned is ``success``, whatever the backend said in it
(BFCL's backends report refusals as ``{"error": ...}`` results, and BFCL's checker treats them as results).
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from sim.core import ToolCall, ToolResult, ToolSpec
from sim.core.task_state import changed
from worlds.bfcl.multi_turn_entries import Backends, Entry
from worlds.bfcl.multi_turn_state import public_state

INSTRUCTIONS = "You help the user with the functions provided."
"""BFCL gives function-calling models no system prompt of its own; squall's agents start from this line."""


def result_text(value: Any) -> str:
    """A backend's return value as BFCL's executor turns it into text."""
    if type(value) is str:
        return value
    if type(value) is dict:
        try:
            return json.dumps(value)
        except (TypeError, ValueError):  # an object inside: BFCL falls back to str
            return str(value)
    return str(value)


def error_text(error: BaseException) -> str:
    return f"Error during execution: {error}"


class BfclWorld:
    """The instances of one entry (or of every class, for a world built without a task)."""

    def __init__(
        self, name: str, backends: Backends, entry: Entry | None, seed: int = 0, base: Mapping[str, Any] | None = None
    ) -> None:
        """``base``: the entry's initial public state when known (every world of an entry starts alike, so the pack
        computes it once); None: computed from the fresh instances."""
        self.name = name
        self.seed = seed
        self._backends = backends
        self._instances = backends.build(entry)
        classes = list(self._instances)
        self._specs = [spec for cls in classes for spec in backends.specs[cls]]
        self.base: Mapping[str, Any] = public_state(self._instances) if base is None else base

    @property
    def instances(self) -> Mapping[str, object]:
        """The backend instances by class name (read them; calls go through ``call``)."""
        return MappingProxyType(self._instances)

    def specs(self) -> list[ToolSpec]:
        return list(self._specs)

    def instructions(self) -> str:
        return INSTRUCTIONS

    async def call(self, call: ToolCall) -> ToolResult:
        return self.execute(call)

    def execute(self, call: ToolCall) -> ToolResult:
        """The call, run now (backends never wait on anything): what ``call`` answers."""
        owner = self._backends.owner.get(call.name)
        instance = self._instances.get(owner) if owner is not None else None
        if instance is None:  # what BFCL's eval of an unknown name says
            text = error_text(NameError(f"name '{call.name}' is not defined"))
            return ToolResult(call_id=call.id, status="not_found", content=text, error_code="unknown_tool")
        method = getattr(instance, call.name)
        # A copy, as BFCL's eval of a call string makes fresh values: backends keep argument lists in their state
        # (TwitterAPI's mentions) and would otherwise share them with the caller (a task's gold, every episode).
        arguments = copy.deepcopy(call.arguments)
        try:
            self._backends.signatures[call.name].bind(**arguments)
        except TypeError:
            try:  # arguments that do not bind raise before the method's body runs: Python's own message
                method(**arguments)
            except TypeError as error:
                text = error_text(error)
            else:  # pragma: no cover - a call that binds nowhere cannot run
                text = error_text(TypeError("arguments do not fit the function"))
            return ToolResult(call_id=call.id, status="invalid_arguments", content=text, error_code="bad_arguments")
        try:
            value = method(**arguments)
        except Exception as error:  # a backend bug or a value it cannot handle: BFCL reports it as text
            return ToolResult(call_id=call.id, status="failed", content=error_text(error), error_code="execution_error")
        return ToolResult(call_id=call.id, status="success", content=result_text(value))

    def snapshot(self) -> Any:
        """The instances themselves, copied (they hold private state, a working directory, that JSON would lose)."""
        return copy.deepcopy(self._instances)

    def restore(self, snapshot: Any) -> None:
        self._instances = copy.deepcopy(snapshot)

    def state_hash(self) -> str:
        text = json.dumps(public_state(self._instances), sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def task_state(self) -> dict[str, Any]:
        """Every involved instance's public attributes, flat, as changes from the entry's initial state."""
        return changed(self.base, public_state(self._instances))
