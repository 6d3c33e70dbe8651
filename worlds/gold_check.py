"""Gold plans validated by execution, for every world: built-in tasks and user task files alike.

A static check (the tool exists, the arguments fit its schema) cannot see that a call names a device
that does not exist, or that a scene needs the lamp powered on first. So when tasks load, every path
of every turn runs in a fresh world: earlier turns replay their primary path, then each accepted path
of the turn runs from the same starting state. Every call must succeed, and every path must end in
the state the primary path ends in (the judges treat the paths as interchangeable).
"""

from __future__ import annotations

from collections.abc import Sequence

from sim.core import DualControlWorld, GoldCall, Task, ToolCall, World, WorldContext, WorldPack
from sim.core.task import GOLD_ARGUMENTS_UNKNOWN  # skipped: nothing to execute

CHECK_SEED = 0
"""Seed of the worlds gold plans run in; a world whose gold depends on its seed is itself a bug."""


class GoldPlanError(ValueError):
    """A gold call that does not execute, or paths that disagree. Names the task, turn, path and call."""


async def check_gold_by_execution(pack: WorldPack, tasks: Sequence[Task] | None = None) -> int:
    """Replay every path of every turn of ``tasks`` (default: the pack's); returns the calls executed."""
    executed = 0
    for task in pack.tasks() if tasks is None else tasks:
        if GOLD_ARGUMENTS_UNKNOWN in task.tags:
            continue
        # Built for the task, as its episodes' worlds are; no model handle outside an episode.
        executed += await check_task(pack.new_world(CHECK_SEED, WorldContext(task=task)), task)
    return executed


def without_executable_gold(pack: WorldPack, tasks: Sequence[Task] | None = None) -> list[str]:
    """Ids of the tasks whose gold cannot execute: a core call without any argument while its tool requires some
    (ToolBench queries name the APIs only). The check skips them; judges of calls and slots say n/a for them."""
    requires = {spec.name: bool(spec.parameters.get("required")) for spec in pack.tool_specs()}

    def lacks(call: GoldCall) -> bool:
        return call.role == "core" and not call.arguments and requires.get(call.name, False)

    return [
        task.id
        for task in (pack.tasks() if tasks is None else tasks)
        if any(lacks(call) for goal in task.goals for call in goal.gold)
    ]


async def check_task(world: World, task: Task) -> int:
    executed = 0
    for t, turn in enumerate(task.goals):
        start = world.snapshot()
        end_states: list[str] = []
        for p, path in enumerate(turn.paths()):
            world.restore(start)
            executed += await _replay(world, turn.acts(path), f"task {task.id}: turns.{t} path {p}")
            end_states.append(world.state_hash())
        if len(set(end_states)) > 1:
            differing = [p for p, h in enumerate(end_states) if h != end_states[0]]
            raise GoldPlanError(
                f"task {task.id}: turns.{t}: path(s) {differing} end in a different world state than the primary "
                "path; alternatives must reach the same outcome"
            )
        world.restore(start)
        await _replay(world, turn.acts(turn.gold), f"task {task.id}: turns.{t} path 0")  # the next turn starts here
    return executed


async def _replay(world: World, acts: Sequence[tuple[bool, GoldCall]], where: str) -> int:
    """The calls of a path, the user's own acts among them (dual control: ``Goal.acts``)."""
    for c, (by_user, gold) in enumerate(acts):
        call = ToolCall(id=f"gold_{c}", name=gold.name, arguments=dict(gold.arguments))
        if not by_user:
            result = await world.call(call)
        elif isinstance(world, DualControlWorld):
            result = await world.user_call(call)
        else:
            raise GoldPlanError(f"{where} call {c} ({gold.name}): a user act, but the world gives its user no tools")
        if not result.ok:
            detail = result.content.get("error") if isinstance(result.content, dict) else result.content
            raise GoldPlanError(
                f"{where} call {c} ({gold.name} {_args(gold)}): the world answered {result.status}: {detail}"
            )
    return sum(1 for by_user, _ in acts if not by_user)


def _args(call: GoldCall) -> str:
    text = ", ".join(f"{k}={v!r}" for k, v in call.arguments.items())
    return f"({text[:200]})"
