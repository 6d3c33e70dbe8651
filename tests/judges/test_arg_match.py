"""Argument matching for judges: exact rules, schema defaults, and the embedding mode."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from judges.calls.arg_match import ArgMatcher, normalise
from sim.core.embedding import Embedder, embedding_available

EXACT = ArgMatcher(mode="exact")
LIGHT_SCHEMA = {
    "type": "object",
    "properties": {
        "room": {"type": "string"},
        "level": {"type": "integer", "default": 100},
        "color": {"type": "string", "enum": ["warm", "cold"], "default": "warm"},
        "fade": {"type": "boolean", "default": False},
    },
    "required": ["room"],
}


@pytest.mark.parametrize(
    ("agent", "gold", "ok", "errors"),
    [
        ({"room": "kitchen", "level": 3}, {"room": "kitchen", "level": 3}, True, []),
        ({"level": 3.0}, {"level": 3}, True, []),
        ({"level": 3.5}, {"level": 3}, False, ["args:value:level"]),
        ({"on": 1}, {"on": True}, False, ["args:value:on"]),
        ({"on": True}, {"on": True}, True, []),
        ({"level": "3"}, {"level": 3}, False, ["args:value:level"]),
        ({"room": "Kitchen"}, {"room": "kitchen"}, False, ["args:value:room"]),
        ({"room": "kitchen "}, {"room": "kitchen"}, False, ["args:value:room"]),
        ({"room": None}, {"room": None}, True, []),
        ({"ids": [1, 2]}, {"ids": [1.0, 2.0]}, True, []),
        ({"ids": [2, 1]}, {"ids": [1, 2]}, False, ["args:value:ids"]),
        ({"ids": [1]}, {"ids": [1, 2]}, False, ["args:value:ids"]),
        ({"f": {"a": 1, "b": [1, {"c": 2.0}]}}, {"f": {"a": 1.0, "b": [1, {"c": 2}]}}, True, []),
        ({"f": {"a": 1}}, {"f": {"a": 1, "b": 2}}, False, ["args:value:f"]),
        ({"f": {"a": 1}}, {"f": [1]}, False, ["args:value:f"]),
        ({}, {"room": "kitchen"}, False, ["args:missing:room"]),
        ({"room": "kitchen", "color": "red"}, {"room": "kitchen"}, False, ["args:extra:color"]),
        (
            {"room": "hall", "x": 1},
            {"room": "kitchen", "level": 2},
            False,
            ["args:missing:level", "args:value:room", "args:extra:x"],
        ),
        ({}, {}, True, []),
    ],
)
def test_exact(agent: dict[str, Any], gold: dict[str, Any], ok: bool, errors: list[str]) -> None:
    matched, codes = EXACT.match(agent, gold)
    assert matched is ok
    assert sorted(codes) == sorted(errors)


@pytest.mark.parametrize(
    ("agent", "gold", "ok", "errors"),
    [
        ({"room": "kitchen"}, {"room": "kitchen", "level": 100}, True, []),  # gold spells out the default
        ({"room": "kitchen", "level": 100.0}, {"room": "kitchen"}, True, []),  # agent spells out the default
        ({"room": "kitchen", "color": "warm", "fade": False}, {"room": "kitchen"}, True, []),
        ({"room": "kitchen"}, {"room": "kitchen", "level": 50}, False, ["args:missing:level"]),
        ({"room": "kitchen", "level": 50}, {"room": "kitchen"}, False, ["args:extra:level"]),
        ({"room": "kitchen", "fade": 0}, {"room": "kitchen"}, False, ["args:extra:fade"]),  # 0 is not False
        ({}, {"room": "kitchen"}, False, ["args:missing:room"]),  # no default: required
    ],
)
def test_schema_defaults(agent: dict[str, Any], gold: dict[str, Any], ok: bool, errors: list[str]) -> None:
    assert EXACT.match(agent, gold, LIGHT_SCHEMA) == (ok, errors)


def test_malformed_schemas_are_ignored() -> None:
    for schema in ({}, {"properties": None}, {"properties": {"level": "int"}}, {"type": "object"}):
        assert EXACT.match({}, {"level": 100}, schema) == (False, ["args:missing:level"])


def test_normalise() -> None:
    assert normalise({"a": (1.0, 2.5), 3: {"b": True}}) == {"a": [1, 2.5], "3": {"b": True}}
    assert normalise(True) is True
    assert normalise(float("inf")) == float("inf")


def test_unknown_mode_is_rejected() -> None:
    with pytest.raises(ValueError, match="mode"):
        ArgMatcher(mode="fuzzy")  # type: ignore[arg-type]


class FakeEmbedder:
    """Similarity from a table; records what it was asked, to check batching and the fast paths."""

    def __init__(self, scores: dict[frozenset[str], float]) -> None:
        self.scores = scores
        self.encoded: list[list[str]] = []
        self.compared: list[tuple[str, str]] = []

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.encoded.append(list(texts))
        return np.zeros((len(texts), 2))

    def similarity(self, a: str, b: str) -> float:
        self.compared.append((a, b))
        return self.scores.get(frozenset((a, b)), 0.0)


def test_embedding_mode_rules_without_a_model() -> None:
    fake = FakeEmbedder({frozenset(("lamp in the hall", "hall lamp")): 0.9, frozenset(("on", "off")): 0.95})
    matcher = ArgMatcher(mode="embedding", threshold=0.8, embedder=fake)
    schema = {"properties": {"state": {"type": "string", "enum": ["on", "off"]}}}
    assert matcher.match({"device": "lamp in the hall"}, {"device": "hall lamp"}) == (True, [])
    assert matcher.match({"device": "  Hall   LAMP"}, {"device": "hall lamp"}) == (True, [])  # folded, no model
    assert matcher.match({"state": "off"}, {"state": "on"}, schema) == (False, ["args:value:state"])  # enum: exact
    assert matcher.match({"temp": "21 degrees"}, {"temp": "22 degrees"}) == (False, ["args:value:temp"])
    assert matcher.match({"n": 3}, {"n": 4}) == (False, ["args:value:n"])  # non-strings stay exact
    assert fake.compared == [("lamp in the hall", "hall lamp")]  # only the pair that needed the model
    assert fake.encoded == [["lamp in the hall", "hall lamp"]]  # prefetched in one batch


def test_embedding_prefetch_batches_nested_strings() -> None:
    fake = FakeEmbedder({})
    matcher = ArgMatcher(mode="embedding", embedder=fake)
    matcher.match({"a": "x one", "b": ["y one", {"c": "z one"}]}, {"a": "x two", "b": ["y two", {"c": "z two"}]})
    assert len(fake.encoded) == 1 and sorted(fake.encoded[0]) == sorted(
        ["x one", "x two", "y one", "y two", "z one", "z two"]
    )


# --- the real model (skipped with a reason when it is not installed)

_SKIP = embedding_available()


@pytest.mark.embedding
@pytest.mark.skipif(_SKIP is not None, reason=_SKIP or "")
def test_real_embeddings_match_paraphrases_not_different_places(embedder: Embedder) -> None:
    matcher = ArgMatcher(mode="embedding", threshold=0.8, embedder=embedder)
    assert matcher.match({"device": "living room lamp"}, {"device": "the living-room lamp"}) == (True, [])
    assert matcher.match({"room": "kitchen"}, {"room": "garage"}) == (False, ["args:value:room"])
    assert embedder.similarity("living room lamp", "the living-room lamp") >= 0.8
    assert embedder.similarity("kitchen", "garage") < 0.8


@pytest.mark.embedding
@pytest.mark.skipif(_SKIP is not None, reason=_SKIP or "")
def test_real_embeddings_are_normalised_and_cached(embedder: Embedder) -> None:
    rows = embedder.encode(["a cached sentence", "another cached one", "a cached sentence"])
    assert rows.shape == (3, embedder.dimension)
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(rows[0], rows[2])
    encoded, calls = embedder.encoded, embedder.model_calls
    embedder.encode(["another cached one", "a cached sentence"])
    matcher = ArgMatcher(mode="embedding", embedder=embedder)
    matcher.match({"x": "a cached sentence"}, {"x": "another cached one"})
    matcher.match({"x": "a cached sentence"}, {"x": "another cached one"})
    assert (embedder.encoded, embedder.model_calls) == (encoded, calls)  # nothing re-encoded
    assert embedder.encode([]).shape == (0, embedder.dimension)


def test_accepted_values_match_like_the_gold_value_in_every_mode() -> None:
    accepted = {"city": ["NYC", "New York, NY"]}
    exact = ArgMatcher(mode="exact")
    assert exact.match({"city": "NYC"}, {"city": "New York City"}, accepted=accepted) == (True, [])
    assert exact.match({"city": "nyc"}, {"city": "New York City"}, accepted=accepted) == (False, ["args:value:city"])
    normalised = ArgMatcher(mode="normalised")
    assert normalised.match({"city": "New York, New York"}, {"city": "New York City"}, accepted=accepted)[0]
    assert not normalised.match({"city": "Boston"}, {"city": "New York City"}, accepted=accepted)[0]
