"""Whether a rebuilt expansion catalog is the shipped one: everything equal but the embedding's last digits.

Similarities computed on another CPU (or BLAS build) move in the fourth decimal (0.7073 vs 0.7072), and with them
the order of two related tools whose closeness ties within that noise. ``squall stressors expand --check`` would
otherwise call a catalog out of date on a fresh clone that is not."""

from __future__ import annotations

from typing import Any

from worlds.stressors.expand.toolkit import ExpandCatalog

SIMILARITY_TOLERANCE = 1e-3


def _stripped(catalog: ExpandCatalog) -> dict[str, Any]:
    data = catalog.model_dump(mode="json")
    for row in [*data["candidates"], *data["rejected"]]:
        row.pop("similarity")
    data["related"] = {k: sorted(v) for k, v in data["related"].items()}  # the same neighbours, ties in any order
    return data


def same_catalog(fresh: ExpandCatalog, shipped: ExpandCatalog) -> bool:
    """The same candidates, rejections, neighbours and near twins, with similarities within 1e-3."""
    if _stripped(fresh) != _stripped(shipped):
        return False
    pairs = [
        (a.similarity or 0.0, b.similarity or 0.0) for a, b in zip(fresh.candidates, shipped.candidates, strict=True)
    ]
    pairs += [(a.similarity, b.similarity) for a, b in zip(fresh.rejected, shipped.rejected, strict=True)]
    return all(abs(a - b) <= SIMILARITY_TOLERANCE for a, b in pairs)
