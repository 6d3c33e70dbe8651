"""Which tools an expanded toolkit holds: a pool of related tools per world, and the closed-world choice from it.

A pool is the world's own tools plus related-but-different candidates, with a ranking of the pool's tools by how
related they are to each original. It comes from the world's shipped catalog (``data/expand/<world>.json``, built
offline by ``worlds.stressors.expand.build``: candidates filtered by embedding similarity, ranked by it) when there
is one that fits; otherwise it is written on the fly from the specs with the templates and ranked by word overlap.
That fallback needs no torch and works for any world, but it is UNFILTERED: nothing checks that a candidate is not
equivalent to an original, so ship a catalog for a world that matters.
"""

from __future__ import annotations

import random
import re
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from pydantic import Field

from sim.core import ToolSpec
from sim.core.tools import Frozen
from worlds.stressors.expand.templates import Candidate, object_words, signature, templated_candidates

CATALOG_DIR = Path(__file__).resolve().parent.parent / "data" / "expand"
RANKED = 100
"""Related tools kept per original in a catalog: enough for the largest shipped size (81) from one anchor."""
_WORLD_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,100}$")
_STOPWORDS = frozenset(
    {
        "a",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "one",
        "or",
        "the",
        "their",
        "this",
        "to",
        "with",
    }
)


class Rejection(Frozen):
    """A candidate the embedding filter removed: too close to an original to count as a different tool."""

    name: str
    source: str
    origin: str
    similarity: float
    nearest: str


class ExpandCatalog(Frozen):
    """A world's shipped pool (``data/expand/<world>.json``)."""

    world: str
    embedder: str = Field(description="The sentence embedder similarities were measured with.")
    threshold: float = Field(description="Candidates kept have a similarity below this to every original.")
    originals: list[str] = Field(description="The world's tool names, in spec order.")
    candidates: list[Candidate] = Field(description="Kept candidates, each with its similarity and nearest original.")
    rejected: list[Rejection] = Field(default_factory=list, description="What the filter removed, for the record.")
    related: dict[str, list[int]] = Field(
        description="Per original: indices into originals + candidates, most similar first (itself left out)."
    )
    near: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Per original: the other originals whose similarity to it is at or above the threshold (the "
        "same function under another name: never offered beside it as a different tool). Recorded in a pool of "
        "the originals alone (templated=False), written only when any.",
    )


class ToolPool:
    """Originals, candidates and a relatedness ranking per original; shared by every episode of a world."""

    def __init__(
        self,
        originals: Iterable[str],
        candidates: Iterable[Candidate],
        related: Mapping[str, Sequence[str]] | None = None,
        texts: Mapping[str, str] | None = None,
        filtered: bool | None = None,
        near: Mapping[str, Collection[str]] | None = None,
    ) -> None:
        """``filtered``: the candidates passed the embedding filter (default: a catalog's ranking is given);
        ``near``: per original, the originals too similar to it to count as different tools (a catalog's)."""
        self.originals = frozenset(originals)
        self.near: dict[str, frozenset[str]] = {o: frozenset(n) for o, n in (near or {}).items()}
        self.candidates: dict[str, Candidate] = {c.spec.name: c for c in candidates}
        self.filtered = related is not None if filtered is None else filtered
        self._related: dict[str, Sequence[str]] = dict(related or {})
        self._tokens = {name: _tokens(text) for name, text in (texts or {}).items()}

    def ranked(self, original: str) -> Sequence[str]:
        """Pool tools most related to ``original`` first; lexical (computed once, then kept) without a catalog."""
        found = self._related.get(original)
        if found is None:
            mine = self._tokens.get(original, frozenset())
            others = [n for n in self._tokens if n != original]
            scores = [_overlap(mine, self._tokens[n]) for n in others]
            # Stable: pool order on ties (the index breaks them, as sorted's stability did on the overlap alone).
            found = [n for _, _, n in sorted(zip([-s for s in scores], range(len(others)), others, strict=True))]
            self._related[original] = found
        return found


@lru_cache(maxsize=8192)  # the same signatures recur in every episode's pool
def _tokens(text: str) -> frozenset[str]:
    return frozenset(w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _STOPWORDS)


def _overlap(a: frozenset[str], b: frozenset[str]) -> float:
    if a.isdisjoint(b):
        return 0.0  # most pairs: what the division below gives them, without building two sets
    shared = len(a & b)
    return shared / (len(a) + len(b) - shared)  # len(a | b)


@cache
def shipped_catalog(world: str) -> ExpandCatalog | None:
    """The catalog shipped for ``world``, or None."""
    if not _WORLD_NAME.match(world):
        return None
    path = CATALOG_DIR / f"{world}.json"
    return ExpandCatalog.model_validate_json(path.read_text(encoding="utf-8")) if path.is_file() else None


def catalog_pool(catalog: ExpandCatalog) -> ToolPool:
    """A catalog as a pool: its indices turned into names."""
    names = [*catalog.originals, *(c.spec.name for c in catalog.candidates)]
    related = {o: [names[i] for i in indices] for o, indices in catalog.related.items()}
    return ToolPool(catalog.originals, catalog.candidates, related, near=catalog.near)


