"""Recall@k of tool search: does ``search_tools(<the user's request>)`` return the tools the turn's gold calls?

For every turn with gold calls, the query is the user's explicit request and the relevant tools are the names on
the turn's primary gold path (core and support). Reported per toolkit and ranker: recall@k (the mean share of a
turn's gold tools in the top k), all@k (turns whose every gold tool is in the top k), core@k (turns whose core
tools all are); per toolkit, the index build time cold (embedding every signature, batched) and warm (from the disk
cache), its memory, and the per-query latency of each part. Each is measured twice: one search per request, and
one per sentence of it (most multidomain requests are "X. Also, Y.": an agent searches for each).

Rankers, side by side on the same queries: ``embedding`` (MiniLM cosine over signatures: the old default),
``lexical`` (BM25 over ``lexical_text``), ``hybrid`` (the new default: ``HybridRanker``, BM25's share
``LEXICAL_SHARE``). ``--share`` adds hybrids with other shares (the tuning sweep), ``--rrf`` the reciprocal-rank
fusion of the cosine and BM25 (``rrf``: tried, not adopted; docs/sql-worlds.md#tool-search-at-scale).

Toolkits (``tool_search_toolkits.py``): a world's own tools; ``synthetic`` and ``spider`` (a Spider-layout folder),
each ``plain`` or ``obfuscated``, cut to ``--tools`` (4,000):

    .venv/bin/python scripts/tool_search_recall.py --toolkit synthetic --toolkit spider --obfuscated --tools 4000

``--misses FILE`` writes every gold tool the default ranker (hybrid) leaves out of the top k, one search per
request: the query, the tool, its rank, the k tools above it and what each is to it; a summary of the misses by
class is printed (``tool_search_misses.py`` says how they are classified). One file per toolkit: ``FILE``
with the toolkit's label added before the suffix (``misses.jsonl`` -> ``misses-spider.jsonl``).
"""

from __future__ import annotations

import argparse
import random
import re
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tool_search_misses import Miss, miss, summary, write
from tool_search_toolkits import (
    Built,
    Origins,
    Query,
    cut,
    obfuscated_synthetic,
    queries,
    spider,
    synthetic,
    world_origins,
)

from sim.core import ToolSpec
from sim.core.embedding import Embedder, embedding_available
from worlds.registry import load_world
from worlds.stressors.expand.templates import signature
from worlds.stressors.search.index import LEXICAL_SHARE, HybridRanker, IndexCache, lexical_text

SENTENCE = re.compile(r"(?<=[.?!])\s+")
SPIDER = Path(__file__).resolve().parents[2] / "shared" / "data" / "spider"


def toolkit(name: str, obfuscated: bool, spider_dir: Path) -> Built:
    if name == "synthetic":
        return obfuscated_synthetic() if obfuscated else synthetic()
    if name == "spider":
        return spider(spider_dir, obfuscated)
    pack = load_world(name)
    return pack.tool_specs(), queries(pack.tasks()), world_origins(name, "own")


def top(scores: np.ndarray, k: int) -> set[int]:
    return set(np.argpartition(-scores, k - 1)[:k].tolist()) if k < len(scores) else set(range(len(scores)))


def measure(
    specs: list[ToolSpec],
    asks: list[Query],
    shares: list[float],
    k: int,
    cache_dir: Path | None = None,
    misses: Callable[[str, set[str], set[str], np.ndarray], None] | None = None,
    rrf: bool = False,
) -> list[dict[str, object]]:
    """One row per (split, ranker): every query's embedding and BM25 scores computed once, every ranker read off.
    ``misses`` is handed each request's hybrid scores (one search per request)."""
    names = [s.name for s in specs]
    embedder = Embedder(max_cache=0)  # no text cache: a query seen before must not look instant
    embedder.encode(["load the model"])
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with tempfile.TemporaryDirectory() as tmp:
        cache = cache_dir or tmp  # a kept cache: "cold" reads a matrix built before
        texts, words = [signature(s) for s in specs], [lexical_text(s) for s in specs]
        started = time.perf_counter()  # cold: embeds every signature, builds BM25
        IndexCache().get(texts, "hybrid", Path(cache), embedder.encode_batched, words)
        cold = time.perf_counter() - started
        grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss
        started = time.perf_counter()  # warm: what a new process does (reads the .npy)
        index = IndexCache().get(texts, "hybrid", Path(cache), embedder.encode, words)
        warm = time.perf_counter() - started
    assert isinstance(index, HybridRanker)
    build: dict[str, object] = {"tools": len(specs), "queries": len(asks), "build_cold_s": round(cold, 1),
                                "build_warm_s": round(warm, 3), "build_rss_mb": round(grown / 1024),
                                "matrix_mb": round(index.embedding.matrix.nbytes / 2**20, 1)}  # fmt: skip
    rows: list[dict[str, object]] = []
    seen: dict[str, np.ndarray] = {}
    dense_ms: list[float] = []
    bm25_ms: list[float] = []
    for split in (False, True):
        found: dict[str, list[tuple[set[str], set[str], set[str]]]] = {}
        for request, gold, core in asks:
            tops: dict[str, set[str]] = {}
            for part in SENTENCE.split(request) if split else [request]:
                if (dense := seen.get(part)) is None:  # a sentence that is a whole request: embedded once
                    started = time.perf_counter()
                    dense = seen[part] = index.embedding.scores(part)
                    dense_ms.append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                lexical = index.lexical.scores(part)
                bm25_ms.append((time.perf_counter() - started) * 1000)
                for ranker, scores in rankings(dense, lexical, shares, rrf):
                    tops.setdefault(ranker, set()).update(names[i] for i in top(scores, k))
                    if misses is not None and not split and ranker == "hybrid":
                        misses(request, gold, core, scores)
            for ranker, got in tops.items():
                found.setdefault(ranker, []).append((gold, core, got))
        for ranker, hits in found.items():
            rows.append({"per": "sentence" if split else "request", "ranker": ranker, **score(hits, k),
                         "query_ms_p50": round(statistics.median(dense_ms) + statistics.median(bm25_ms), 2),
                         "embed_ms_p50": round(statistics.median(dense_ms), 2),
                         "bm25_ms_p50": round(statistics.median(bm25_ms), 3)})  # fmt: skip
    return [build, *rows]


