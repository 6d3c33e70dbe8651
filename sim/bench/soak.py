"""`squall bench --duration S`: N episodes in flight for S seconds against the mock, RSS sampled, a verdict at the end.

The mock runs in its own process (its CPU and memory are not the harness's); the run runs in another
(``sim.bench.soak_arm``), which prints a sample every ``--rss-every`` seconds: the summed resident memory of the
run's process and its ``--workers`` processes, episodes stored, and the mock's answered and in-flight requests. This
process prints each sample as it arrives, writes the series as JSON lines (``--series``) and ends with the verdict:

- throughput: requests answered per second after warm-up, against the steady bound C / mean latency (C requests out
  at once, each taking the mean latency; each episode has at most one request out);
- memory: the least-squares slope of RSS after warm-up in MB/min, and last minus first sample; flat when the slope
  is within ``sim.bench.rss``'s threshold.

Warm-up ends at the later of a fifth of the duration and the first sample at which C episodes are stored: until
every slot has turned over once, the conversations in flight are still growing, and so is memory.
"""

from __future__ import annotations

import contextlib
import json
import math
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from sim.bench.command import BenchSettings, mock_config
from sim.bench.mock_process import REPO_ROOT, mock_llm_server, stop_pid
from sim.bench.rss import growth
from sim.core.files import write_text_atomic

WARMUP_SHARE = 0.2
EXIT_GRACE_S = 120.0  # the arm's own cancel grace (60 s) and its last sample, with room to spare


@dataclass(frozen=True)
class SoakSettings:
    concurrency: int = 10_000
    latency_s: float = 5.0
    jitter_s: float = 15.0
    """Latency is uniform in [latency_s, latency_s + jitter_s]: 5-20 s by default."""
    duration_s: float = 600.0
    every_s: float = 5.0
    workers: int = 1
    request_timeout_s: float = 120.0
    warmup_s: float | None = None
    """None: the later of a fifth of the duration and the C-th stored episode (see the module's docstring)."""

    @property
    def mean_latency_s(self) -> float:
        return self.latency_s + self.jitter_s / 2

    @property
    def episodes(self) -> int:
        """Planned episodes: more than the duration can finish (an episode makes at least two calls; a smart_home
        episode about six), so no slot runs dry. The plan is built once, before the first sample."""
        per_slot = math.ceil(self.duration_s / (3 * self.mean_latency_s)) + 1
        return self.concurrency * per_slot


def verdict(series: list[dict[str, Any]], settings: SoakSettings) -> dict[str, Any]:
    """Throughput against the steady bound and RSS growth, over the samples after warm-up."""
    warmup, turned = settings.warmup_s, True
    if warmup is None:
        when = next((s["t"] for s in series if s["episodes"] >= settings.concurrency), None)
        turned = when is not None
        warmup = max(WARMUP_SHARE * settings.duration_s, when if when is not None else 0.0)
    after = [s for s in series if s["t"] >= warmup and s["requests"] >= 0]
    bound = settings.concurrency / settings.mean_latency_s
    out: dict[str, Any] = {"warmup_s": warmup, "steady_request_bound": round(bound, 2)}
    if settings.warmup_s is None:
        out["turned_over"] = turned  # every slot's first episode stored within the run
    if len(after) >= 2 and after[-1]["t"] > after[0]["t"]:
        rate = (after[-1]["requests"] - after[0]["requests"]) / (after[-1]["t"] - after[0]["t"])
        out.update(requests_per_s=round(rate, 2), steady_ratio=round(rate / bound, 3))
    grew = growth([(s["t"], s["rss_mb"]) for s in series], warmup)
    if not turned:  # throughput is steady within a few latencies; memory only once every slot has turned over
        out["rss"] = {"verdict": f"too short: fewer than {settings.concurrency} episodes stored (warm-up not over)"}
    else:
        out["rss"] = grew.as_dict() if grew else {"verdict": "too short: fewer than 3 samples after warm-up"}
    return out


HEADER = f"{'t s':>7} {'RSS MB':>9} {'procs':>5} {'in flight':>9} {'episodes':>9} {'requests':>10} {'req/s':>8}"


