"""The statistics every summary number goes through: rates with their denominators, Wilson intervals, intervals
from a bootstrap over tasks (a task's goals, trials and variants are not independent draws), pass^k, mean and
sample standard deviation over trials."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import TypedDict

import numpy as np

BOOTSTRAP_RESAMPLES = 2000


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float] | None:
    """95% Wilson score interval for a proportion; None when n == 0."""
    if n == 0:
        return None
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4))


def pass_hat_k(successes_per_task: dict[str, list[float]], k: int) -> float | None:
    """τ-bench's pass^k: chance that k trials drawn without replacement all succeed, averaged over tasks."""
    values = []
    for outcomes in successes_per_task.values():
        n, c = len(outcomes), int(sum(outcomes))
        if n >= k:
            values.append(math.comb(c, k) / math.comb(n, k))
    return round(sum(values) / len(values), 4) if values else None


def rate(num: float, den: int) -> float | None:
    return round(num / den, 4) if den else None


def mean_sd(values: Sequence[float | None]) -> tuple[float | None, float | None]:
    """Mean and sample standard deviation of the values that exist; sd needs two of them."""
    present = [v for v in values if v is not None]
    if not present:
        return None, None
    sd = round(statistics.stdev(present), 4) if len(present) >= 2 else None
    return round(statistics.fmean(present), 4), sd


def cluster_bootstrap(
    clusters: Sequence[tuple[float, float]], resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0
) -> tuple[float, float] | None:
    """95% percentile interval of a ratio of sums (sum num / sum den) resampling whole clusters (tasks) with
    replacement; deterministic for a seed. A cluster with nothing in the denominator still counts in the
    numerator; a resample whose denominator is 0 has no ratio and is left out. None with fewer than two clusters
    or nothing counted."""
    kept = [(n, d) for n, d in clusters if d > 0 or n != 0]
    if len(kept) < 2 or not any(d > 0 for _, d in kept):
        return None
    num = np.array([n for n, _ in kept], dtype=float)
    den = np.array([d for _, d in kept], dtype=float)
    rng = np.random.default_rng(seed)
    ratios: list[np.ndarray] = []
    chunk = max(1, 2_000_000 // len(kept))  # bounded memory: at most ~16 MB of indices at once
    for start in range(0, resamples, chunk):
        picks = rng.integers(0, len(kept), size=(min(chunk, resamples - start), len(kept)))
        nums, dens = num[picks].sum(axis=1), den[picks].sum(axis=1)
        ratios.append(nums[dens > 0] / dens[dens > 0])
    values = np.concatenate(ratios)
    lo, hi = np.percentile(values, [2.5, 97.5])
    return (round(float(lo), 4), round(float(hi), 4))


def _paired_resamples(
    clusters: Sequence[tuple[float, float, float]], resamples: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Resampled sums of (a, b, units) over whole clusters drawn with replacement, seeded; the pairs of a cluster
    stay together. None with fewer than two clusters that have units."""
    kept = [c for c in clusters if c[2] > 0]
    if len(kept) < 2:
        return None
    data = np.array(kept, dtype=float)
    picks = np.random.default_rng(seed).integers(0, len(kept), size=(resamples, len(kept)))
    a, b, n = (data[:, i][picks].sum(axis=1) for i in range(3))
    return a, b, n


def _percentiles(values: np.ndarray) -> tuple[float, float] | None:
    if not len(values):
        return None
    lo, hi = np.percentile(values, [2.5, 97.5])
    return (round(float(lo), 4), round(float(hi), 4))


def paired_cluster_bootstrap(
    clusters: Sequence[tuple[float, float, float]], resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0
) -> dict[str, tuple[float, float] | None]:
    """95% percentile intervals of a with/without comparison on the same units, resampling whole clusters
    (tasks): each cluster is (sum without, sum with, units). The pairs stay together in every resample, so the
    intervals are of the difference (degradation: (without - with) / units) and of the ratio (retention: with /
    without), not of two independent rates. None with fewer than two clusters."""
    sums = _paired_resamples(clusters, resamples, seed)
    if sums is None:
        return {"degradation_ci95": None, "retention_ci95": None}
    without, with_, units = sums
    return {
        "degradation_ci95": _percentiles((without - with_) / units),
        "retention_ci95": _percentiles(with_[without > 0] / without[without > 0]),
    }


class PairedDifference(TypedDict):
    a: float | None
    b: float | None
    diff: float | None
    ci95: tuple[float, float] | None
    units: int
    clusters: int


def paired_difference(
    clusters: Sequence[tuple[float, float, float]], resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0
) -> PairedDifference:
    """Two runs compared on the same units (episodes paired by id), resampling whole clusters (tasks): each
    cluster is (sum in run A, sum in run B, paired units). Returns both means over the paired units, the
    difference B - A and its 95% percentile interval; the pairs stay together in every resample, so the interval
    is of the paired difference, not of two independent rates. Interval None with fewer than two clusters."""
    kept = [c for c in clusters if c[2] > 0]
    units = sum(c[2] for c in kept)
    if not units:
        return {"a": None, "b": None, "diff": None, "ci95": None, "units": 0, "clusters": 0}
    sum_a, sum_b = sum(c[0] for c in kept), sum(c[1] for c in kept)
    out: PairedDifference = {
        "a": round(sum_a / units, 4),
        "b": round(sum_b / units, 4),
        "diff": round((sum_b - sum_a) / units, 4),
        "ci95": None,
        "units": int(units),
        "clusters": len(kept),
    }
    sums = _paired_resamples(kept, resamples, seed)
    if sums is not None:
        a, b, n = sums
        out["ci95"] = _percentiles((b - a) / n)
    return out


def paired_ratio_difference(
    clusters: Sequence[tuple[float, float, float, float]], resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0
) -> PairedDifference:
    """Two runs compared on the same episodes where each run counts its own units in an episode (goals at stake,
    which differ when one agent changed the world and the other did not): each cluster (task) is (sum A, units A,
    sum B, units B). Returns both ratio-of-sums rates — the same numbers as each run's headline over these
    episodes — their difference B − A and its 95% percentile interval, resampling whole clusters with both runs'
    sums drawn together. ``units`` is B's. Interval None with fewer than two clusters."""
    kept = [c for c in clusters if c[1] > 0 and c[3] > 0]
    if not kept:
        return {"a": None, "b": None, "diff": None, "ci95": None, "units": 0, "clusters": 0}
    data = np.array(kept, dtype=float)
    sa, na, sb, nb = data.sum(axis=0)
    a, b = sa / na, sb / nb
    out: PairedDifference = {
        "a": round(float(a), 4),
        "b": round(float(b), 4),
        "diff": round(float(b - a), 4),
        "ci95": None,
        "units": int(nb),
        "clusters": len(kept),
    }
    if len(kept) >= 2:
        picks = np.random.default_rng(seed).integers(0, len(kept), size=(resamples, len(kept)))
        ra, rna, rb, rnb = (data[:, i][picks].sum(axis=1) for i in range(4))
        out["ci95"] = _percentiles(rb / rnb - ra / rna)
    return out
