"""Gold for tasks that name their APIs but not the arguments (ToolBench queries): a model fills the calls in from
the request, and the simulator decides what is kept.

One request per task (``draft_gold_prompt``): the request and the schemas of the APIs its gold names, answered with
a JSON list of calls in order. A draft is kept only when it calls exactly the task's APIs (each at least once, no
other), its arguments fit their schemas, and every call, on every accepted order, executes through the simulator
(cache first, the world model on a miss; the answers are cached, so ``worlds warm`` and a read-only run find them).
Otherwise the task keeps what it had and the reason is recorded. Kept gold leaves free the optional arguments the
request does not state, accepts every order of its calls that keeps the writes in theirs (ToolBench scores relevant
APIs as a set, so the import accepts any order too; a write's order changes the state), and says where it came
from: ``gold_source = "drafted:MODEL"``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import permutations
from typing import Literal

from pydantic import ValidationError

from sim.core import GoldCall, LLMHandle, ModelRequest, Task, WorldContext
from worlds.common.task_check import check_tasks_static
from worlds.gold_check import GOLD_ARGUMENTS_UNKNOWN, GoldPlanError, check_task
from worlds.simulated.canonical import canonical_json
from worlds.simulated.draft_answer import free_arguments
from worlds.simulated.draft_gold_prompt import PromptTooLong, gold_prompt, parse_calls
from worlds.simulated.draft_prompt import CountTokens
from worlds.simulated.operations import ApiOperation
from worlds.simulated.toolbench_queries import MAX_PERMUTED
from worlds.simulated.warm import warm
from worlds.simulated.world import SimulatedPack

DRAFTED = "drafted:"
"""``Task.gold_source`` prefix of drafted gold; the model follows."""
MAX_TOKENS = 1_024
DropReason = Literal["several goals", "prompt too long", "not a list of calls", "other APIs", "arguments refused",
                     "does not execute"]  # fmt: skip


@dataclass(frozen=True)
class Dropped:
    """A task whose draft was not kept: the reason (one of a few, for the summary) and what exactly went wrong."""

    task: str
    reason: DropReason
    detail: str


@dataclass
class GoldDraftReport:
    """What a draft-gold pass did; ``tasks`` is the world's task list with every kept draft in place, kept up to date
    as it goes (a pass stopped by a provider failure still has what it kept)."""

    tasks: list[Task]
    kept: list[str] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)

    def by_reason(self) -> Counter[str]:
        return Counter(d.reason for d in self.dropped)


def has_drafted_gold(task: Task) -> bool:
    return (task.gold_source or "").startswith(DRAFTED)


def lacks_gold(task: Task) -> bool:
    """Gold that names its APIs only (ToolBench queries as imported)."""
    return GOLD_ARGUMENTS_UNKNOWN in task.tags


def tasks_to_draft(tasks: Sequence[Task], only_missing: bool, ids: Sequence[str] | None = None) -> list[Task]:
    """The tasks a pass drafts: those without gold, and (unless ``only_missing``) those whose gold a model drafted
    before; ``ids`` narrows them. Raises ValueError for an id of no task, or of a task whose author wrote its gold
    (never replaced)."""
    by_id = {task.id: task for task in tasks}
    if ids is not None:
        unknown = [i for i in ids if i not in by_id]
        if unknown:
            raise ValueError(f"no task {', '.join(repr(i) for i in unknown)} in this world")
        authored = [i for i in ids if not (lacks_gold(by_id[i]) or has_drafted_gold(by_id[i]))]
        if authored:
            raise ValueError(f"task {', '.join(repr(i) for i in authored)} has its author's gold (never replaced)")
    wanted = set(ids) if ids is not None else None
    return [
        task
        for task in tasks
        if (wanted is None or task.id in wanted) and (lacks_gold(task) or (not only_missing and has_drafted_gold(task)))
    ]


def task_apis(task: Task) -> list[str]:
    """The APIs the task's gold names, once each, in order."""
    return list(dict.fromkeys(call.name for call in task.goals[0].gold))


def orders(calls: Sequence[GoldCall], operations: Mapping[str, ApiOperation]) -> list[list[GoldCall]]:
    """The calls in every order that keeps the writes in theirs (the drafted order first; repeats once); past
    ``MAX_PERMUTED`` calls the drafted order only."""
    if len(calls) > MAX_PERMUTED:
        return [list(calls)]
    writes = [c for c in calls if operations[c.name].writes]
    seen: set[str] = set()
    out: list[list[GoldCall]] = []
    for order in permutations(calls):
        key = canonical_json([[c.name, c.arguments] for c in order])
        if key in seen or [c for c in order if operations[c.name].writes] != writes:
            continue
        seen.add(key)
        out.append(list(order))
    return out


