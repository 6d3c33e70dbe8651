"""A search index over tool signatures: embeddings cached on disk, or a lexical (BM25) fallback.

Each tool is indexed by its signature text, ``name(arg, ...): description`` (what an agent reads). Three rankers:

- ``embedding``: all-MiniLM-L6-v2 (the ``[embed]`` extra, loaded through ``sim.core.embedding``) embeds every signature
  once per tool set, in padded batches; the matrix is saved as ``<dir>/<sha256 of model, version, texts>.npy``
  (written to a temporary file and renamed into place) and reused by every later run. A query is one sentence
  embedded on the fly (~25 ms on CPU), ranked by a dot product with the unit-length rows.
- ``lexical``: BM25 over lower-cased word pieces of the name and description (``set_power`` -> set, power). No torch,
  no disk, built in milliseconds; weaker on paraphrases ("switch off the lamp" does not share a word with
  ``set_power``). Used when the ``[embed]`` extra is absent (``auto``) or when asked for. Given ``lexical_text``
  (name, description, arguments and their descriptions) rather than the signature where the caller has the specs.
- ``hybrid`` (what ``auto`` picks where embeddings run): the cosine plus BM25 scaled to its best hit
  (``HybridRanker``); at 4,000 tools it finds more than either alone (docs/sql-worlds.md#tool-search-at-scale).

Indexes are shared across the episodes of a process (``SHARED``, keyed by ranker and text hash): building one is the
expensive part, a query is not. Nothing maps the model until an embedding index is built or asked a query; a cache
built for more than a few hundred tools says so on stderr, with progress.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import sys
import tempfile
import threading
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Literal, Protocol

import numpy as np

from sim.core import ToolSpec
from sim.core.minilm import bulk_erf_name

RankerName = Literal["embedding", "lexical", "hybrid"]
Encode = Callable[[Sequence[str]], np.ndarray]
MODEL_NAME = "all-MiniLM-L6-v2"
"""Part of the disk-cache key: a different embedder must never read these vectors."""
CACHE_VERSION = "batched-1"
"""Part of the disk-cache key too: batched vectors differ from one-at-a-time ones in the last float bits, and an
index must rank the same whichever build wrote its file."""
_WORD = re.compile(r"[A-Za-z]+|\d+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_STOPWORDS = frozenset(
    {
        *("a", "an", "and", "any", "are", "as", "at", "be", "by", "can", "do", "for", "from", "get", "give", "how"),
        *("i", "in", "is", "it", "its", "me", "my", "of", "on", "or", "please", "some", "that", "the", "their"),
        *("then", "this", "to", "what", "when", "which", "with", "you", "your"),
    }
)


def default_cache_dir() -> Path:
    """``$SQUALL_TOOL_INDEX_DIR``, else ``<repo>/.cache/tool_index`` (git-ignored)."""
    configured = os.environ.get("SQUALL_TOOL_INDEX_DIR")
    return Path(configured) if configured else Path(__file__).resolve().parents[3] / ".cache" / "tool_index"


def texts_digest(texts: Sequence[str], salt: str = "") -> str:
    digest = hashlib.sha256(salt.encode())
    for text in texts:
        digest.update(b"\0" + text.encode())
    return digest.hexdigest()


def lexical_text(spec: ToolSpec) -> str:
    """What BM25 reads of a tool: its name (split into words by ``tokens``), description, and each argument's name
    and description (a signature names the arguments only; their descriptions carry words a request uses)."""
    properties = spec.parameters.get("properties", {})
    arguments = [f"{name} {about.get('description', '') if isinstance(about, dict) else ''}"
                 for name, about in properties.items()]  # fmt: skip
    return " ".join([spec.name, spec.description, *arguments])


def tokens(text: str) -> list[str]:
    """Lower-cased word pieces without stopwords, a plural 's' dropped: ``getWeatherAlerts`` -> get, weather, alert."""
    words = [w.lower() for w in _WORD.findall(_CAMEL.sub(" ", text))]
    return [w[:-1] if len(w) > 3 and w[-1] == "s" and w[-2] != "s" else w for w in words if w not in _STOPWORDS]


class Ranker(Protocol):
    name: RankerName

    def rank(self, query: str, k: int) -> list[tuple[int, float]]:
        """(row, score) of the ``k`` best rows, best first; ties broken by row order (deterministic)."""
        ...


def _top(scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    k = min(k, len(scores))
    if k <= 0:
        return []
    # argpartition keeps the query O(n); a stable sort of the few survivors makes ties deterministic.
    part = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
    order = sorted(part.tolist(), key=lambda i: (-float(scores[i]), i))
    return [(i, float(scores[i])) for i in order]


@dataclass
class EmbeddingRanker:
    matrix: np.ndarray
    """(tools, dim) unit-length float32 rows."""
    encode: Encode
    name: RankerName = "embedding"

    def scores(self, query: str) -> np.ndarray:
        vector = np.asarray(self.encode([query]), dtype=np.float32)[0]
        out: np.ndarray = self.matrix @ vector
        return out

    def rank(self, query: str, k: int) -> list[tuple[int, float]]:
        return _top(self.scores(query), k)


@dataclass
class LexicalRanker:
    """Okapi BM25 (k1=1.2, b=0.75), stored per term as (rows, weights) so a query is a few numpy adds."""

    size: int
    postings: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    name: RankerName = "lexical"

    @classmethod
    def build(cls, texts: Sequence[str], k1: float = 1.2, b: float = 0.75) -> LexicalRanker:
        docs = [Counter(tokens(t)) for t in texts]
        lengths = np.array([sum(d.values()) for d in docs], dtype=np.float32)
        average = float(lengths.mean()) if len(docs) and lengths.mean() > 0 else 1.0
        rows: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for i, doc in enumerate(docs):
            for term, count in doc.items():
                rows[term].append((i, count))
        postings = {}
        for term, hits in rows.items():
            idf = math.log(1 + (len(docs) - len(hits) + 0.5) / (len(hits) + 0.5))
            index = np.array([i for i, _ in hits], dtype=np.int64)
            tf = np.array([f for _, f in hits], dtype=np.float32)
            norm = k1 * (1 - b + b * lengths[index] / average)
            postings[term] = (index, (idf * tf * (k1 + 1) / (tf + norm)).astype(np.float32))
        return cls(size=len(docs), postings=postings)

    def scores(self, query: str) -> np.ndarray:
        scores = np.zeros(self.size, dtype=np.float32)
        for term in set(tokens(query)):
            if (hit := self.postings.get(term)) is not None:
                scores[hit[0]] += hit[1]
        return scores

    def rank(self, query: str, k: int) -> list[tuple[int, float]]:
        return _top(self.scores(query), k)


LEXICAL_SHARE = 0.2
"""BM25's share of a hybrid score (tuned on the synthetic toolkit, reported on the Spider-derived one:
docs/sql-worlds.md#tool-search-at-scale)."""


