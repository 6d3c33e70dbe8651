"""The shipped expansion catalogs, checked with the real embedder: every kept candidate is below the similarity
threshold to every original (recomputed here, not read from the file), and each catalog is what the generator builds
now. Skipped, with the reason, where the embedder cannot run."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from sim.core import ToolSpec
from sim.core.embedding import Embedder
from worlds.registry import load_world
from worlds.stressors.expand.build import Encoder, build_catalog, catalog_path, model_written
from worlds.stressors.expand.templates import signature
from worlds.stressors.expand.toolkit import ExpandCatalog, shipped_catalog

pytestmark = [pytest.mark.embedding, pytest.mark.slow]
WORLDS = ("smart_home", "multidomain")
NEAR = 1e-4
"""Within this of the threshold a similarity is recomputed one sentence at a time, as the generator embeds: batched
vectors differ from those in the last float digits (about 1e-7, ``test_batched_encoding_gives_each_text_its_own_vector``
bounds it at 1e-5), so further away they fall on the same side of the threshold."""


class _Batched:
    """The embedder's ``encode_batched`` as an ``Encoder``, each text embedded once per module: both tests embed the
    same ~700 signatures, several times faster in batches than one sentence at a time."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self._vectors: dict[str, np.ndarray] = {}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            self._vectors.update(zip(missing, self._embedder.encode_batched(missing), strict=True))
        if not texts:
            return np.zeros((0, self._embedder.dimension), dtype=np.float32)
        return np.stack([self._vectors[t] for t in texts])


@pytest.fixture(scope="module")
def batched(embedder: Embedder) -> _Batched:
    return _Batched(embedder)


def shipped(world: str) -> ExpandCatalog:
    catalog = shipped_catalog(world)
    assert catalog is not None, f"no catalog shipped at {catalog_path(world)}"
    return catalog


@pytest.mark.parametrize("world", WORLDS)
def test_every_shipped_candidate_is_below_the_threshold(world: str, embedder: Embedder, batched: _Batched) -> None:
    catalog = shipped(world)
    specs = load_world(world).new_world(0).specs()
    texts = [signature(s) for s in specs]
    candidates = [signature(c.spec) for c in catalog.candidates]
    highest = (batched.encode(candidates) @ batched.encode(texts).T).max(axis=1)
    if (near := np.flatnonzero(highest >= 0.8 - NEAR)).size:  # as the generator embeds: one sentence at a time
        alone = embedder.encode([candidates[i] for i in near]) @ embedder.encode(texts).T
        highest[near] = alone.max(axis=1)
    assert catalog.threshold == 0.8
    too_close = [
        (c.spec.name, round(float(v), 4)) for c, v in zip(catalog.candidates, highest, strict=True) if v >= 0.8
    ]
    assert not too_close
    assert np.allclose(highest, [c.similarity or 0.0 for c in catalog.candidates], atol=1e-3)


@pytest.mark.parametrize("world", WORLDS)
def test_the_shipped_catalog_is_what_the_generator_builds(world: str, embedder: Embedder, batched: _Batched) -> None:
    catalog = shipped(world)
    specs = load_world(world).new_world(0).specs()
    encoder: Encoder = batched
    fresh = build_catalog(world, specs, encoder, catalog.threshold, extra=model_written(catalog))
    similarities = [c.similarity or 0.0 for c in fresh.candidates] + [r.similarity for r in fresh.rejected]
    # Near the threshold, kept or not is decided as the generator embeds (the file floors to 4 places: twice NEAR).
    if any(abs(v - catalog.threshold) < 2 * NEAR for v in similarities):
        encoder = embedder
        fresh = build_catalog(world, specs, encoder, catalog.threshold, extra=model_written(catalog))
    hint = f"{catalog_path(world)} is out of date: python -m worlds.stressors.expand --world {world}"
    # Similarities may move in the last digits on another CPU, and with them the order of two related tools whose
    # closeness ties to within that noise; everything else must match exactly.
    assert _without_similarities(fresh) == _without_similarities(catalog), hint
    _assert_same_ranking_up_to_ties(fresh, catalog, specs, encoder, hint)
    for a, b in zip(fresh.candidates, catalog.candidates, strict=True):
        assert abs((a.similarity or 0) - (b.similarity or 0)) <= 1e-3, hint
    for x, y in zip(fresh.rejected, catalog.rejected, strict=True):
        assert abs(x.similarity - y.similarity) <= 1e-3, hint


def _without_similarities(catalog: ExpandCatalog) -> dict[str, object]:
    data = catalog.model_dump(mode="json")
    for row in [*data["candidates"], *data["rejected"]]:
        row.pop("similarity")
    data.pop("related")  # compared by _assert_same_ranking_up_to_ties
    return data


def _assert_same_ranking_up_to_ties(
    fresh: ExpandCatalog, shipped: ExpandCatalog, specs: list[ToolSpec], embedder: Encoder, hint: str
) -> None:
    """Each original's related tools in the same order, but for neighbours whose closeness differs by < 1e-4 (the
    ranking is by closeness, recomputed here as the generator computes it)."""
    originals = embedder.encode([signature(s) for s in specs])
    pool = np.concatenate([originals, embedder.encode([signature(c.spec) for c in shipped.candidates])])
    closeness = originals @ pool.T
    assert fresh.related.keys() == shipped.related.keys(), hint
    for i, spec in enumerate(specs):
        mine, theirs = fresh.related[spec.name], shipped.related[spec.name]
        assert len(mine) == len(theirs), hint
        for a, b in zip(mine, theirs, strict=True):
            assert a == b or abs(closeness[i, a] - closeness[i, b]) < 1e-4, (spec.name, a, b, hint)