@cache
def shipped_pool(world: str) -> ToolPool | None:
    """The shipped catalog of ``world`` as a pool (built once per process), or None."""
    catalog = shipped_catalog(world)
    return None if catalog is None else catalog_pool(catalog)


@lru_cache(maxsize=16)
def lexical_pool(specs: tuple[ToolSpec, ...]) -> ToolPool:
    """Templated candidates for any specs, ranked by word overlap of signatures: no torch, no filter."""
    candidates = templated_candidates(specs)
    texts = {s.name: signature(s) for s in specs} | {c.spec.name: signature(c.spec) for c in candidates}
    return ToolPool((s.name for s in specs), candidates, texts=texts)


def pool_for(world: str | None, specs: Sequence[ToolSpec]) -> ToolPool:
    """The shipped pool of ``world`` when it describes these specs (most of their names are its originals: a world
    renamed, or one that shares a name, gets the fallback), else the lexical fallback."""
    pool = shipped_pool(world) if world else None
    if pool is not None and 2 * sum(s.name in pool.originals for s in specs) >= len(specs):
        return pool
    return lexical_pool(tuple(specs))


@dataclass(frozen=True)
class Toolkit:
    """One episode's closed world."""

    specs: list[ToolSpec]
    """What the agent reads, in a seeded order."""
    offered: dict[str, Candidate]
    """The tools among them the world does not answer, by name (synthetic neighbours, or world tools this episode's
    world lacks): the stressor answers these."""
    hidden: frozenset[str]
    """World tools left out (the runtime refuses calls to tools outside the toolkit)."""


def choose_toolkit(
    specs: Sequence[ToolSpec], needed: Mapping[str, frozenset[str]], pool: ToolPool, size: int, rng: random.Random
) -> Toolkit:
    """``max(size, pinned)`` tools: the pinned ones (every needed tool the specs have, the likely originals of one
    they lack (``renamed_from``), and tools the pool does not know, which an earlier stressor added), then the most
    related pool tools, taken in turn from each needed tool's ranking (in a seeded order) so every needed tool gets
    neighbours; seeded leftovers if the rankings run dry.

    A candidate is offered only beside its source (the source is among the specs), never under the name of a real
    function or of one the gold calls; one documenting its source (``help``) only when the source is in the toolkit."""
    by_name = {s.name: s for s in specs}
    known = [n for n in by_name if n in pool.originals]
    # Never under a name in use: a real function's, or one the gold calls that an earlier stressor translates.
    offerable = {
        n: c for n, c in pool.candidates.items() if n not in by_name and n not in needed and c.source in by_name
    }
    guessed = {o for n, args in needed.items() if n not in by_name for o in renamed_from(n, args, specs)}
    anchors = [n for n in known if n in needed or n in guessed]
    chosen: dict[str, None] = dict.fromkeys([*anchors, *(n for n in by_name if n not in pool.originals)])
    target = max(size, len(chosen))

    def usable(name: str) -> bool:
        if name in chosen:
            return False
        if name in by_name:
            return name in pool.originals
        candidate = offerable.get(name)
        return candidate is not None and (candidate.answer.kind != "help" or candidate.source in chosen)

    order = anchors or known
    order = rng.sample(order, len(order))
    rankings: list[Iterator[str]] = [iter(pool.ranked(a)) for a in order]
    while rankings and len(chosen) < target:
        for ranking in list(rankings):
            picked = next((n for n in ranking if usable(n)), None)
            if picked is None:
                rankings.remove(ranking)
            else:
                chosen[picked] = None
            if len(chosen) >= target:
                break
    leftovers = [n for n in [*known, *offerable] if usable(n)]
    for name in rng.sample(leftovers, len(leftovers)):
        if len(chosen) >= target:
            break
        if usable(name):
            chosen[name] = None
    names = rng.sample(list(chosen), len(chosen))
    offered = {n: offerable[n] for n in names if n in offerable}
    return Toolkit(
        specs=[by_name[n] if n in by_name else offered[n].spec for n in names],
        offered=offered,
        hidden=frozenset(n for n in known if n not in chosen),
    )


def renamed_from(name: str, arguments: frozenset[str], specs: Sequence[ToolSpec]) -> list[str]:
    """The specs a needed tool missing from them was likely renamed from by an earlier stressor (schema drift shows
    the old name and translates calls to the new one back to it, so the old one must stay): those that take every
    argument its gold passes and share the most subject words with its name, all of them on a tie.
    (``activate_scene_v2`` -> activate_scene; ``fetch_stock_quote`` -> get_stock_quote.)"""

    def subject(tool: str) -> frozenset[str]:
        return frozenset(w for w in object_words(tool) if not re.fullmatch(r"v[0-9]+", w))

    wanted = subject(name)
    scored = [
        (_overlap(wanted, subject(s.name)), s.name)
        for s in specs
        if arguments <= set(s.parameters.get("properties", {}))
    ]
    best = max((score for score, _ in scored), default=0.0)
    return [n for score, n in scored if score == best] if best > 0 else []
