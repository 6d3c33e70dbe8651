"""The two questions the assignment pipeline asks a model, and robust reading of its JSON answers.

Every request is a plain value (role ``generator``, temperature 0, a fixed seed), so the run's gateway can
cache it and a re-run with the same world, model and seed costs nothing. The first user message starts
with a ``Request: rate|draft ...`` line: it names what is asked, for logs and for scripted test models.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Sequence
from typing import Any

from sim.core import ChatMessage, ModelRequest, ToolSpec
from worlds.stressors.scenario import LEVEL, Scenario

RATE_SYSTEM = (
    "You judge which complexity stressors make sense for which API functions of a simulated world. "
    "Answer with one JSON object and nothing else: "
    '{"scores": {"<function name>": <integer 0-10>, ...}} with a score for every function listed. '
    "10: the stressor fits this function naturally and would test an agent well; 0: it makes no sense here."
)
DRAFT_SYSTEM = (
    "You write one complexity scenario row for an API-agent simulator. Answer with exactly one JSON object "
    "in the row schema, and nothing else: no prose, no code fence. Use only function and argument names that "
    "appear in the specs you are shown."
)


def type_doc(kind: str) -> str:
    """The type module's docstring: what the type does and which ``params`` its stressor reads (one source)."""
    module = importlib.import_module(f"worlds.stressors.types.{kind}")
    doc = (module.__doc__ or "").strip()
    if kind == "adhoc":
        doc += "\n\nKnown formats: " + ", ".join(sorted(module.FORMATS))
    if kind == "lookalike":
        from worlds.stressors.types.lookalike_data import DECOYS

        doc += "\n\nKnown decoys (params.decoys may only name these):\n" + "\n".join(
            f"- {name}: {decoy.description}" for name, decoy in sorted(DECOYS.items())
        )
    return doc


def summary(kind: str) -> str:
    """The docstring's first paragraph: enough to rate fit without the params contract."""
    return type_doc(kind).split("\n\n", 1)[0].replace("\n", " ")


def _signature(spec: ToolSpec) -> str:
    args = ", ".join(spec.parameters.get("properties", {}))
    return f"- {spec.name}({args}): {spec.description}"


def rate_request(model: str, kind: str, tools: Sequence[ToolSpec], seed: int) -> ModelRequest:
    """Scores 0-10 for one complexity type against a batch of tools (batched: one request per few tools)."""
    text = (
        f"Request: rate type={kind}\n\n"
        f"Complexity type '{kind}' ({LEVEL[kind]} level): {summary(kind)}\n\n"
        "Functions:\n" + "\n".join(_signature(t) for t in tools)
    )
    return _request(model, RATE_SYSTEM, text, seed, max_tokens=40 + 12 * len(tools))


def draft_request(
    model: str,
    kind: str,
    tool: ToolSpec,
    example: Scenario,
    taken: Sequence[str],
    world_tools: Sequence[str],
    seed: int,
) -> ModelRequest:
    """One scenario row of ``kind`` targeting ``tool``: schema, params contract, a shipped example, the spec."""
    spec = tool.model_dump(mode="json", exclude={"read_only"})
    text = (
        f"Request: draft type={kind} tool={tool.name}\n\n"
        f"Row schema (JSON Schema):\n{json.dumps(Scenario.model_json_schema(), separators=(',', ':'))}\n\n"
        f"What type '{kind}' does and which params it reads:\n{type_doc(kind)}\n\n"
        "A shipped row of this type, as an example of the format:\n"
        f"{example.model_dump_json(exclude_defaults=True)}\n\n"
        f"Target function (the row's tools must include it):\n{json.dumps(spec, separators=(',', ':'))}\n\n"
        f"Other functions of this world: {', '.join(t for t in world_tools if t != tool.name)}\n\n"
        f"Rules: type is '{kind}'; name is '{kind}.<new_slug>' (lowercase letters, digits, underscores) and "
        f"none of: {', '.join(taken)}. Every params key must be one the type reads, with values that fit the "
        "target function's real arguments."
    )
    return _request(model, DRAFT_SYSTEM, text, seed, max_tokens=1200)


def _request(model: str, system: str, text: str, seed: int, max_tokens: int) -> ModelRequest:
    return ModelRequest(
        role="generator",
        model=model,
        messages=(ChatMessage(role="system", content=system), ChatMessage(role="user", content=text)),
        max_tokens=max_tokens,
        temperature=0.0,
        seed=seed,
    )


def parse_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in a reply (code fences and chatter around it tolerated); None if there is none."""
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start != -1:
        try:
            value, _ = decoder.raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        return value if isinstance(value, dict) else None
    return None


def parse_scores(text: str, tools: Sequence[str]) -> dict[str, int]:
    """Scores for the asked tools that are integers 0-10 (``{"scores": {...}}`` or a bare mapping); a tool
    missing or badly scored is left out, so the caller counts it as skipped."""
    found = parse_json_object(text)
    if found is None:
        return {}
    scores = found.get("scores", found)
    if not isinstance(scores, dict):
        return {}
    out: dict[str, int] = {}
    for tool in tools:
        value = scores.get(tool)
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        if 0 <= value <= 10 and float(value).is_integer():
            out[tool] = int(value)
    return out