@dataclass
class HybridRanker:
    """The embedding cosine plus BM25 scaled to the query's best hit: ``(1 - s) * cos + s * bm25 / max bm25``.

    Embeddings find paraphrases but blur among thousands of similar signatures; BM25 pins the rare words (a table,
    a column, an object) that tell two near neighbours apart. Scaling by the best hit puts BM25 on the cosine's
    0..1 footing whatever the query's length; a query sharing no word with any tool falls back to the cosine."""

    embedding: EmbeddingRanker
    lexical: LexicalRanker
    share: float = LEXICAL_SHARE
    name: RankerName = "hybrid"

    def scores(self, query: str) -> np.ndarray:
        lexical = self.lexical.scores(query)
        best = float(lexical.max()) if len(lexical) else 0.0
        dense = self.embedding.scores(query)
        if best <= 0:
            return dense
        out: np.ndarray = (1 - self.share) * dense + self.share * lexical / best
        return out

    def rank(self, query: str, k: int) -> list[tuple[int, float]]:
        return _top(self.scores(query), k)


@cache
def _shared_encoders() -> tuple[Encode, Encode]:
    """The process's one embedder, for queries and for bulk builds (lazy: the model is mapped on its first encode,
    never at import)."""
    from sim.core.embedding import Embedder  # the [embed] extra; kept off the import path of lexical runs

    embedder = Embedder(max_cache=10_000)
    return embedder.encode, embedder.encode_batched


