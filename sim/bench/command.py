"""`squall bench`: squall's scheduler against the peer way, side by side, on one mock workload.

Each arm gets a fresh mock endpoint (its own process, so its rate limits start clean and its CPU is not
counted) and runs in its own process (so CPU time and peak RSS are its own). The bound is Little's law:
with C episodes in flight, each making k calls of latency L, at most C / (k·L) episodes finish per
second; under a token-per-minute limit, at most TPM / (tokens per episode) per minute. Every ratio is
achieved / bound, measured in this one invocation.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

from sim.bench.mock_process import REPO_ROOT, mock_llm_server

Arm = Literal["squall", "bare", "static", "mcp"]
SCHEDULER: dict[str, str] = {"squall": "adaptive", "static": "static"}


@dataclass(frozen=True)
class BenchSettings:
    episodes: int = 1000
    concurrency: int = 100
    latency_s: float = 0.5
    jitter_s: float = 0.0
    """Extra uniform latency in [0, jitter_s]: real latencies vary, which keeps thousands of episodes from
    moving in lockstep (every response of a wave arriving at once)."""
    tpm: int | None = None
    rpm: int | None = None
    faults: Literal["none", "mix"] = "none"
    request_timeout_s: float = 30.0
    arms: tuple[Arm, ...] = ("squall", "bare", "static", "mcp")
    mcp_calls: int = 300
    """Tool calls timed each way (in-process, over MCP) by the ``mcp`` arm."""
    limiter: Literal["token_bucket", "sliding_window"] = "token_bucket"
    """How the mock enforces tpm/rpm: a token bucket that starts full, or a sliding window (see mockllm.limits)."""
    workers: int = 1
    """Worker processes of the squall arm (``--workers``); above 1 the report adds ``workers``: 1 vs N side by side."""


def mock_config(settings: BenchSettings) -> dict[str, Any]:
    config: dict[str, Any] = {"policy": {"kind": "first_tool"}, "latency_s": settings.latency_s, "seed": 0}
    if settings.jitter_s:
        config["jitter_s"] = settings.jitter_s
    limits: dict[str, Any] = {}
    if settings.rpm is not None:
        limits["rpm"] = settings.rpm
    if settings.tpm is not None:
        limits["tpm"] = settings.tpm
    if limits:
        config["rate_limit"] = {**limits, "algorithm": settings.limiter}
    if settings.faults == "mix":
        # One uniform draw per request partitions [0, 1): exactly 5% 429, 5% 5xx, 2% hangs, 2% bad bodies.
        hang = settings.request_timeout_s * 2
        config["faults"] = [
            {"kind": "rate_limit", "probability": 0.05, "retry_after_s": 1.0},
            {"kind": "server_error", "probability": 0.05, "status": 503},
            {"kind": "timeout", "probability": 0.02, "hang_s": hang},
            {"kind": "malformed", "probability": 0.02},
        ]
    return config


def run_mcp_arm(settings: BenchSettings) -> dict[str, Any]:
    """The outside-agent arm: one tool call in-process and over MCP, in a process of its own."""
    done = subprocess.run(
        [sys.executable, "-m", "sim.bench.mcp_arm", json.dumps({"calls": settings.mcp_calls})],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    if done.returncode != 0:
        raise RuntimeError(f"bench arm mcp failed (exit {done.returncode}): {done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def run_arm(arm: Arm, settings: BenchSettings) -> dict[str, Any]:
    waves = -(-settings.episodes // settings.concurrency)
    expected_s = waves * 8 * (settings.latency_s + settings.jitter_s)  # ~6-7 calls per episode, with room to spare
    lifetime = min(86_400.0, max(600.0, 3 * expected_s + 300))  # the mock exits by itself after this
    with (
        mock_llm_server(mock_config(settings), max_lifetime_s=lifetime) as server,
        tempfile.TemporaryDirectory() as out,
    ):
        params = {
            "url": server.url,
            "episodes": settings.episodes,
            "concurrency": settings.concurrency,
            "scheduler": SCHEDULER.get(arm, "adaptive"),  # the bare arm has none
            "request_timeout_s": settings.request_timeout_s,
            "out": out,
            "workers": settings.workers if arm == "squall" else 1,
        }
        done = subprocess.run(
            [sys.executable, "-m", "sim.bench.bare_arm" if arm == "bare" else "sim.bench.arm", json.dumps(params)],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=False,
            timeout=lifetime,
        )
        if done.returncode != 0:
            raise RuntimeError(f"bench arm {arm} failed (exit {done.returncode}): {done.stderr[-2000:]}")
        result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        result["server"] = server.stats()
    return result


def with_bounds(result: dict[str, Any], settings: BenchSettings) -> dict[str, Any]:
    """Add achieved rates, their Little's-law (and TPM) bounds and the ratios."""
    wall = result["wall_s"]
    done = result["episodes"]
    calls_per_episode = result["requests"] / max(1, done)
    tokens_per_episode = result["tokens"] / max(1, done)
    achieved = done / wall
    mean_latency = settings.latency_s + settings.jitter_s / 2
    bound = settings.concurrency / (calls_per_episode * mean_latency)
    binding = "latency"
    burst_bound = bound
    if settings.tpm is not None and tokens_per_episode > 0:
        tpm_bound = settings.tpm / 60 / tokens_per_episode
        # The mock's bucket (like a provider's) starts full: over a run of T seconds it admits tpm * (1 + T/60)
        # tokens. A sliding window admits tpm in each minute: at most tpm * ceil(T/60).
        if settings.limiter == "sliding_window":
            burst_bound = min(bound, tpm_bound * 60 * math.ceil(wall / 60) / wall)
        else:
            burst_bound = min(bound, tpm_bound * (1 + 60 / wall))
        if tpm_bound < bound:
            bound, binding = tpm_bound, "tpm"
    attempts = result["requests"] + result["retries"]
    if "steady_requests_per_s" in result:
        request_bound = settings.concurrency / mean_latency  # C requests out at once, each taking the mean latency
        steady = {
            "steady_request_bound": round(request_bound, 3),
            "steady_ratio": round(result["steady_requests_per_s"] / request_bound, 3),
            "steady_achieved": round(result["steady_requests_per_s"] / calls_per_episode, 3),
        }
        result = {**result, **steady}
    return {
        **result,
        "achieved": round(achieved, 3),
        "bound": round(bound, 3),
        "ratio": round(achieved / bound, 3),
        "binding": binding,
        "bound_with_initial_burst": round(burst_bound, 3),
        "ratio_to_burst_bound": round(achieved / burst_bound, 3),
        "episodes_per_hour": round(achieved * 3600),
        "requests_per_s": round(result["requests"] / wall, 2),
        "tokens_per_min": round(result["tokens"] / wall * 60),
        "calls_per_episode": round(calls_per_episode, 2),
        "rate_limited_share": round(result["errors_429"] / max(1, attempts), 4),
    }


