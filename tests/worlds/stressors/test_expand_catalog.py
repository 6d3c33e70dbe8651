"""The shipped expansion catalogs, checked with the real embedder: every kept candidate is below the similarity
threshold to every original (recomputed here, not read from the file), and each catalog is what the generator builds
now. Skipped, with the reason, where the embedder cannot run."""

from __future__ import annotations

import numpy as np
import pytest

from sim.core import ToolSpec
from sim.core.embedding import Embedder
from worlds.registry import load_world
from worlds.stressors.expand.build import build_catalog, catalog_path, model_written
from worlds.stressors.expand.templates import signature
from worlds.stressors.expand.toolkit import ExpandCatalog, shipped_catalog

pytestmark = [pytest.mark.embedding, pytest.mark.slow]
WORLDS = ("smart_home", "multidomain")


def shipped(world: str) -> ExpandCatalog:
    catalog = shipped_catalog(world)
    assert catalog is not None, f"no catalog shipped at {catalog_path(world)}"
    return catalog


@pytest.mark.parametrize("world", WORLDS)
def test_every_shipped_candidate_is_below_the_threshold(world: str, embedder: Embedder) -> None:
    catalog = shipped(world)
    specs = load_world(world).new_world(0).specs()
    originals = embedder.encode([signature(s) for s in specs])
    candidates = embedder.encode([signature(c.spec) for c in catalog.candidates])
    highest = (candidates @ originals.T).max(axis=1)
    assert catalog.threshold == 0.8
    too_close = [
        (c.spec.name, round(float(v), 4)) for c, v in zip(catalog.candidates, highest, strict=True) if v >= 0.8
    ]
    assert not too_close
    assert np.allclose(highest, [c.similarity or 0.0 for c in catalog.candidates], atol=1e-3)


@pytest.mark.parametrize("world", WORLDS)
def test_the_shipped_catalog_is_what_the_generator_builds(world: str, embedder: Embedder) -> None:
    catalog = shipped(world)
    specs = load_world(world).new_world(0).specs()
    fresh = build_catalog(world, specs, embedder, catalog.threshold, extra=model_written(catalog))
    hint = f"{catalog_path(world)} is out of date: python -m worlds.stressors.expand --world {world}"
    # Similarities may move in the last digits on another CPU, and with them the order of two related tools whose
    # closeness ties to within that noise; everything else must match exactly.
    assert _without_similarities(fresh) == _without_similarities(catalog), hint
    _assert_same_ranking_up_to_ties(fresh, catalog, specs, embedder, hint)
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
    fresh: ExpandCatalog, shipped: ExpandCatalog, specs: list[ToolSpec], embedder: Embedder, hint: str
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