def miss_collector(
    specs: list[ToolSpec], origins: Origins, k: int, sink: list[Miss]
) -> Callable[[str, set[str], set[str], np.ndarray], None]:
    """A ``measure`` callback adding to ``sink`` every gold tool a request's scores leave out of the top ``k``."""
    names = [s.name for s in specs]

    def record(request: str, gold: set[str], core: set[str], scores: np.ndarray) -> None:
        ranked = [names[i] for i in np.argsort(-scores, kind="stable")]  # ties by row, as search_tools breaks them
        sink.extend(miss(request, g, gold, core, ranked, origins, k) for g in sorted(gold - set(ranked[:k])))

    return record


def rankings(
    dense: np.ndarray, lexical: np.ndarray, shares: list[float], rrf: bool = False
) -> list[tuple[str, np.ndarray]]:
    best = float(lexical.max()) if len(lexical) else 0.0
    out = [("embedding", dense), ("lexical", lexical)]
    for share in shares:
        fused = dense if best <= 0 else (1 - share) * dense + share * lexical / best  # HybridRanker.scores
        out.append(("hybrid" if share == LEXICAL_SHARE else f"hybrid@{share:g}", fused))
    if rrf:
        out.append(("rrf", reciprocal_rank_fusion(dense, lexical)))
    return out


RRF_K = 60
"""The usual constant of reciprocal-rank fusion (Cormack et al. 2009): damps the weight of the very first ranks."""


def reciprocal_rank_fusion(*scores: np.ndarray) -> np.ndarray:
    """``sum 1 / (RRF_K + rank)`` over the rankings: only the order of each counts, not its scale."""
    fused = np.zeros(len(scores[0]), dtype=np.float64)
    for one in scores:
        ranks = np.empty(len(one), dtype=np.int64)
        ranks[np.argsort(-one, kind="stable")] = np.arange(1, len(one) + 1)
        fused += 1.0 / (RRF_K + ranks)
    return fused


def score(hits: list[tuple[set[str], set[str], set[str]]], k: int) -> dict[str, float]:
    return {
        f"recall@{k}": round(statistics.mean(len(g & got) / len(g) for g, _, got in hits), 3),
        f"all@{k}": round(sum(g <= got for g, _, got in hits) / len(hits), 3),
        f"core@{k}": round(sum(c <= got for _, c, got in hits) / len(hits), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--toolkit", action="append", help="synthetic, spider or a world (default multidomain)")
    parser.add_argument("--obfuscated", action="store_true", help="also each toolkit obfuscated")
    parser.add_argument("--tools", type=int, default=0, help="cut each toolkit to this many tools (0: all)")
    parser.add_argument("--spider", type=Path, default=SPIDER, help="a Spider-layout folder (database/, dev.json)")
    parser.add_argument("--share", type=float, action="append", default=[], help="more hybrid shares to compare")
    parser.add_argument("--queries", type=int, default=0, help="a seeded sample of this many queries (0: all)")
    parser.add_argument("--obfuscated-only", action="store_true", help="each toolkit obfuscated, not plain")
    parser.add_argument("--cache", type=Path, help="keep the embeddings in this folder (default: a fresh one)")
    parser.add_argument("--k", type=int, default=9)
    parser.add_argument("--rrf", action="store_true", help="also reciprocal-rank fusion of the cosine and BM25")
    parser.add_argument("--misses", type=Path, help="write the hybrid's misses here (JSON lines), print their classes")
    args = parser.parse_args()
    if (reason := embedding_available()) is not None:
        sys.exit(f"the embedding and hybrid rankers cannot run here: {reason}")
    shares = sorted({LEXICAL_SHARE, *args.share})
    for name in args.toolkit or ["multidomain"]:
        variants = (True,) if args.obfuscated_only else (False, True) if args.obfuscated else (False,)
        for obfuscated in variants:
            specs, asks, origins = toolkit(name, obfuscated, args.spider)
            if args.queries and args.queries < len(asks):  # before the cut: it keeps the sample's gold tools
                asks = random.Random(0).sample(asks, args.queries)
            specs = cut(specs, asks, args.tools) if args.tools else specs
            found: list[Miss] = []
            record = miss_collector(specs, origins, args.k, found) if args.misses else None
            build, *rows = measure(specs, asks, shares, args.k, args.cache, record, args.rrf)
            label = f"{name}{' obfuscated' if obfuscated else ''}"
            print(f"{label:22} " + "  ".join(f"{key}={value}" for key, value in build.items()), flush=True)
            for row in rows:
                print(f"{label:22} " + "  ".join(f"{key}={value}" for key, value in row.items()), flush=True)
            if args.misses:
                path = args.misses.with_name(f"{args.misses.stem}-{label.replace(' ', '-')}{args.misses.suffix}")
                write(found, path)
                print("\n".join(f"{label:22} {line}" for line in [*summary(found, len(asks), args.k), f"-> {path}"]))


if __name__ == "__main__":
    main()