def row(sample: dict[str, Any], before: dict[str, Any] | None) -> str:
    rate = ""
    if before is not None and sample["t"] > before["t"] and min(sample["requests"], before["requests"]) >= 0:
        rate = f"{(sample['requests'] - before['requests']) / (sample['t'] - before['t']):.1f}"
    return (
        f"{sample['t']:>7.1f} {sample['rss_mb']:>9.1f} {sample['processes']:>5} {sample['in_flight']:>9} "
        f"{sample['episodes']:>9} {sample['requests']:>10} {rate:>8}"
    )


def render_verdict(report: dict[str, Any]) -> str:
    v, s = report["verdict"], report["settings"]
    lines = [f"steady bound {v['steady_request_bound']:.1f} requests/s ({s['concurrency']} in flight / "
             f"{s['latency_s'] + s['jitter_s'] / 2:g} s mean latency); warm-up {v['warmup_s']:.0f} s"]  # fmt: skip
    if "steady_ratio" in v:
        achieved = f"achieved {v['requests_per_s']:.1f} requests/s after warm-up"
        lines.append(f"{achieved}: {v['steady_ratio']:.3f} of the bound")
    rss = v["rss"]
    if "slope_mb_per_min" in rss:
        lines.append(
            f"RSS after warm-up: {rss['first_mb']:.0f} -> {rss['last_mb']:.0f} MB ({rss['delta_mb']:+.1f} MB), slope "
            f"{rss['slope_mb_per_min']:+.2f} MB/min over {rss['samples_after_warmup']} samples: {rss['verdict']} "
            f"(threshold {rss['threshold_mb_per_min']:.2f} MB/min)"
        )
    else:
        lines.append(f"RSS: {rss['verdict']}")
    if report["ran_out"]:
        lines.append("the plan ran out before the duration: fewer than C were in flight at the end")
    return "\n".join(lines) + "\n"


def run_soak(settings: SoakSettings, echo: Callable[[str], None], series_path: Path | None = None) -> dict[str, Any]:
    """Run the soak; ``echo`` gets the header, each sample's row as it arrives, and nothing else."""
    mock = mock_config(BenchSettings(latency_s=settings.latency_s, jitter_s=settings.jitter_s))
    lifetime = settings.duration_s + 600.0  # start-up, planning and the cancel, with room: the mock then exits itself
    series: list[dict[str, Any]] = []
    end: dict[str, Any] = {}
    with mock_llm_server(mock, max_lifetime_s=lifetime) as server, tempfile.TemporaryDirectory() as out:
        params = {"url": server.url, "episodes": settings.episodes, "concurrency": settings.concurrency,
                  "scheduler": "adaptive", "request_timeout_s": settings.request_timeout_s, "out": f"{out}/run",
                  "workers": settings.workers, "duration_s": settings.duration_s,
                  "every_s": settings.every_s}  # fmt: skip
        log = Path(out) / "soak_arm.stderr"  # a file, not a pipe: a full pipe nobody reads until the end blocks
        with log.open("w") as log_fh:
            arm = subprocess.Popen(
                [sys.executable, "-m", "sim.bench.soak_arm", json.dumps(params)],
                cwd=REPO_ROOT,
                stdout=subprocess.PIPE,
                stderr=log_fh,
                text=True,
            )
        # an arm that hangs silent never ends the loop below: the timer stops it, and its stdout ends with it
        overdue = threading.Timer(lifetime, stop_pid, (arm,))
        overdue.daemon = True
        overdue.start()
        try:
            echo(HEADER)
            assert arm.stdout is not None
            for line in arm.stdout:
                message = _parsed(line)
                if message.get("kind") == "sample":
                    echo(row(message, series[-1] if series else None))
                    series.append(message)
                elif message.get("kind") == "end":
                    end = message
            with contextlib.suppress(subprocess.TimeoutExpired):
                arm.wait(timeout=EXIT_GRACE_S)
        finally:
            overdue.cancel()
            stop_pid(arm)  # by PID; a no-op once it has exited
        if arm.returncode != 0 or not end:
            raise RuntimeError(f"bench soak arm failed (exit {arm.returncode}): {log.read_text()[-2000:]}")
    report = {"settings": asdict(settings), "series": series, "ran_out": end["ran_out"]}
    report["verdict"] = verdict(series, settings)
    if series_path is not None:
        write_text_atomic(series_path, "".join(json.dumps(s) + "\n" for s in series))
    return report


def _parsed(line: str) -> dict[str, Any]:
    """A JSON object line of the arm's, or {} (the run may log other lines)."""
    try:
        message = json.loads(line)
    except ValueError:
        return {}
    return message if isinstance(message, dict) else {}
