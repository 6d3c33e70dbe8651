"""Tool search: the agent starts with two tools, ``search_tools`` and ``get_info``, and must find the rest.

Every other tool of the episode stays in the episode's toolkit (what ``on_spec`` returns: judges read their schemas
from it) but is not callable until a search returned it or ``get_info`` described it; from the next step on it is
(``on_tools`` is asked after every call), for the rest of the episode. A call to a tool not found yet is refused by
the runtime as an unknown function. Both search tools are answered here, read-only, and never reach the world; the
world's own tools stay the executors. Gold is untouched: search calls are support calls the judges ignore.

``search_tools(query, num_results=5)`` ranks the tools by how similar the query is to each one's signature,
``name(args): description`` (``worlds.stressors.search.index``): by default a hybrid of sentence embeddings (cached
on disk) and BM25 over the name's words, description and arguments when the ``[embed]`` extra is installed, else
BM25 alone (each answer says which ranker ran). The ranking runs in a worker thread: embedding a query is numpy
work (~25 ms), which never runs on the event loop.

Row params (each can be overridden, ``search.tools:ranker=lexical``): ``ranker`` (auto | hybrid | embedding |
lexical; auto is hybrid where embeddings run),
``default_results`` (5), ``cache_dir`` (default ``$SQUALL_TOOL_INDEX_DIR`` or ``.cache/tool_index``).

Calls of one step run concurrently, so a parallel call in the same step as the search that finds its tool is let
through if it starts after the search answered: the runtime tells stressors calls, not steps.
"""

from __future__ import annotations

import asyncio
import difflib
from pathlib import Path
from typing import Any

from sim.core import CallContext, CallNext, CallOutcome, ToolCall, ToolResult, ToolSpec, failure
from sim.core.frozen import thaw
from worlds.stressors.expand.templates import signature
from worlds.stressors.scenario import ScenarioStressor
from worlds.stressors.search.index import SHARED, Ranker, lexical_text, resolve_ranker

SEARCH_TOOL = "search_tools"
INFO_TOOL = "get_info"
MAX_RESULTS = 9
SEARCH_SPEC = ToolSpec(
    name=SEARCH_TOOL,
    description="Find functions for a task among all available ones: describe what you want to do; returns the "
    "best-matching function names with a one-line description, best first. Functions returned become callable at "
    "your next step.",
    parameters={
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What you want to do, in a few words."},
            "num_results": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_RESULTS,
                "default": 5,
                "description": f"How many functions to return (1-{MAX_RESULTS}).",
            },
        },
        "required": ["query"],
        "additionalProperties": False,
    },
    read_only=True,
)
INFO_SPEC = ToolSpec(
    name=INFO_TOOL,
    description="Full documentation of one function by its exact name: description and parameters. The function "
    "becomes callable at your next step.",
    parameters={
        "type": "object",
        "properties": {"tool_name": {"type": "string", "description": "The function's exact name."}},
        "required": ["tool_name"],
        "additionalProperties": False,
    },
    read_only=True,
)
OWN = frozenset({SEARCH_TOOL, INFO_TOOL})
NOTE = (
    "\n\nTool search: only search_tools and get_info are available at first. Use search_tools to find the functions "
    "you need (and get_info for a function's parameters); every function they return becomes callable at your next "
    "step."
)


def one_line(description: str, limit: int = 160) -> str:
    """The first sentence (or line) of a description, at most ``limit`` characters."""
    first = description.strip().split("\n", 1)[0]
    end = first.find(". ")
    first = first[: end + 1] if end >= 0 else first
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


class ToolSearch(ScenarioStressor):
    """Hides every tool behind a search; answers ``search_tools`` and ``get_info`` itself."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        default = self.params.get("default_results", 5)
        if isinstance(default, bool) or not isinstance(default, int) or not 1 <= default <= MAX_RESULTS:
            raise ValueError(f"{self.name}: default_results must be an integer in 1..{MAX_RESULTS}, got {default!r}")
        self.default_results = default
        self.ranker_name, self.ranker_note = resolve_ranker(str(self.params.get("ranker", "auto")))
        cache_dir = self.params.get("cache_dir")
        self.cache_dir = Path(cache_dir) if cache_dir else None
        self.catalog: dict[str, ToolSpec] = {}
        self.texts: list[str] = []
        self.words: list[str] = []
        self.found: set[str] = set()

    def on_spec(self, specs: list[ToolSpec], instructions: str) -> tuple[list[ToolSpec], str]:
        # Nothing heavy here (it runs on the event loop): the index is built on the first search, in a thread.
        self.catalog = {s.name: s for s in specs if s.name not in OWN}
        self.texts = [signature(s) for s in self.catalog.values()]
        self.words = [lexical_text(s) for s in self.catalog.values()]
        return [SEARCH_SPEC, INFO_SPEC, *self.catalog.values()], instructions + NOTE

    def on_tools(self, goal: int, specs: list[ToolSpec]) -> list[ToolSpec]:
        return [s for s in specs if s.name in OWN or s.name in self.found]

    def index(self) -> Ranker:
        """The shared index of this episode's tools (built on first use, then reused by every episode)."""
        return SHARED.get(self.texts, self.ranker_name, self.cache_dir, lexical_texts=self.words)

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        names = list(self.catalog)
        return [(names[row], score) for row, score in self.index().rank(query, k)]

    async def on_call(self, call: ToolCall, ctx: CallContext, next: CallNext) -> CallOutcome:
        if call.name not in OWN:
            return await next(call)
        result = await self._search(call) if call.name == SEARCH_TOOL else self._info(call)
        return CallOutcome.answered(result, self.name)

    async def _search(self, call: ToolCall) -> ToolResult:
        args = call.arguments
        if unknown := sorted(set(args) - {"query", "num_results"}):
            return failure(call, "invalid_arguments", "bad_arguments", f"{SEARCH_TOOL}: unknown argument {unknown[0]}")
        query, k = args.get("query"), args.get("num_results", self.default_results)
        if not isinstance(query, str) or not query.strip():
            message = f"{SEARCH_TOOL}: query must be a non-empty string"
            return failure(call, "invalid_arguments", "bad_arguments", message)
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_RESULTS:
            message = f"{SEARCH_TOOL}: num_results must be an integer from 1 to {MAX_RESULTS}, got {k!r}"
            return failure(call, "invalid_arguments", "bad_arguments", message)
        hits = await asyncio.to_thread(self.search, query, k)  # numpy work stays off the event loop
        self.found.update(name for name, _ in hits)
        results = [{"name": name, "description": one_line(self.catalog[name].description)} for name, _ in hits]
        content: dict[str, Any] = {"results": results, "ranker": self.ranker_name}
        if self.ranker_note:
            content["note"] = self.ranker_note
        return ToolResult(call_id=call.id, status="success", content=content)

    def _info(self, call: ToolCall) -> ToolResult:
        args = call.arguments
        name = args.get("tool_name")
        if set(args) != {"tool_name"} or not isinstance(name, str):
            return failure(call, "invalid_arguments", "bad_arguments", f"{INFO_TOOL}: takes one string, tool_name")
        spec = self.catalog.get(name)
        if spec is None:
            close = difflib.get_close_matches(name, list(self.catalog), n=3, cutoff=0.6)
            hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else f" Use {SEARCH_TOOL} to find one."
            return failure(call, "not_found", "unknown_tool", f"{INFO_TOOL}: no function named '{name}'.{hint}")
        self.found.add(name)
        content = {"name": name, "description": spec.description, "parameters": thaw(spec.parameters)}
        return ToolResult(call_id=call.id, status="success", content=content)


STRESSOR = ToolSearch
