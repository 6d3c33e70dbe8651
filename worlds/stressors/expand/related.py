"""The related-tool pool of ANY world, filtered as the shipped catalogs are: what ``expand.plus_N`` draws from.

In order of preference:

1. the world's shipped catalog (``data/expand/<world>.json``) when it describes the specs (most of them are its
   originals or its neighbours, which an earlier expansion in a stack offered);
2. a catalog built from the specs themselves by the same generator (``build.build_catalog``: templated neighbours,
   each kept only when its MiniLM similarity to every original is below 0.8, ranked by similarity), cached on disk
   as ``<cache dir>/<world>-<digest>.json``. The digest covers the embedder (batched, and which erf it runs), the
   threshold, every original's signature and every templated candidate, so a changed world or template never reads
   a stale file. Built once per tool set on first use (in padded batches: an imported Spider world takes about a
   minute on two cores one sentence at a time), or before a run with ``squall stressors expand --world FOLDER``;
3. without the ``[embed]`` extra (or with ``ranker=lexical``): the templated neighbours ranked by BM25 (the tool
   search's lexical ranker) against each original's signature, UNFILTERED, as tool search falls back.

A world whose tasks each have their own toolkit (``Goal.tools``; BFCL's entries) has related tools of its own: the
functions of its other tasks. Their pool (``templated=False``) holds the world's functions alone (``world_tools``),
ranked by the same embedding, with each one's near originals (similarity >= 0.8: the same function under another
name) so a task is never offered a twin of its own tools; BM25-ranked and unfiltered without the extra.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from sim.core import ToolSpec
from sim.core.minilm import bulk_erf_name
from worlds.stressors.expand.build import DEFAULT_THRESHOLD, EMBEDDER, Encoder, build_catalog, write_catalog
from worlds.stressors.expand.templates import Candidate, signature, templated_candidates
from worlds.stressors.expand.toolkit import ExpandCatalog, ToolPool, catalog_pool, shipped_pool
from worlds.stressors.search.index import LexicalRanker, resolve_ranker


def default_cache_dir() -> Path:
    """``$SQUALL_EXPAND_CACHE_DIR``, else ``<repo>/.cache/expand`` (git-ignored)."""
    configured = os.environ.get("SQUALL_EXPAND_CACHE_DIR")
    return Path(configured) if configured else Path(__file__).resolve().parents[3] / ".cache" / "expand"


def catalog_digest(
    specs: Sequence[ToolSpec], candidates: Sequence[Candidate], threshold: float, templated: bool = True
) -> str:
    """What a built catalog depends on: a different embedder, threshold, tool, template or kind of pool gives another
    file (``near``: files from before the catalogs recorded near originals are not read; ``batched``: vectors from
    ``encode_batched``, whose last bits depend on the erf it runs)."""
    kind = f"{'templated' if templated else 'originals'}\0batched/{bulk_erf_name()}"
    digest = hashlib.sha256(f"{EMBEDDER}\0{threshold}\0near\0{kind}".encode())
    for spec in specs:
        digest.update(b"\0o" + signature(spec).encode())
    for candidate in candidates:
        digest.update(b"\0c" + candidate.model_dump_json().encode())
    return digest.hexdigest()[:16]


class _BatchedEncoder:
    """An encoder's ``encode_batched`` as its ``encode``: a catalog embeds every signature once, and batches of
    similar length ran 1.1-1.35x faster than one sentence at a time here (the same vectors to float rounding; a cold
    build of the spec stressors' multidomain catalogs took 57 s instead of 95)."""

    def __init__(self, encode_batched: Callable[[Sequence[str]], np.ndarray]) -> None:
        self.encode = encode_batched


def _bulk(encoder: Encoder) -> Encoder:
    batched = getattr(encoder, "encode_batched", None)
    return _BatchedEncoder(batched) if callable(batched) else encoder


def cached_catalog_path(world: str, specs: Sequence[ToolSpec], directory: Path, templated: bool = True) -> Path:
    safe = "".join(c if c.isalnum() or c in "_.-" else "_" for c in world)[:80] or "world"
    candidates = templated_candidates(specs) if templated else []
    return directory / f"{safe}-{catalog_digest(specs, candidates, DEFAULT_THRESHOLD, templated)}.json"


def cached_catalog(
    world: str, specs: Sequence[ToolSpec], directory: Path, encoder: Encoder | None = None, templated: bool = True
) -> tuple[ExpandCatalog, bool]:
    """The filtered catalog of these specs and whether it came from the disk cache; built and saved when absent.
    Needs the ``[embed]`` extra unless ``encoder`` is given (tests). ``templated=False``: the specs alone. An
    encoder with ``encode_batched`` (``Embedder``) embeds in batches."""
    path = cached_catalog_path(world, specs, directory, templated)
    if path.is_file():
        try:
            return ExpandCatalog.model_validate_json(path.read_text(encoding="utf-8")), True
        except ValueError:
            pass  # a file from an older format: rebuilt below
    if encoder is None:
        from sim.core.embedding import Embedder  # the model is mapped here, only when a catalog must be built

        encoder = Embedder()
    catalog = build_catalog(world, specs, _bulk(encoder), DEFAULT_THRESHOLD, templated=templated)
    path.parent.mkdir(parents=True, exist_ok=True)
    written = write_catalog(catalog, path.parent)
    if written != path:  # write_catalog names the file after the world; the cache names it after the digest too
        written.replace(path)
    return catalog, False


class Bm25Pool(ToolPool):
    """Templated neighbours ranked by BM25 against each original's signature: no torch, no similarity filter."""

    def __init__(self, specs: Sequence[ToolSpec], templated: bool = True) -> None:
        candidates = templated_candidates(specs) if templated else []
        super().__init__((s.name for s in specs), candidates, filtered=False)
        self._names = [s.name for s in specs] + [c.spec.name for c in candidates]
        self._queries = {s.name: signature(s) for s in specs}
        self._ranker = LexicalRanker.build([*self._queries.values(), *(signature(c.spec) for c in candidates)])

    def ranked(self, original: str) -> Sequence[str]:
        found = self._related.get(original)
        if found is None:
            query = self._queries.get(original, original.replace("_", " "))
            hits = self._ranker.rank(query, len(self._names))  # best first, ties in pool order
            found = [self._names[i] for i, _ in hits if self._names[i] != original]
            self._related[original] = found
        return found


@lru_cache(maxsize=16)
def _built_pool(world: str, specs: tuple[ToolSpec, ...], directory: Path, templated: bool) -> ToolPool:
    catalog, _ = cached_catalog(world, specs, directory, templated=templated)
    return catalog_pool(catalog)


@lru_cache(maxsize=16)
def _bm25_pool(specs: tuple[ToolSpec, ...], templated: bool) -> ToolPool:
    return Bm25Pool(specs, templated)


def related_pool(
    world: str | None,
    specs: Sequence[ToolSpec],
    ranker: str = "auto",
    directory: Path | None = None,
    templated: bool = True,
) -> tuple[ToolPool, str | None]:
    """The pool for these specs, shared by the episodes of a process, and why it is not the filtered one (None
    when it is). ``ranker``: auto (embeddings where they run), embedding (an error without them) or lexical.
    ``templated=False``: the specs alone (a world's functions as each other's related tools), never a shipped
    catalog's synthetic neighbours."""
    shipped = shipped_pool(world) if world and templated else None
    # It describes the specs when most are its tools: its originals, or its neighbours an earlier expansion offered.
    if shipped is not None:
        known = sum(s.name in shipped.originals or s.name in shipped.candidates for s in specs)
        if 2 * known >= len(specs):
            return shipped, None
    chosen, reason = resolve_ranker(ranker)
    if chosen == "lexical":
        return _bm25_pool(tuple(specs), templated), reason or "lexical ranking asked for: BM25, unfiltered"
    return _built_pool(world or "world", tuple(specs), directory or default_cache_dir(), templated), None


@lru_cache(maxsize=8)
def world_tools(world: str) -> tuple[ToolSpec, ...] | None:
    """Every function of the world a spec names (``WorldPack.tool_specs``: what any of its tasks may be offered),
    or None when the registry cannot load it (a task file's own world name, an unusable path)."""
    from worlds.registry import WorldLoadError, load_world  # a world's package, only when its tools are asked for

    if world.startswith(("http://", "https://")):
        return None  # a served world is not asked again from inside an episode
    try:
        return tuple(load_world(world).tool_specs())
    except WorldLoadError:
        return None
