"""Hybrid tool search: BM25 over names, descriptions and arguments, fused with the embedding cosine. The BM25 and
fusion checks run offline with stand-in encoders; the recall check on a Spider-layout toolkit runs MiniLM
(skipped where the ``[embed]`` extra is absent)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sim.core import ToolSpec
from sim.core.embedding import embedding_available
from tests.support.paths import REPO_ROOT
from worlds.stressors.expand.templates import signature
from worlds.stressors.search.index import (
    EmbeddingRanker,
    HybridRanker,
    IndexCache,
    LexicalRanker,
    default_cache_dir,
    lexical_text,
    resolve_ranker,
    tokens,
)


def tool(name: str, description: str, **arguments: str) -> ToolSpec:
    properties = {arg: {"type": "string", "description": about} for arg, about in arguments.items()}
    return ToolSpec(name=name, description=description, parameters={"type": "object", "properties": properties})


def test_bm25_ranks_a_rare_word_above_a_common_one() -> None:
    bm25 = LexicalRanker.build(["refund order", "order status", "order history", "ship order"])
    assert bm25.rank("order refund", 1)[0][0] == 0  # "refund" is in one text, "order" in all four
    scores = bm25.scores("order")
    assert len(set(scores.tolist())) == 1 and scores[0] > 0  # a word in every text still counts, equally here


def test_bm25_prefers_the_shorter_text_for_the_same_match() -> None:
    bm25 = LexicalRanker.build(["invoice total " + "padding words " * 10, "invoice total"])
    assert [row for row, _ in bm25.rank("invoice", 2)] == [1, 0]


def test_bm25_repeats_saturate() -> None:
    bm25 = LexicalRanker.build(["alarm " * 50, "alarm clock", "clock face"])
    once, many = bm25.scores("alarm")[1], bm25.scores("alarm")[0]
    assert many < 2.5 * once  # k1 bounds a term's weight: fifty repeats are not fifty matches


def test_bm25_scores_nothing_for_unknown_words_and_breaks_ties_by_row() -> None:
    bm25 = LexicalRanker.build(["a b", "c d"])
    assert bm25.rank("zzz", 2) == [(0, 0.0), (1, 0.0)]


def test_lexical_text_splits_names_and_reads_argument_descriptions() -> None:
    spec = tool("getCustomerInvoices", "List invoices.", account_ref="The customer's billing account number.")
    words = tokens(lexical_text(spec))
    assert {"customer", "invoice", "account", "ref", "billing", "number"} <= set(words)
    assert "billing" not in tokens(signature(spec))  # the signature names the argument, not what it means


class _SameVector:
    """An embedder that sees every text alike: the cosine cannot tell any tool from another."""

    def __call__(self, texts: Any) -> np.ndarray:
        return np.ones((len(texts), 4), dtype=np.float32) / 2


def test_the_hybrid_finds_what_the_embedding_alone_misses() -> None:
    specs = [tool(f"tool_{i}", f"Reads record kind {i}.") for i in range(20)]
    specs.append(tool("get_lease", "Reads one lease.", lease_id="The lease's id."))
    texts, words = [signature(s) for s in specs], [lexical_text(s) for s in specs]
    encode = _SameVector()
    dense = EmbeddingRanker(np.asarray(encode(texts)), encode)
    hybrid = HybridRanker(dense, LexicalRanker.build(words))
    assert 20 not in [row for row, _ in dense.rank("show me the lease", 9)]  # all tied: table order
    assert hybrid.rank("show me the lease", 1)[0][0] == 20


def test_the_hybrid_falls_back_to_the_cosine_when_no_word_matches() -> None:
    rng = np.random.default_rng(0)
    matrix = rng.normal(size=(5, 8)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)

    def encode(texts: Any) -> np.ndarray:
        return matrix[[3] * len(texts)]

    dense = EmbeddingRanker(matrix, encode)
    hybrid = HybridRanker(dense, LexicalRanker.build(["a b", "c d", "e f", "g h", "i j"]))
    assert hybrid.rank("zzz", 5) == dense.rank("zzz", 5)


def test_the_index_cache_builds_a_hybrid_from_signatures_and_lexical_texts(tmp_path: Path) -> None:
    specs = [tool("get_lease", "Reads one lease."), tool("get_deed", "Reads one deed.", parcel="Land parcel code.")]
    built = IndexCache().get([signature(s) for s in specs], "hybrid", tmp_path, _SameVector(),
                             [lexical_text(s) for s in specs])  # fmt: skip
    assert isinstance(built, HybridRanker) and built.rank("land parcel", 1)[0][0] == 1


def test_auto_means_hybrid_where_embeddings_run() -> None:
    expected = ("hybrid", None) if embedding_available() is None else ("lexical",)
    assert resolve_ranker("auto")[: len(expected)] == expected
    with pytest.raises(ValueError, match="unknown ranker"):
        resolve_ranker("magic")


@pytest.mark.embedding
@pytest.mark.skipif(embedding_available() is not None, reason=str(embedding_available()))
@pytest.mark.slow
def test_the_recall_script_on_the_shipped_sample_shows_the_hybrid_beating_the_embedding() -> None:
    """The documented command, small: the shipped Spider-layout sample per question + SEL + templated neighbours
    (547 tools, 21 questions), plain and obfuscated. recall@3 plain, measured: hybrid 0.524 (11 of 21), the
    embedding alone 0.333 (7); the bound sits between them. The obfuscated toolkit is only checked to report its
    rankers, so it runs cut to its gold tools and a few distractors (its longer signatures were most of the
    embedding time); the signatures' vectors are kept in the tool index's disk cache, as tool search keeps them."""
    script = REPO_ROOT / "scripts" / "tool_search_recall.py"
    sample = REPO_ROOT / "worlds" / "sql" / "sample"
    common = [sys.executable, str(script), "--toolkit", "spider", "--spider", str(sample), "--k", "3"]
    common += ["--cache", str(default_cache_dir())]
    lines = _recall_lines(common) + _recall_lines([*common, "--obfuscated-only", "--tools", "64"])
    rows = [line for line in lines if "ranker" in line]
    assert {(r["ranker"], r["obfuscated"]) for r in rows} >= {("embedding", True), ("hybrid", True), ("lexical", False)}
    plain = {r["ranker"]: float(r["recall@3"]) for r in rows if r["per"] == "request" and not r["obfuscated"]}
    assert plain["hybrid"] >= 0.5 > plain["embedding"], plain
    sizes = [(line["tools"], line["obfuscated"]) for line in lines if "tools" in line]
    assert sizes == [("547", False), ("64", True)], sizes  # the plain bound is measured on the whole sample


def _recall_lines(command: list[str]) -> list[dict[str, Any]]:
    """The script's report, a dict per line: the index build's (``tools=``), then one per split and ranker."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, check=True, cwd=REPO_ROOT)
    return [dict(w.split("=", 1) for w in line.split() if "=" in w) | {"obfuscated": "obfuscated" in line}
            for line in done.stdout.splitlines() if "ranker=" in line or "tools=" in line]  # fmt: skip


@pytest.mark.embedding
@pytest.mark.skipif(embedding_available() is not None, reason=str(embedding_available()))
def test_batched_encoding_gives_each_text_its_own_vector() -> None:
    from sim.core.embedding import Embedder

    texts = ["lamp", "Turn the bedroom lamp off at ten tonight, please.", "get_weather(city): Today's weather.", ""]
    embedder = Embedder(max_cache=0)
    alone, batched = embedder.encode(texts), embedder.encode_batched(texts)
    assert batched.shape == alone.shape and np.abs(batched - alone).max() < 1e-5  # padding changes nothing
