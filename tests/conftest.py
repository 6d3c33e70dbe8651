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


@pytest.fixture
def one_decode_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The embedded model decodes on one thread: `make test` runs a test per core, and llama.cpp's two threads spin
    at each step's barrier while the other test holds a core (29 s of CPU for one test, 7 s on one thread)."""
    monkeypatch.setattr("sim.llm.local.server.THREADS", 1)
