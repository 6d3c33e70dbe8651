"""Drafts tasks for a simulated world with a model, keeping only drafts whose gold executes.

Each draft's prompt offers a few related operations, compacted, under a token bound (``worlds.simulated.
draft_prompt``), with cached answers (real ids to refer to); the model writes one task as JSON: the user's request,
the calls that fulfil it and the exact answer the reply must give. A draft is kept when it parses, is not a
duplicate (the same request, space and case aside, with the same calls: kept once, counted), its calls fit the
schemas (``check_tasks_static``), every call succeeds through the simulator (cache first, the model on a miss,
answers cached) and its answer is a value of the responses (``worlds.simulated.draft_answer``); otherwise it is
dropped, with the reason. Kept goals leave free the optional arguments the request does not state.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from sim.core import LLMHandle, ModelRequest, Task, ToolCall, WorldContext
from worlds.common.task_check import check_tasks_static
from worlds.simulated.canonical import canonical_json
from worlds.simulated.draft_answer import answer_text, free_arguments, ungrounded
from worlds.simulated.draft_prompt import CountTokens, Grouping, OperationBatches, build_prompt
from worlds.simulated.operations import ApiOperation
from worlds.simulated.warm import warm
from worlds.simulated.world import SimulatedPack

MAX_TOKENS = 1_024
MAX_PROMPT_TOKENS = 12_000
MAX_OPERATIONS = 16


@dataclass(frozen=True)
class DraftLimits:
    """How a draft's prompt is bounded: tokens (counted by ``count``), operations, and how they are grouped."""

    count: CountTokens
    max_prompt_tokens: int = MAX_PROMPT_TOKENS
    max_operations: int = MAX_OPERATIONS
    grouping: Grouping = "search"


@dataclass
class DraftReport:
    kept: list[Task] = field(default_factory=list)
    dropped: list[tuple[int, str]] = field(default_factory=list)
    """(draft number, why it was dropped)."""
    duplicates: list[tuple[int, str]] = field(default_factory=list)
    """(draft number, the task it repeats): kept once."""
    offered: list[tuple[int, int]] = field(default_factory=list)
    """Per draft: (operations offered, prompt tokens)."""


def parse_draft(text: str, world: str, task_id: str, operations: dict[str, ApiOperation]) -> Task:
    """The task a draft describes. Raises ValueError saying what is wrong."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise ValueError("not a JSON object")
    try:
        raw = json.loads(text[start : end + 1])
    except json.JSONDecodeError as error:
        raise ValueError(f"not valid JSON: {error.msg}") from error
    if not isinstance(raw, dict) or not isinstance(raw.get("request"), str) or not isinstance(raw.get("calls"), list):
        raise ValueError('needs a "request" string and a "calls" list')
    goal: dict[str, Any] = {"user": {"explicit": raw["request"]}, "gold": raw["calls"]}
    answer = raw.get("answer")
    if answer is not None and answer != "":
        goal["answer"] = answer
        goal["gold_answer"] = answer_text(answer)  # never one without the other: the oracle's reply states it
    try:
        task = Task.model_validate({"id": task_id, "world": world, "tags": ["drafted"], "goals": [goal]})
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        raise ValueError(f"{'.'.join(map(str, first['loc']))}: {first['msg']}") from error
    drafted = task.goals[0]
    if drafted.answer is None and not any(getattr(operations.get(c.name), "writes", True) for c in drafted.gold):
        raise ValueError("a lookup with no answer: its reply would have nothing to check (answer is null)")
    free = free_arguments(drafted.user.explicit, drafted.gold, operations)
    return task.model_copy(update={"goals": [drafted.model_copy(update={"free_arguments": free})]}) if free else task


def draft_key(task: Task) -> str:
    """What makes two drafts the same: the request (case and spacing aside) and the calls (canonical)."""
    goal = task.goals[0]
    request = " ".join(goal.user.explicit.casefold().split()).rstrip(" .?!")
    return canonical_json([request, [[c.name, c.arguments] for c in goal.gold]])


async def gold_responses(pack: SimulatedPack, task: Task) -> list[Any]:
    """The responses of the task's first goal's gold, replayed from the cache (warmed just before)."""
    world = pack.new_world(0, WorldContext(task=task, llm=None, cache_mode="read-only"))
    results = []
    for c, gold in enumerate(task.goals[0].gold):
        result = await world.call(ToolCall(id=f"draft_{c}", name=gold.name, arguments=dict(gold.arguments)))
        results.append(result.content)
    return results


async def draft_tasks(
    pack: SimulatedPack,
    llm: LLMHandle,
    model: str,
    n: int,
    limits: DraftLimits,
    seed: int = 0,
    progress: Callable[[int, tuple[str, ...], int], None] | None = None,
) -> DraftReport:
    """Ask for ``n`` drafts (one request each, seeded ``seed + i``); keep those whose gold executes.
    ``progress(draft, operations offered, prompt tokens)`` is told each prompt before it is sent.
    Raises PromptBoundTooSmall when the token bound cannot hold one operation."""
    report = DraftReport()
    existing = pack.tasks()
    taken = {task.id for task in existing}
    seen = {draft_key(task): task.id for task in existing if len(task.goals) == 1}
    batches = OperationBatches(pack.spec.operations, limits.grouping)
    operations = dict(pack.runtime.operations)

    def known(name: str) -> list[tuple[Any, Any]]:
        return [(e.arguments, e.response) for e in pack.runtime.store.examples(name)]

    for i in range(n):
        earlier = [t.goals[0].user.explicit for t in report.kept]
        title = pack.spec.title or pack.name
        built = build_prompt(
            title, batches, known, earlier, i, n, limits.count, limits.max_prompt_tokens, limits.max_operations
        )
        report.offered.append((len(built.operations), built.tokens))
        if progress is not None:
            progress(i, built.operations, built.tokens)
        request = ModelRequest(
            role="generator",
            model=model,
            messages=tuple(built.messages),
            max_tokens=MAX_TOKENS,
            temperature=0.7,
            seed=seed + i,
        )
        task_id = next(f"draft-{k:03d}" for k in range(i, i + n + len(taken) + 1) if f"draft-{k:03d}" not in taken)
        try:
            task = parse_draft((await llm.complete(request)).text, pack.name, task_id, operations)
            if (first := seen.get(draft_key(task))) is not None:
                report.duplicates.append((i, first))
                continue
            check_tasks_static([task], pack.name, pack.runtime.checkers)
        except ValueError as error:
            report.dropped.append((i, str(error)))
            continue
        executed = await warm(pack, llm, [task])
        if executed.failures:
            _, where, why = executed.failures[0]
            report.dropped.append((i, f"gold does not execute: {where}: {why}"))
            continue
        missing = ungrounded(task.goals[0].answer, await gold_responses(pack, task))
        if missing:
            shown = ", ".join(repr(m) for m in missing[:3])
            report.dropped.append((i, f"answer {shown} is no value of the gold calls' responses"))
            continue
        seen[draft_key(task)] = task_id
        taken.add(task_id)
        report.kept.append(task)
    return report
