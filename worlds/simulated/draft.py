"""Drafts tasks for a simulated world with a model, keeping only drafts whose gold executes.

The model sees the operations (name, method, path, documentation, argument schema) and cached answers (real ids to
refer to), and writes one task as JSON: the user's request, the calls that fulfil it and the facts the reply must
give. A draft is kept when it parses, its calls fit the schemas (``check_tasks_static``) and every call succeeds
through the simulator (cache first, the model on a miss, answers cached): a task whose gold cannot run is dropped,
with the reason.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic import ValidationError

from sim.core import ChatMessage, LLMHandle, ModelRequest, Task
from worlds.common.task_check import check_tasks_static
from worlds.simulated.canonical import canonical_json
from worlds.simulated.warm import warm
from worlds.simulated.world import SimulatedPack

DOC_CHARS = 300
EXAMPLES_PER_OPERATION = 2
MAX_TOKENS = 1_024

SYSTEM = """\
You write test tasks for an AI assistant that uses the API "{title}". Each task is one realistic request a user of \
the service would make, and the exact API calls that fulfil it.
Answer with one JSON object and nothing else:
{{"request": "<what the user says, naming every value the calls need>", \
"calls": [{{"name": "<operation>", "arguments": {{...}}}}], "answer": "<the facts the assistant's reply must give>"}}
Use only the operations listed, with arguments that fit their schemas; refer to ids that appear in the known \
responses where you can."""


@dataclass
class DraftReport:
    kept: list[Task] = field(default_factory=list)
    dropped: list[tuple[int, str]] = field(default_factory=list)
    """(draft number, why it was dropped)."""


def prompt(pack: SimulatedPack, number: int, total: int, earlier: Sequence[str]) -> list[ChatMessage]:
    lines = ["Operations:"]
    for op in pack.spec.operations:
        doc = (op.description or op.summary)[:DOC_CHARS]
        lines.append(f"- {op.name} ({op.method.upper()} {op.path}): {doc}")
        lines.append(f"  arguments schema: {canonical_json(op.parameters)}")
        for entry in pack.runtime.store.examples(op.name)[:EXAMPLES_PER_OPERATION]:
            lines.append(f"  known response: {canonical_json(entry.arguments)} -> {canonical_json(entry.response)}")
    if earlier:
        lines += ["", "Tasks written already (write a different one):", *(f"- {text}" for text in earlier)]
    lines += ["", f"Write task {number + 1} of {total}."]
    return [
        ChatMessage(role="system", content=SYSTEM.format(title=pack.spec.title or pack.name)),
        ChatMessage(role="user", content="\n".join(lines)),
    ]


def parse_draft(text: str, world: str, task_id: str) -> Task:
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
    goal = {"user": {"explicit": raw["request"]}, "gold": raw["calls"]}
    if isinstance(raw.get("answer"), str) and raw["answer"]:
        goal["gold_answer"] = raw["answer"]
    try:
        return Task.model_validate({"id": task_id, "world": world, "tags": ["drafted"], "goals": [goal]})
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        raise ValueError(f"{'.'.join(map(str, first['loc']))}: {first['msg']}") from error


async def draft_tasks(pack: SimulatedPack, llm: LLMHandle, model: str, n: int, seed: int = 0) -> DraftReport:
    """Ask for ``n`` drafts (one request each, seeded ``seed + i``); keep those whose gold executes."""
    report = DraftReport()
    taken = {task.id for task in pack.tasks()}
    for i in range(n):
        messages = prompt(pack, i, n, [t.goals[0].user.explicit for t in report.kept])
        request = ModelRequest(
            role="generator",
            model=model,
            messages=tuple(messages),
            max_tokens=MAX_TOKENS,
            temperature=0.7,
            seed=seed + i,
        )
        task_id = next(f"draft-{k:03d}" for k in range(i, i + n + len(taken) + 1) if f"draft-{k:03d}" not in taken)
        try:
            task = parse_draft((await llm.complete(request)).text, pack.name, task_id)
            check_tasks_static([task], pack.name, pack.runtime.checkers)
        except ValueError as error:
            report.dropped.append((i, str(error)))
            continue
        executed = await warm(pack, llm, [task])
        if executed.failures:
            _, where, why = executed.failures[0]
            report.dropped.append((i, f"gold does not execute: {where}: {why}"))
            continue
        taken.add(task_id)
        report.kept.append(task)
    return report
