"""Model-driven scenario assignment: rate every (type, tool) pair, draft rows for the best, keep what works.

The shipped table (``data/*.jsonl``) needs no model; this is how a new world gets rows of its own. Steps:
(1) rate: per complexity type, batches of tools scored 0-10 in one request each; (2) draft: for the top-N
pairs per type, one row in the ``Scenario`` format; (3) validate each draft (``validate.check_draft``);
(4) the caller writes the accepted rows (``write_rows``), loadable by ``catalog.load_scenarios``.

It talks to a model only through an ``LLMHandle`` (the run's gateway: limits, retries, cache), so it stays
inside the worlds' side of the contract; the command line (``squall stressors assign``) lives in ``sim``.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sim.core import LLMHandle, ModelRequest, ToolSpec, WorldPack
from sim.core.files import write_text_atomic
from worlds.stressors.assign.prompts import draft_request, parse_json_object, parse_scores, rate_request
from worlds.stressors.assign.validate import Rejected, check_draft
from worlds.stressors.catalog import builtin_scenarios
from worlds.stressors.scenario import LEVEL, TASK_ROW_TYPES, WHOLE_TASK_TYPES, Scenario


@dataclass
class AssignReport:
    """What a pipeline run did, with its denominators: every pair and draft is counted somewhere."""

    pairs: int = 0
    """(type, tool) pairs asked about."""
    ratings: dict[tuple[str, str], int] = field(default_factory=dict)
    """Scores that parsed, by (type, tool)."""
    skipped: int = 0
    """Pairs with no usable score (bad JSON, missing, out of range, or the request failed)."""
    chosen: list[tuple[str, str]] = field(default_factory=list)
    """The top pairs that were drafted, in request order."""
    accepted: list[Scenario] = field(default_factory=list)
    rejected: list[tuple[str, str, str]] = field(default_factory=list)
    """(type, tool, reason) per draft that failed a check."""
    request_failures: int = 0
    """Requests that raised (provider faults after the gateway's retries)."""

    def reasons(self) -> Counter[str]:
        return Counter(reason.split(":", 1)[0] for _, _, reason in self.rejected)


async def assign(
    llm: LLMHandle,
    model: str,
    pack: WorldPack,
    *,
    types: Sequence[str] | None = None,
    top: int = 3,
    batch: int = 8,
    min_score: int = 1,
    seed: int = 0,
    shipped: Sequence[Scenario] | None = None,
) -> AssignReport:
    """Rate, draft and validate; returns the report (accepted rows in type order, best pair first)."""
    kinds = list(types or [k for k in LEVEL if k not in WHOLE_TASK_TYPES | TASK_ROW_TYPES])
    unknown = [k for k in kinds if k not in LEVEL]
    if unknown:
        raise ValueError(f"unknown complexity type(s): {', '.join(unknown)}; known: {', '.join(LEVEL)}")
    table = list(builtin_scenarios() if shipped is None else shipped)
    specs: list[ToolSpec] = pack.tool_specs()
    by_name = {s.name: s for s in specs}
    report = AssignReport()

    async def ask(request: ModelRequest) -> str | None:
        try:
            return (await llm.complete(request)).text
        except Exception:  # a provider fault past the gateway's retries: counted, the rest of the run goes on
            report.request_failures += 1
            return None

    # (1) rate: one request per (type, batch of tools)
    jobs = [(k, specs[i : i + batch]) for k in kinds for i in range(0, len(specs), batch)]
    replies = await asyncio.gather(*(ask(rate_request(model, k, group, seed)) for k, group in jobs))
    for (kind, group), reply in zip(jobs, replies, strict=True):
        names = [t.name for t in group]
        scores = parse_scores(reply or "", names)
        report.pairs += len(names)
        report.skipped += len(names) - len(scores)
        report.ratings.update({(kind, tool): score for tool, score in scores.items()})

    # (2) draft: the top-N pairs per type that have an example row to show
    for kind in kinds:
        rated = sorted(
            ((s, t) for (k, t), s in report.ratings.items() if k == kind and s >= min_score),
            key=lambda p: (-p[0], p[1]),
        )
        report.chosen += [(kind, tool) for _, tool in rated[:top]]
    examples = {k: next((s for s in table if s.type == k), None) for k in kinds}
    taken = {s.name for s in table}
    requests = []
    for kind, tool in report.chosen:
        example = examples[kind]
        if example is None:
            raise ValueError(f"no shipped row of type {kind} to show as an example")
        same_type = sorted(n for n in taken if n.startswith(f"{kind}."))
        requests.append(draft_request(model, kind, by_name[tool], example, same_type, list(by_name), seed))
    drafts = await asyncio.gather(*(ask(r) for r in requests))

    # (3) validate, in order, so a name taken by an earlier draft is a duplicate for a later one
    for (kind, tool), reply in zip(report.chosen, drafts, strict=True):
        try:
            if reply is None:
                raise Rejected("request_failed")
            scenario = await check_draft(parse_json_object(reply), kind, tool, pack, taken)
        except Rejected as rejected:
            report.rejected.append((kind, tool, str(rejected)))
            continue
        taken.add(scenario.name)
        report.accepted.append(scenario)
    return report


def write_rows(path: Path, rows: Sequence[Scenario]) -> None:
    """The rows as JSONL (the shipped table's format), written to a temporary file and renamed into place, so a
    reader never sees half a table."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(row.model_dump_json(exclude_defaults=True) + "\n" for row in rows)
    write_text_atomic(path, text)
