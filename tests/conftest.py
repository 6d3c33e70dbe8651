"""Fixtures shared across the test tree. Helpers that are not fixtures live in ``tests/support``."""

from __future__ import annotations

import pytest

from sim.core.embedding import Embedder, embedding_available


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The offline MiniLM embedder, loaded once per session (torch start-up is seconds); skips, saying why, where
    the ``[embed]`` extra is not installed."""
    if (reason := embedding_available()) is not None:
        pytest.skip(f"embeddings unavailable: {reason}")
    return Embedder()
