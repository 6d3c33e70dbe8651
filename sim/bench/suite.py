"""`squall bench --suite`: every workload docs/scale.md reports, squall beside the static runner, in one invocation.

Latency-bound (no rate limit: the bound is Little's law), TPM-bound against a token bucket that starts full (a
provider's burst: the bound with it is above the steady one) and against a sliding window (no burst to spend), and
the fault mix. Each workload's arms run as ``squall bench`` runs them (own process, own fresh mock), one after the
other, so their ratios are measured side by side on the same machine.
"""

from __future__ import annotations

from dataclasses import asdict, replace
from typing import Any

from sim.bench.command import BenchSettings, _printed, compare, run_arm, with_bounds

WORKLOADS: dict[str, BenchSettings] = {
    "latency": BenchSettings(episodes=1000, concurrency=100, latency_s=0.5, arms=("squall", "static")),
    "tpm": BenchSettings(episodes=400, concurrency=60, latency_s=0.5, tpm=3_000_000, arms=("squall", "static")),
    "tpm_window": BenchSettings(
        episodes=400, concurrency=60, latency_s=0.5, tpm=3_000_000, limiter="sliding_window", arms=("squall", "static")
    ),
    "faults": BenchSettings(
        episodes=100, concurrency=20, latency_s=0.3, faults="mix", request_timeout_s=5.0, arms=("squall", "static")
    ),
}


def run_suite(scale: float = 1.0) -> dict[str, Any]:
    """Each workload's squall and static arms and their comparison; ``scale`` multiplies the episode counts (a
    quick look: 0.25)."""
    out: dict[str, Any] = {}
    for name, settings in WORKLOADS.items():
        settings = replace(settings, episodes=max(settings.concurrency, round(settings.episodes * scale)))
        arms = {arm: with_bounds(run_arm(arm, settings), settings) for arm in settings.arms}
        out[name] = {"settings": asdict(settings), **arms, "comparison": compare(arms["squall"], arms["static"])}
    return {"workloads": out}


def render_suite(report: dict[str, Any]) -> str:
    from rich.table import Table

    table = Table(title="squall bench --suite: squall vs the static runner (side by side, one machine)")
    for column in ("workload", "arm", "wall s", "achieved / bound", "/ burst bound", "429 share", "failed",
                   "CPU ms/request", "peak RSS MB", "squall / static wall"):  # fmt: skip
        table.add_column(column, justify="left" if column in ("workload", "arm") else "right")
    for name, result in report["workloads"].items():
        for arm in ("squall", "static"):
            r = result[arm]
            ratio = f"{result['comparison']['wall_ratio']:.3f}" if arm == "squall" else ""
            table.add_row(
                name if arm == "squall" else "", arm, f"{r['wall_s']:.1f}", f"{r['ratio']:.3f} ({r['binding']})",
                f"{r['ratio_to_burst_bound']:.3f}", f"{100 * r['rate_limited_share']:.2f}%", str(r["failed_episodes"]),
                f"{r['cpu_ms_per_request']:.3f}", f"{r['peak_rss_mb']:.0f}", ratio,
            )  # fmt: skip
    return _printed(table)