def _progress(line: str) -> None:
    """One line per arm on stderr: a bench takes minutes, and stdout stays the report (or one JSON document)."""
    sys.stderr.write(f"bench: {line}\n")
    sys.stderr.flush()


def run_bench(settings: BenchSettings) -> dict[str, Any]:
    arms: dict[str, Any] = {}
    chosen = [a for a in settings.arms if a != "mcp"]
    for i, arm in enumerate(chosen, 1):
        _progress(f"arm {arm} ({i}/{len(settings.arms)}): {settings.episodes} episodes, {settings.concurrency} at once")
        started = time.monotonic()
        arms[arm] = with_bounds(run_arm(arm, settings), settings)
        _progress(f"arm {arm} done in {time.monotonic() - started:.1f} s")
    out: dict[str, Any] = {"settings": asdict(settings)}
    if "mcp" in settings.arms:
        _progress(f"arm mcp ({len(settings.arms)}/{len(settings.arms)}): one tool call in-process vs over MCP")
        out["mcp"] = run_mcp_arm(settings)
    if "squall" in arms:
        out.update(arms["squall"])
    if "static" in arms:
        out["static"] = arms["static"]
    if "bare" in arms:
        out["bare"] = arms["bare"]
    if "squall" in arms and "bare" in arms:
        out["floor"] = floor(arms["squall"], arms["bare"])
    if "squall" in arms and "static" in arms:
        out["comparison"] = compare(arms["squall"], arms["static"])
    if settings.workers > 1 and "squall" in settings.arms:
        from sim.bench.workers import run_workers

        def squall_with(workers: int) -> dict[str, Any]:
            return with_bounds(run_arm("squall", replace(settings, workers=workers)), settings)

        out["workers"] = run_workers(settings.workers, squall_with, arms.get("squall"))
    return out


def compare(squall: dict[str, Any], static: dict[str, Any]) -> dict[str, float]:
    """squall against the static runner on the same workload: below 1 squall took less wall time."""
    return {
        "wall_ratio": round(squall["wall_s"] / max(1e-9, static["wall_s"]), 3),
        "achieved_ratio": round(squall["achieved"] / max(1e-9, static["achieved"]), 3),
        "cpu_ms_per_request_ratio": round(squall["cpu_ms_per_request"] / max(1e-9, static["cpu_ms_per_request"]), 3),
    }


FLOOR_TARGET = 2.0
"""Issue 41: squall's harness CPU per request at most twice a bare client's."""


def floor(squall: dict[str, Any], bare: dict[str, Any]) -> dict[str, float]:
    """squall's harness CPU per request against the bare aiohttp client's on the same workload (the floor)."""
    return {
        "cpu_ms_per_request_ratio": round(squall["cpu_ms_per_request"] / max(1e-9, bare["cpu_ms_per_request"]), 3),
        "target": FLOOR_TARGET,
    }