def with_gold(task: Task, calls: Sequence[GoldCall], operations: Mapping[str, ApiOperation], model: str) -> Task:
    """The task with ``calls`` as its gold (and their other orders as alternatives), marked as drafted by ``model``."""
    goal = task.goals[0]
    paths = orders(calls, operations)
    update = {
        "gold": paths[0],
        "alternatives": paths[1:],
        "free_arguments": free_arguments(goal.user.explicit, calls, operations),
    }
    tags = [tag for tag in task.tags if tag != GOLD_ARGUMENTS_UNKNOWN]
    return task.model_copy(
        update={"goals": [goal.model_copy(update=update)], "tags": tags, "gold_source": f"{DRAFTED}{model}"}
    )


class Rejected(ValueError):
    """A draft not kept, with the reason the summary counts it under."""

    def __init__(self, reason: DropReason, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


def check_apis(calls: Sequence[GoldCall], apis: Sequence[str]) -> None:
    """Raises Rejected unless the calls name exactly ``apis``, each at least once."""
    other = [c.name for c in calls if c.name not in apis]
    if other:
        raise Rejected("other APIs", f"calls {other[0]}, not one of the task's APIs ({', '.join(apis)})")
    missing = [name for name in apis if name not in {c.name for c in calls}]
    if missing:
        raise Rejected("other APIs", f"leaves out {', '.join(missing)}")


async def draft_one(
    pack: SimulatedPack, llm: LLMHandle, model: str, task: Task, count: CountTokens, max_prompt_tokens: int
) -> Task:
    """The task with drafted gold that executes. Raises Rejected saying why not."""
    if len(task.goals) != 1:
        raise Rejected("several goals", f"{len(task.goals)} goals: draft-gold fills one-goal tasks (ToolBench's)")
    apis = task_apis(task)
    operations = pack.runtime.operations
    try:
        messages = gold_prompt(task.goals[0].user.explicit, [operations[name] for name in apis], count,
                               max_prompt_tokens)  # fmt: skip
    except PromptTooLong as error:
        raise Rejected("prompt too long", str(error)) from None
    request = ModelRequest(role="generator", model=model, messages=tuple(messages), max_tokens=MAX_TOKENS,
                           temperature=0.0, seed=0)  # fmt: skip
    try:
        calls = parse_calls((await llm.complete(request)).text)
    except ValueError as error:
        raise Rejected("not a list of calls", str(error)) from None
    check_apis(calls, apis)
    try:
        drafted = with_gold(task, calls, operations, model)
        check_tasks_static([drafted], pack.name, pack.runtime.checkers)
    except (ValueError, ValidationError) as error:
        raise Rejected("arguments refused", " ".join(str(error).split())) from None
    executed = await warm(pack, llm, [drafted])
    if executed.failures:
        _, where, why = executed.failures[0]
        raise Rejected("does not execute", f"{where}: {why}")
    try:  # every order ends where the drafted one does: cached now, so this asks nothing
        await check_task(pack.new_world(0, WorldContext(task=drafted, cache_mode="read-only")), drafted)
    except GoldPlanError as error:
        raise Rejected("does not execute", str(error)) from None
    return drafted


async def draft_gold(
    pack: SimulatedPack,
    llm: LLMHandle,
    model: str,
    chosen: Sequence[Task],
    count: CountTokens,
    max_prompt_tokens: int,
    report: GoldDraftReport,
    progress: Callable[[int, int, str], None] | None = None,
) -> GoldDraftReport:
    """Draft gold for ``chosen`` (one model request each), in place in ``report.tasks``."""
    place = {task.id: i for i, task in enumerate(report.tasks)}
    for n, task in enumerate(chosen):
        try:
            drafted = await draft_one(pack, llm, model, task, count, max_prompt_tokens)
        except Rejected as error:
            report.dropped.append(Dropped(task.id, error.reason, str(error)))
        else:
            report.tasks[place[task.id]] = drafted
            report.kept.append(task.id)
        if progress is not None:
            progress(n + 1, len(chosen), task.id)
    return report
