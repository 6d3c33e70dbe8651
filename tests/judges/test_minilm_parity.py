"""The numpy MiniLM (``sim.core.minilm``) gives the vectors sentence-transformers gives, so every embedding verdict
(error-handling bands, argument and answer thresholds, the tool-search index) is the one torch gave."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from judges.errors.calibration import load_labels
from sim.core.embedding import Embedder, embedding_available, packaged_model_path

pytestmark = [
    pytest.mark.embedding,
    pytest.mark.skipif(embedding_available() is not None, reason=f"embedding model: {embedding_available()}"),
]

TEXTS = ("", "Done.", "Set the thermostat to 21°C — ünïcode ✓", "word " * 400)  # empty, short, non-ASCII, truncated


def test_vectors_are_unit_length_and_a_text_alone_or_in_company_gets_the_same_one() -> None:
    embedder = Embedder()
    together = embedder.encode(TEXTS)
    assert together.shape == (len(TEXTS), embedder.dimension) and together.dtype == np.float32
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    alone = np.stack([Embedder().encode([t])[0] for t in TEXTS])
    assert np.array_equal(together, alone)  # no padding: a batch does not move a vector


@pytest.mark.slow  # imports torch: seconds on a quiet machine, a minute on a loaded one
@pytest.mark.skipif(importlib.util.find_spec("sentence_transformers") is None, reason="sentence-transformers absent")
def test_the_calibration_set_scores_as_sentence_transformers_scores_it() -> None:
    from sentence_transformers import SentenceTransformer

    reference = SentenceTransformer(str(packaged_model_path()), device="cpu", local_files_only=True)
    cases = [c.case for c in load_labels()[:12]]  # a sample: torch is slow to load and to run one by one
    texts = [*TEXTS, *(t for c in cases for t in (c.reply, c.reference))]
    ours = Embedder().encode(texts)
    theirs = np.stack([reference.encode([t], normalize_embeddings=True)[0] for t in texts])  # each alone, as ours
    assert np.abs(ours - theirs).max() < 1e-5
    pairs = range(len(TEXTS), len(texts), 2)
    assert [round(float(ours[i] @ ours[i + 1]), 4) for i in pairs] == [
        round(float(theirs[i] @ theirs[i + 1]), 4) for i in pairs
    ]
