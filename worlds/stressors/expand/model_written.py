"""Model-written neighbours: a model proposes more related-but-different tools for a batch of originals.

Optional (``squall stressors expand --model ...``); what comes back goes through the same embedding
filter as the templated ones (``build.build_catalog(extra=...)``). The pipeline sees only an ``LLMHandle`` (the
run's gateway: limits, retries, response cache). Each reply is checked: a proposal with a bad name, schema or answer
plan is dropped and counted, never repaired. How a synthetic tool is answered comes from a closed set of plans, and
``read_only`` follows from the plan (an acknowledgement records something; the rest only report), not from the model.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from sim.core import ChatMessage, LLMHandle, ModelRequest, ToolSpec
from worlds.stressors.expand.templates import NAME_PATTERN, Answer, Candidate

SYSTEM = (
    "You design extra API functions for an agent-evaluation simulator. For each given function, propose functions "
    "that are related to it (same subject, similar arguments) but do a clearly DIFFERENT job, so that calling one "
    "instead of the other would be a mistake. Never propose a renamed copy or a synonym of a given function. "
    'Answer with one JSON object and nothing else: {"tools": [{"source": "<given function>", "name": "<snake_case>", '
    '"description": "<one or two sentences>", "parameters": <JSON schema, type object>, "answer": {"kind": '
    '"ack"|"preview"|"listing"|"export", "key": "<noun>", "status": "<word>"}}]}. '
    "answer says what the function returns: ack = it records a request and returns `<key>_id` and `status` "
    "(scheduling, subscribing, reporting, approval requests); preview = a dry run of an action; listing = a list "
    "under `key`; export = a download link."
)
MODEL_KINDS = frozenset({"ack", "preview", "listing", "export"})


@dataclass
class ModelReport:
    """What the model was asked and what came of it; every proposal is counted somewhere."""

    requests: int = 0
    request_failures: int = 0
    proposed: int = 0
    accepted: list[Candidate] = field(default_factory=list)
    dropped: Counter[str] = field(default_factory=Counter)
    """Reason -> proposals dropped for it."""


def expand_request(model: str, tools: Sequence[ToolSpec], per_tool: int, seed: int) -> ModelRequest:
    """One request for ``per_tool`` neighbours of each tool of a batch."""
    text = (
        f"Request: expand tools={','.join(t.name for t in tools)}\n\n"
        f"Propose {per_tool} function(s) for each of these:\n"
        + "\n".join(json.dumps(t.model_dump(mode="json", exclude={"read_only"}), separators=(",", ":")) for t in tools)
    )
    return ModelRequest(
        role="generator",
        model=model,
        messages=(ChatMessage(role="system", content=SYSTEM), ChatMessage(role="user", content=text)),
        max_tokens=400 * per_tool * len(tools),
        temperature=0.0,
        seed=seed,
    )


def parse_proposals(
    text: str, sources: dict[str, ToolSpec], taken: set[str], model: str, report: ModelReport
) -> list[Candidate]:
    """The valid proposals of one reply; names are added to ``taken`` as they are accepted."""
    decoder = json.JSONDecoder()
    start = text.find("{")
    found: Any = None
    while start != -1 and not isinstance(found, dict):
        try:
            found, _ = decoder.raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
    proposals = found.get("tools") if isinstance(found, dict) else None
    if not isinstance(proposals, list):
        report.dropped["unparseable_reply"] += 1
        return []
    out: list[Candidate] = []
    for proposal in proposals:
        report.proposed += 1
        reason, candidate = _check(proposal, sources, taken, model)
        if candidate is None:
            report.dropped[reason] += 1
            continue
        taken.add(candidate.spec.name)
        out.append(candidate)
    return out


def _check(proposal: Any, sources: dict[str, ToolSpec], taken: set[str], model: str) -> tuple[str, Candidate | None]:
    if not isinstance(proposal, dict):
        return "not_an_object", None
    name, source, plan = proposal.get("name"), proposal.get("source"), proposal.get("answer")
    if source not in sources:
        return "unknown_source", None
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        return "bad_name", None
    if name in taken:
        return "name_taken", None
    parameters = proposal.get("parameters")
    if not isinstance(parameters, dict) or parameters.get("type", "object") != "object":
        return "bad_parameters", None
    properties = parameters.get("properties", {})
    required = parameters.get("required", [])
    if not isinstance(properties, dict) or not isinstance(required, list) or not set(required) <= set(properties):
        return "bad_parameters", None
    if not isinstance(plan, dict) or plan.get("kind") not in MODEL_KINDS:
        return "bad_answer", None
    description = proposal.get("description")
    if not isinstance(description, str) or not description.strip():
        return "bad_description", None
    try:
        answer = Answer(kind=plan["kind"], key=str(plan.get("key") or ""), status=str(plan.get("status") or ""))
        if answer.kind == "ack" and not (answer.key and answer.status):
            return "bad_answer", None
        spec = ToolSpec(
            name=name,
            description=description.strip(),
            parameters={"type": "object", **parameters},
            read_only=answer.read_only,
        )
    except (ValidationError, TypeError):
        return "bad_parameters", None
    return "", Candidate(spec=spec, source=str(source), origin=f"model:{model}", answer=answer)


async def model_candidates(
    llm: LLMHandle,
    model: str,
    specs: Sequence[ToolSpec],
    *,
    taken: Sequence[str] = (),
    per_tool: int = 2,
    batch: int = 8,
    seed: int = 0,
) -> ModelReport:
    """Ask for neighbours of every tool, ``batch`` tools per request, all requests in flight at once (the gateway
    paces them). ``taken``: names already used (originals are added), so proposals never shadow them."""
    sources = {s.name: s for s in specs}
    used = set(taken) | set(sources)
    report = ModelReport()
    groups = [list(specs[i : i + batch]) for i in range(0, len(specs), batch)]

    async def ask(group: list[ToolSpec]) -> str | None:
        try:
            return (await llm.complete(expand_request(model, group, per_tool, seed))).text
        except Exception:  # a provider fault past the gateway's retries: counted, the other batches go on
            report.request_failures += 1
            return None

    replies = await asyncio.gather(*(ask(g) for g in groups))
    report.requests = len(groups)
    for reply in replies:
        if reply is not None:  # in batch order, so a clash between batches is settled the same way every time
            report.accepted += parse_proposals(reply, sources, used, model, report)
    return report
