"""Agreement of two raters over one ordered set of categories: Cohen's kappa (unweighted and quadratic-weighted) and
plain exact agreement. Shared by the judges' calibrations (error handling 1-5; solvability solved/unsure/unsolved)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

C = TypeVar("C", bound=Hashable)


def cohen_kappa(a: Sequence[C], b: Sequence[C], categories: Sequence[C], weights: str | None = None) -> float | None:
    """Cohen's kappa of two raters over ``categories`` (in their order: the quadratic weights read it as a scale);
    ``weights="quadratic"`` for the weighted form. None when agreement by chance is total (both gave one and the same
    category throughout)."""
    if len(a) != len(b) or not a:
        raise ValueError("kappa needs two equally long, non-empty rating lists")
    index = {c: i for i, c in enumerate(categories)}
    if unknown := (set(a) | set(b)) - set(index):
        raise ValueError(f"ratings must be among {list(categories)}, not {sorted(map(str, unknown))}")
    k, n = len(categories), len(a)
    observed = [[0.0] * k for _ in range(k)]
    for x, y in zip(a, b, strict=True):
        observed[index[x]][index[y]] += 1 / n
    rows = [sum(r) for r in observed]
    cols = [sum(observed[i][j] for i in range(k)) for j in range(k)]

    def weight(i: int, j: int) -> float:
        if weights == "quadratic":
            return (i - j) ** 2 / (k - 1) ** 2
        return 0.0 if i == j else 1.0

    seen = sum(weight(i, j) * observed[i][j] for i in range(k) for j in range(k))
    chance = sum(weight(i, j) * rows[i] * cols[j] for i in range(k) for j in range(k))
    return None if chance == 0 else round(1 - seen / chance, 4)


def exact(a: Sequence[C], b: Sequence[C]) -> float:
    """The share of items both raters put in one category."""
    return round(sum(x == y for x, y in zip(a, b, strict=True)) / len(a), 4)
