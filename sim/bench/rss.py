"""Resident memory of a process tree, and whether a series of it is flat after warm-up (``squall bench --duration``).

Read from /proc (psutil is not a dependency): RSS is ``statm``'s resident pages, the same figure ``ps`` shows. A
run with ``--workers N`` is the driver plus its N worker processes (its children), so the tree is summed.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

PAGE_MB = os.sysconf("SC_PAGE_SIZE") / 2**20

FLAT_SHARE_PER_MIN = 0.005
"""Flat: the least-squares slope after warm-up is at most this share of the median RSS per minute (0.5%/min, i.e.
at most 5% over 10 minutes) ..."""
FLAT_FLOOR_MB_PER_MIN = 1.0
"""... or at most this many MB per minute, whichever is larger: a small process's allocator noise is not a leak."""


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as stat:
                    parent = int(stat.read().rpartition(b")")[2].split()[1])
            except (OSError, ValueError, IndexError):
                continue  # exited while we looked
            tree.setdefault(parent, []).append(int(entry.name))
    return tree


def tree_rss_mb(pid: int) -> tuple[float, int]:
    """Summed resident MB of ``pid`` and every descendant, and how many processes that is."""
    tree, todo, total, count = _children(), [pid], 0.0, 0
    while todo:
        current = todo.pop()
        try:
            with open(f"/proc/{current}/statm", "rb") as statm:
                total += int(statm.read().split()[1]) * PAGE_MB
        except (OSError, ValueError, IndexError):
            continue
        count += 1
        todo.extend(tree.get(current, ()))
    return total, count


@dataclass(frozen=True)
class Growth:
    """RSS after warm-up: its least-squares slope, last minus first sample, and the verdict against the threshold."""

    samples: int
    slope_mb_per_min: float
    delta_mb: float
    first_mb: float
    last_mb: float
    threshold_mb_per_min: float

    @property
    def flat(self) -> bool:
        return self.slope_mb_per_min <= self.threshold_mb_per_min

    def as_dict(self) -> dict[str, float | int | str]:
        return {
            "samples_after_warmup": self.samples,
            "slope_mb_per_min": round(self.slope_mb_per_min, 3),
            "delta_mb": round(self.delta_mb, 1),
            "first_mb": round(self.first_mb, 1),
            "last_mb": round(self.last_mb, 1),
            "threshold_mb_per_min": round(self.threshold_mb_per_min, 3),
            "verdict": "flat" if self.flat else "growing",
        }


def slope(points: Sequence[tuple[float, float]]) -> float:
    """Least-squares slope of y on x; 0 for fewer than two distinct x."""
    n = len(points)
    if n < 2:
        return 0.0
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    if spread == 0:
        return 0.0
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / spread


def growth(series: Sequence[tuple[float, float]], warmup_s: float) -> Growth | None:
    """``series``: (seconds, RSS MB). None when fewer than three samples fall after ``warmup_s``."""
    after = [(t, mb) for t, mb in series if t >= warmup_s]
    if len(after) < 3:
        return None
    median = sorted(mb for _, mb in after)[len(after) // 2]
    return Growth(
        samples=len(after),
        slope_mb_per_min=slope(after) * 60,
        delta_mb=after[-1][1] - after[0][1],
        first_mb=after[0][1],
        last_mb=after[-1][1],
        threshold_mb_per_min=max(FLAT_FLOOR_MB_PER_MIN, FLAT_SHARE_PER_MIN * median),
    )
