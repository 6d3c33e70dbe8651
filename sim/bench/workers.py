"""Workers' scaling for `squall bench`: the squall arm with 1 and with N worker processes, side by side.

Both arms run in this one invocation against fresh mock endpoints with the same settings, so their ratio holds on a
loaded machine where absolute rates do not. CPU per request counts the driver and its worker processes together.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from sim.bench.command import BenchSettings, run_arm, with_bounds


def run_workers(settings: BenchSettings, many: dict[str, Any] | None = None) -> dict[str, Any]:
    """``{"1": arm, "<N>": arm, "scaling": achieved_N / achieved_1, "n": N}``; N is ``settings.workers`` (the cores
    when that is 1). ``many``: the N-worker arm (with bounds) when the caller has just run it."""
    n = settings.workers if settings.workers > 1 else os.cpu_count() or 1
    one = with_bounds(run_arm("squall", replace(settings, workers=1)), settings)
    if many is None:
        many = with_bounds(run_arm("squall", replace(settings, workers=n)), settings)
    return {"1": one, str(n): many, "scaling": round(many["achieved"] / max(1e-9, one["achieved"]), 3), "n": n}
