"""Checks a drafted scenario row must pass before it joins a table: a model's draft is a claim, not data.

In order: it parses as a ``Scenario`` of the asked type, targets the asked tool, names only tools the world has,
has a name no shipped row or earlier draft uses, its type's stressor builds from it (and rewrites every shipped
conversation without error), and it does something on a fresh world: a specification-level row changes what the
agent reads, an execution-level row fires on a real call of the targeted tool (a gold call of a shipped
conversation, replayed after the gold calls before it). The first failed check is the reason it is rejected.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from itertools import islice
from typing import Any

from pydantic import ValidationError

from sim.core import CallContext, GoldCall, ToolCall, WorldPack, through_stressors, world_stop
from worlds.stressors.catalog import stressor_class
from worlds.stressors.scenario import LEVEL, Scenario, ScenarioStressor

MAX_TRIES = 50
"""Gold calls of the targeted tool tried before a draft counts as never firing."""


class Rejected(Exception):
    """A draft failed a check; ``str()`` is the reason, ``code`` its short category for counts."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code


def gold_calls(pack: WorldPack, tool: str) -> Iterator[tuple[list[GoldCall], GoldCall]]:
    """Each gold call of ``tool`` in the world's conversations (primary paths, then alternatives), with the gold
    calls before it (earlier goals' primary paths, then its own path's): worlds have prerequisites."""
    for task in pack.tasks():
        before: list[GoldCall] = []
        for goal in task.goals:
            for path in [goal.gold, *goal.alternatives]:
                for i, call in enumerate(path):
                    if call.name == tool:
                        yield before + path[:i], call
            before += goal.gold


async def check_draft(
    row: dict[str, Any] | None, kind: str, tool: str, pack: WorldPack, taken: Collection[str]
) -> Scenario:
    """The draft as a validated Scenario that acts on this world; raises Rejected with the first failed check."""
    if row is None:
        raise Rejected("bad_json", "the reply holds no JSON object")
    try:
        scenario = Scenario.model_validate(row)
    except ValidationError as error:
        first = error.errors()[0]
        raise Rejected("schema", f"{'.'.join(str(p) for p in first['loc']) or 'row'}: {first['msg']}") from error
    if scenario.type != kind:
        raise Rejected("wrong_type", f"asked for {kind}, got {scenario.type}")
    specs = pack.tool_specs()
    names = {s.name for s in specs}
    unknown = [t for t in scenario.tools if t not in names and t != "*"]
    if unknown:
        raise Rejected("unknown_tool", ", ".join(unknown))
    if tool not in scenario.tools and "*" not in scenario.tools:
        raise Rejected("misses_target", f"tools {scenario.tools} leave out {tool}")
    if scenario.name in taken:
        raise Rejected("duplicate_name", scenario.name)
    try:
        stressor = stressor_class(kind)(scenario, 0, {"rate": 1.0})  # always fires here: the check is not a coin
        changed = stressor.on_spec(list(specs), "") != (list(specs), "")
        for task in pack.tasks():
            stressor.on_task(task)
    except Exception as error:  # a row the type cannot use fails in its own code: any error is the draft's
        raise Rejected("bad_params", f"{type(error).__name__}: {error}") from error
    if LEVEL[kind] == "spec":
        if not changed:
            raise Rejected("no_effect", "the agent would read the same specs")
        return scenario
    fired = await _fires(stressor, pack, tool)
    if fired != [scenario.name]:
        raise Rejected("does_not_fire", f"fired {fired} on the gold calls of {tool} tried")
    return scenario


async def _fires(stressor: ScenarioStressor, pack: WorldPack, tool: str, tries: int = MAX_TRIES) -> list[str]:
    """The scenarios that fired on a gold call of ``tool`` through the stressor and a fresh world. Gold calls are
    tried in turn until one fires: a conditional row (a limitation's ``when``) fires only on the calls it is
    about."""
    fired: list[str] = []
    for setup, gold in islice(gold_calls(pack, tool), tries):
        world = pack.new_world(0)
        for i, step in enumerate(setup):
            await world.call(ToolCall(id=f"assign-setup-{i}", name=step.name, arguments=dict(step.arguments)))
        ctx = CallContext(turn=0, call_index=len(setup))
        call = ToolCall(id="assign-check", name=gold.name, arguments=dict(gold.arguments))
        try:
            outcome = await through_stressors([stressor], call, ctx, world_stop(world))
        except Exception as error:  # as above: the type's code failing on this row is the row's fault
            raise Rejected("bad_params", f"on_call: {type(error).__name__}: {error}") from error
        fired = list(outcome.fired)
        if fired:
            return fired
    if not fired and next(gold_calls(pack, tool), None) is None:
        raise Rejected("no_gold_call", f"no shipped conversation calls {tool}")
    return fired