def embedding_matrix(texts: Sequence[str], cache_dir: Path, encode: Encode) -> tuple[np.ndarray, bool]:
    """The signatures' embeddings and whether they came from the disk cache; computed and saved when absent."""
    path = cache_dir / f"{texts_digest(texts, f'{MODEL_NAME}/{CACHE_VERSION}/{bulk_erf_name()}')}.npy"
    if path.is_file():
        matrix = np.load(path)
        if matrix.shape[0] == len(texts):
            return matrix, True
    matrix = _encode_announced(list(texts), path, encode)
    cache_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=cache_dir, prefix=f".{path.stem}.", suffix=".npy")
    try:
        with os.fdopen(fd, "wb") as out:
            np.save(out, matrix)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)  # readers see the old file or the whole new one
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return matrix, False


PROGRESS_CHUNK = 256
"""Signatures embedded between two progress lines (~6 s of CPU) when the disk cache is built."""


def _encode_announced(texts: list[str], path: Path, encode: Encode) -> np.ndarray:
    """The embeddings of ``texts``, said on stderr with progress when there are enough to take a while: a first
    run with a big toolkit builds this cache once (minutes for thousands of tools), and must not look hung."""
    if len(texts) <= PROGRESS_CHUNK:
        return np.asarray(encode(texts), dtype=np.float32)
    say = sys.stderr.write
    say(f"tool search: embedding {len(texts):,} tool signatures once, cached for later runs in {path}\n")
    parts = []
    for start in range(0, len(texts), PROGRESS_CHUNK):
        parts.append(np.asarray(encode(texts[start : start + PROGRESS_CHUNK]), dtype=np.float32))
        say(f"tool search: {min(start + PROGRESS_CHUNK, len(texts)):,}/{len(texts):,} signatures embedded\n")
    return np.concatenate(parts)


@cache  # the answer cannot change within a process; episodes ask it once each
def resolve_ranker(requested: str) -> tuple[RankerName, str | None]:
    """The ranker to use and, when it is not the one asked for, why: ``auto`` means embeddings where they run."""
    if requested == "lexical":
        return "lexical", None
    if requested not in ("auto", "embedding", "hybrid"):
        raise ValueError(f"unknown ranker '{requested}' (auto, hybrid, embedding or lexical)")
    from sim.core.embedding import embedding_available  # cheap: checks installed packages and model files

    reason = embedding_available()
    if reason is None:
        return ("embedding" if requested == "embedding" else "hybrid"), None
    if requested != "auto":
        raise RuntimeError(f"the {requested} ranker cannot run here: {reason}")
    return "lexical", f"embeddings unavailable ({reason}): lexical BM25 ranking"


class IndexCache:
    """Built rankers by (ranker, texts digest): one build per tool set per process, whichever episode asks first."""

    def __init__(self) -> None:
        self._built: dict[tuple[str, str, str], Ranker] = {}
        self._lock = threading.Lock()
        self.builds = 0

    def get(
        self,
        texts: Sequence[str],
        ranker: RankerName,
        cache_dir: Path | None = None,
        encode: Encode | None = None,
        lexical_texts: Sequence[str] | None = None,
    ) -> Ranker:
        """``texts`` are embedded (signatures); ``lexical_texts`` (default ``texts``), one per tool, are what BM25
        reads: ``lexical_text`` adds the arguments' descriptions, which a signature leaves out."""
        directory = cache_dir or default_cache_dir()
        words = texts if lexical_texts is None else lexical_texts
        key = (ranker, texts_digest([*texts, "\0", *words]), str(directory))
        with self._lock:  # held through a build: concurrent episodes wait for the one build, not start their own
            if (found := self._built.get(key)) is not None:
                return found
            built: Ranker
            if ranker == "lexical":
                built = LexicalRanker.build(words)
            else:
                query, bulk = (encode, encode) if encode else _shared_encoders()
                dense = EmbeddingRanker(embedding_matrix(texts, directory, bulk)[0], query)
                built = dense if ranker == "embedding" else HybridRanker(dense, LexicalRanker.build(words))
            self._built[key] = built
            self.builds += 1
            return built


SHARED = IndexCache()
"""Process-wide on purpose: an index is a pure function of its texts, and rebuilding it per episode would cost
seconds of CPU each time."""
