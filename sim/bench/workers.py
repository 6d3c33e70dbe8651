"""Workers' scaling for `squall bench`: the squall arm with 1 and with N worker processes, side by side.

Both arms run in this one invocation against fresh mock endpoints with the same settings, so their ratio holds on a
loaded machine where absolute rates do not. CPU per request counts the driver and its worker processes together.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def run_workers(
    n: int, run_with: Callable[[int], dict[str, Any]], many: dict[str, Any] | None = None
) -> dict[str, Any]:
    """``{"1": arm, "<N>": arm, "scaling": achieved_N / achieved_1, "n": N}``. ``run_with(w)``: the squall arm with
    ``w`` workers, with its bounds (``sim.bench.command``); ``many``: the N-worker arm when the caller has just run
    it (not run twice)."""
    one = run_with(1)
    if many is None:
        many = run_with(n)
    return {"1": one, str(n): many, "scaling": round(many["achieved"] / max(1e-9, one["achieved"]), 3), "n": n}
