"""Which BFCL categories squall runs, which it cannot, and why.

A world spec is ``bfcl:<category>``, the category being BFCL's data file name without ``BFCL_v4_``.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from worlds.bfcl.source import BfclError, count_lines, data_file

SCHEME = "bfcl:"
MULTI_TURN: tuple[str, ...] = (
    "multi_turn_base",
    "multi_turn_miss_func",
    "multi_turn_miss_param",
    "multi_turn_long_context",
)
MULTI_TURN_ALL = "multi_turn"
"""The four multi-turn categories in one world."""
SINGLE_TURN: tuple[str, ...] = (
    "simple_python",
    "multiple",
    "parallel",
    "parallel_multiple",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "irrelevance",
    "live_irrelevance",
    "live_relevance",
)
ALIASES: MappingProxyType[str, str] = MappingProxyType({"simple": "simple_python"})
NOT_SUPPORTED: MappingProxyType[str, str] = MappingProxyType(
    {
        "simple_java": "Java functions: BFCL checks Java-typed arguments written as strings; squall runs Python tools",
        "simple_javascript": "JavaScript functions: arguments checked as JavaScript source strings, not Python values",
        "web_search": "needs live web search (a search engine API and fetched pages); squall runs offline",
        "memory": "needs BFCL's memory backends (vector store, sentence-transformers, faiss) and prerequisite "
        "conversations run first",
        "format_sensitivity": "varies BFCL's prompting output format (python, json, xml), which squall's agents do not "
        "use: a squall agent calls tools natively or through its own text protocol",
    }
)
"""Category -> why squall cannot run it (shown by ``squall worlds list`` and in the error for ``bfcl:<it>``)."""

Kind = Literal["multi_turn", "single_turn"]


@dataclass(frozen=True)
class Selection:
    """What a spec names: its kind and the BFCL categories (data files) it covers."""

    kind: Kind
    categories: tuple[str, ...]


def select(spec: str) -> Selection:
    """The categories a ``bfcl:`` spec names. Raises BfclError for an unsupported or unknown category."""
    name = spec.removeprefix(SCHEME)
    if name == MULTI_TURN_ALL:
        return Selection("multi_turn", MULTI_TURN)
    if name in MULTI_TURN:
        return Selection("multi_turn", (name,))
    canonical = ALIASES.get(name, name)
    if canonical in SINGLE_TURN:
        return Selection("single_turn", (canonical,))
    if name in NOT_SUPPORTED:
        raise BfclError(f"{spec}: not supported: {NOT_SUPPORTED[name]}")
    raise BfclError(f"{spec}: unknown BFCL category; known: {', '.join(world_names())}")


def world_names() -> list[str]:
    """Every spec squall runs (``bfcl:multi_turn`` and each category, aliases too)."""
    names = [MULTI_TURN_ALL, *MULTI_TURN, *SINGLE_TURN, *ALIASES]
    return [SCHEME + name for name in names]


def entry_count(category: str) -> int | None:
    """How many entries a category's data holds (``multi_turn``: all four); None when bfcl-eval is absent."""
    try:
        return sum(count_lines(data_file(c)) for c in select(SCHEME + category).categories)
    except BfclError:
        return None


@dataclass(frozen=True)
class Listing:
    """One row of ``squall worlds list`` for BFCL: a spec, its kind and entry count, or why it is not supported."""

    name: str
    kind: str
    entries: int | None
    """None: bfcl-eval is not installed (or the category is not supported)."""
    reason: str | None = None
    """Why squall cannot run it; None for a supported spec."""


def listing() -> list[Listing]:
    """Every BFCL spec squall knows, supported ones with their entry counts (cheap: lines counted, not parsed)."""
    rows = [Listing(SCHEME + MULTI_TURN_ALL, "multi_turn", entry_count(MULTI_TURN_ALL))]
    rows += [Listing(SCHEME + name, "multi_turn", entry_count(name)) for name in MULTI_TURN]
    rows += [Listing(SCHEME + name, "single_turn", entry_count(name)) for name in SINGLE_TURN]
    rows += [
        Listing(SCHEME + alias, f"single_turn (= {SCHEME}{target})", entry_count(alias))
        for alias, target in ALIASES.items()
    ]
    rows += [Listing(SCHEME + name, "not supported", None, reason) for name, reason in NOT_SUPPORTED.items()]
    return rows