def _steady(r: dict[str, Any]) -> str:
    if "steady_achieved" not in r:
        return "- (needs > 2x concurrency episodes)"
    rss = f" (RSS {r['steady_rss_mb'][0]:.0f} -> {r['steady_rss_mb'][1]:.0f} MB)" if "steady_rss_mb" in r else ""
    return f"{r['steady_requests_per_s']:.1f}, {r['steady_ratio']:.3f}{rss}"


ROWS = (
    ("episodes done / failed", lambda r: f"{r['episodes']} / {r['failed_episodes']}"),
    ("episodes/s (achieved)", lambda r: f"{r['achieved']:.2f}"),
    ("episodes/s (bound)", lambda r: f"{r['bound']:.2f} ({r['binding']})"),
    ("achieved / bound", lambda r: f"{r['ratio']:.3f}"),
    ("steady state: requests/s, / bound", _steady),
    (
        "bound incl. initial burst, achieved / it",
        lambda r: f"{r['bound_with_initial_burst']:.2f}, {r['ratio_to_burst_bound']:.3f}",
    ),
    ("wall time s", lambda r: f"{r['wall_s']:.1f}"),
    ("episodes/hour", lambda r: f"{r['episodes_per_hour']:,}"),
    ("requests/s", lambda r: f"{r['requests_per_s']:.1f}"),
    ("tokens/min", lambda r: f"{r['tokens_per_min']:,}"),
    ("tokens / request (the requests' size)", lambda r: f"{r['tokens'] / max(1, r['requests']):,.0f}"),
    ("429s (share of attempts)", lambda r: f"{r['errors_429']} ({100 * r['rate_limited_share']:.2f}%)"),
    ("harness CPU ms / request", lambda r: f"{r['cpu_ms_per_request']:.3f}"),
    ("harness cores busy (CPU s / wall s)", lambda r: f"{r['cores_busy']:.2f}"),
    ("peak RSS MB", lambda r: f"{r['peak_rss_mb']:.0f}"),
)


def render(report: dict[str, Any]) -> str:
    text = render_arms(report) if "achieved" in report or "static" in report else ""
    return text + (render_mcp(report["mcp"]) if "mcp" in report else "")


def render_mcp(mcp: dict[str, Any]) -> str:
    """The tool call side by side: in-process (as squall's own agents call it) and over MCP (an outside agent)."""
    from rich.table import Table

    table = Table(title=f"squall bench: one tool call ({mcp['tool']}, mean of {mcp['calls']}), in-process vs MCP")
    for name in ("metric", "in-process", "over MCP", "MCP / in-process"):
        table.add_column(name, justify="left" if name == "metric" else "right")
    table.add_row("ms per tool call", f"{mcp['direct_ms']:.3f}", f"{mcp['mcp_ms']:.3f}", f"{mcp['ratio']:.1f}x")
    table.add_row("MCP hop, ms per tool call", "", f"{mcp['hop_ms']:.3f}", "")
    return _printed(table)


def _printed(table: object) -> str:
    from io import StringIO

    from rich.console import Console

    buffer = StringIO()
    Console(file=buffer, width=120).print(table)
    return buffer.getvalue()


def render_arms(report: dict[str, Any]) -> str:
    from rich.table import Table

    arms = [("squall", report)] if "achieved" in report else []
    if "bare" in report:
        arms.append(("bare client (floor)", report["bare"]))
    if "static" in report:
        arms.append(("static (peer way)", report["static"]))
    table = Table(title="squall bench: " + ", ".join(f"{k}={v}" for k, v in report["settings"].items() if v))
    table.add_column("metric")
    for name, _ in arms:
        table.add_column(name, justify="right")
    versus = "static" in report and "achieved" in report
    if versus:
        table.add_column("squall / static", justify="right")
    for label, cell in ROWS:
        row = [cell(r) for _, r in arms]
        if versus and label == "episodes/s (achieved)":
            row.append(f"{report['achieved'] / max(1e-9, report['static']['achieved']):.2f}x")
        elif versus:
            row.append("")
        table.add_row(label, *row)
    return _printed(table) + (_floor_line(report) if "floor" in report else "")


def _floor_line(report: dict[str, Any]) -> str:
    ratio = report["floor"]["cpu_ms_per_request_ratio"]
    verdict = "within" if ratio <= FLOOR_TARGET else "over"
    return (
        f"harness CPU per request: squall {report['cpu_ms_per_request']:.3f} ms, bare aiohttp client "
        f"{report['bare']['cpu_ms_per_request']:.3f} ms: {ratio:.2f}x the floor ({verdict} the {FLOOR_TARGET:g}x "
        "target)\n"
    )
