"""Build a world's expansion catalog offline: candidates, the embedding filter, the relatedness ranking.

Run ``squall stressors expand`` (``sim.cli.expand``). Embedding happens here, at build time, so runs never
need torch: the runtime reads the shipped JSON. A candidate is kept only when the cosine similarity of its signature
(``name(args): description``) to every original tool's signature is below the threshold (0.8 by default): a
neighbour that close would be the same function under another name, and an agent calling it would be wrongly
blamed. Each original's ranking lists the pool (other originals and kept candidates), most similar first.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from sim.core import ToolSpec
from sim.core.files import write_text_atomic
from worlds.stressors.expand.templates import Candidate, signature, templated_candidates
from worlds.stressors.expand.toolkit import CATALOG_DIR, RANKED, ExpandCatalog, Rejection

DEFAULT_THRESHOLD = 0.8
EMBEDDER = "all-MiniLM-L6-v2"


class Encoder(Protocol):
    """Unit-length sentence embeddings, one row per text (``sim.core.embedding.Embedder`` is one)."""

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


def _floor4(value: float) -> float:
    """Rounded down, so a kept similarity never reads as the threshold itself."""
    return math.floor(value * 10_000) / 10_000


def build_catalog(
    world: str,
    specs: Sequence[ToolSpec],
    encoder: Encoder,
    threshold: float = DEFAULT_THRESHOLD,
    extra: Sequence[Candidate] = (),
    ranked: int = RANKED,
    templated: bool = True,
) -> ExpandCatalog:
    """The catalog of ``world``: templated candidates (unless not ``templated``: a pool of the originals alone,
    ranked, with each one's near originals), then ``extra`` ones (model-written) whose name is free and whose source
    is an original, all through the same filter."""
    originals = list(specs)
    candidates = templated_candidates(originals) if templated else []
    taken = {s.name for s in originals} | {c.spec.name for c in candidates}
    for candidate in extra:
        if candidate.spec.name not in taken and candidate.source in {s.name for s in originals}:
            taken.add(candidate.spec.name)
            candidates.append(candidate.model_copy(update={"similarity": None, "nearest": None}))
    original_vectors = encoder.encode([signature(s) for s in originals])
    candidate_vectors = (
        encoder.encode([signature(c.spec) for c in candidates])
        if candidates
        else np.zeros((0, original_vectors.shape[1]), dtype=np.float32)
    )
    similarity = candidate_vectors @ original_vectors.T
    kept: list[Candidate] = []
    kept_rows: list[int] = []
    rejected: list[Rejection] = []
    for row, candidate in enumerate(candidates):
        nearest = int(np.argmax(similarity[row]))
        value = float(similarity[row, nearest])
        if value < threshold:
            kept.append(candidate.model_copy(update={"similarity": _floor4(value), "nearest": originals[nearest].name}))
            kept_rows.append(row)
        else:
            rejected.append(
                Rejection(
                    name=candidate.spec.name,
                    source=candidate.source,
                    origin=candidate.origin,
                    similarity=_floor4(value),
                    nearest=originals[nearest].name,
                )
            )
    pool = np.concatenate([original_vectors, candidate_vectors[kept_rows]])
    closeness = original_vectors @ pool.T
    related: dict[str, list[int]] = {}
    near: dict[str, list[str]] = {}
    for i, spec in enumerate(originals):
        order = [int(j) for j in np.argsort(-closeness[i], kind="stable") if j != i]
        related[spec.name] = order[:ranked]
        twins = [originals[j].name for j in order if j < len(originals) and closeness[i, j] >= threshold]
        if twins and not templated:  # only where originals are offered as each other's related tools
            near[spec.name] = twins
    return ExpandCatalog(
        world=world,
        embedder=EMBEDDER,
        threshold=threshold,
        originals=[s.name for s in originals],
        candidates=kept,
        rejected=rejected,
        related=related,
        near=near,
    )


def catalog_text(catalog: ExpandCatalog) -> str:
    """Stable JSON: one candidate, rejection or ranking per line, so a rebuild's diff reads line by line."""
    data = catalog.model_dump(mode="json")
    if not data["near"]:
        del data["near"]  # most catalogs have no near originals: their files read as before the field existed
    lines = ["{"]
    keys = list(data)
    for k, key in enumerate(keys):
        value = data[key]
        comma = "," if k < len(keys) - 1 else ""
        if isinstance(value, list) and value and isinstance(value[0], dict):
            items = [json.dumps(v) for v in value]  # key order kept: a signature lists arguments in order
            lines.append(f' "{key}": [\n  ' + ",\n  ".join(items) + f"\n ]{comma}")
        elif isinstance(value, dict) and value:
            items = [f"{json.dumps(name)}: {json.dumps(v, separators=(',', ':'))}" for name, v in value.items()]
            lines.append(f' "{key}": {{\n  ' + ",\n  ".join(items) + f"\n }}{comma}")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def catalog_path(world: str, directory: Path = CATALOG_DIR) -> Path:
    return directory / f"{world}.json"


def write_catalog(catalog: ExpandCatalog, directory: Path = CATALOG_DIR) -> Path:
    """Written to a temporary file and renamed into place: a run never reads half a catalog."""
    path = catalog_path(catalog.world, directory)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, catalog_text(catalog))
    return path


def model_written(catalog: ExpandCatalog | None) -> list[Candidate]:
    """A catalog's model-written candidates: a rebuild keeps them (they cannot be regenerated offline)."""
    return [c for c in catalog.candidates if c.origin.startswith("model:")] if catalog else []
