"""One arm of `squall bench`: a real run through the real gateway over HTTP, measured inside its own process.

Run as ``python -m sim.bench.arm '<json params>'``; prints one JSON object. A process per arm keeps each
arm's CPU time and peak RSS its own, and keeps the mock server's CPU out of both.
"""

from __future__ import annotations

import json
import math
import os
import resource
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from judges.names import JudgeName
from sim.config.run_config import RunConfig
from sim.run.event_loop import run
from sim.run.runner import execute

PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")


def run_config(params: dict[str, Any]) -> RunConfig:
    """The run an arm plays: ``params["episodes"]`` smart_home episodes against the mock at ``params["url"]``."""
    tasks = 10  # the smart_home world's task count: trials = episodes / tasks
    return RunConfig(
        agent=f"openai-chat:mock-model@{params['url']}",
        world="smart_home",
        trials=max(1, math.ceil(params["episodes"] / tasks)),
        concurrency=params["concurrency"],
        scheduler=params["scheduler"],
        request_timeout_s=params["request_timeout_s"],
        episode_timeout_s=params.get("episode_timeout_s", 3600.0),
        out=Path(params["out"]),
        run_id=params["scheduler"],
        max_tokens=params.get("max_tokens", 64),
        workers=params.get("workers", 1),
        preflight=False,  # the mock's injected faults are the measurement; a probe would perturb its counters
    )


def run_arm(params: dict[str, Any]) -> dict[str, Any]:
    config = run_config(params)
    # Whole-run throughput: from the first admission to the last episode stored (not start-up or summary).
    marks: dict[str, float] = {}
    finished: list[tuple[float, float]] = []  # (time, resident MB) of each stored episode, in order
    sampled: set[int] = set()  # the episodes whose resident memory steady_state reads (reading it costs CPU)

    def on_start(planned: int, done: int) -> None:
        marks["start"], marks["cpu_start"] = time.monotonic(), time.process_time()
        marks["workers_cpu_start"] = children_cpu_s()  # worker processes' start-up, not counted
        n, c = planned - done, params["concurrency"]
        sampled.update((c - 1, n - c - 1))

    def on_episode(done: object) -> None:
        marks["end"], marks["cpu_end"] = time.monotonic(), time.process_time()
        finished.append((marks["end"], _resident_mb() if len(finished) in sampled else 0.0))

    served = EndpointCounter(params["url"])
    served.start()
    try:
        _, summary = run(execute(config, on_start, on_episode))
    finally:
        served.stop()
    wall = marks["end"] - marks["start"]
    # The workers (--workers N) have exited: their CPU is in RUSAGE_CHILDREN (the mock is not this process's child).
    workers_cpu = _waited_children_cpu_s() - marks["workers_cpu_start"]
    cpu = marks["cpu_end"] - marks["cpu_start"] + workers_cpu
    usage = summary.usage
    return {
        "episodes": summary.episodes,
        "failed_episodes": summary.failed_episodes,
        "terminations": summary.terminations,
        "requests": usage.requests,
        "retries": usage.retries,
        "errors_429": summary.error_codes.get("provider:rate_limited", 0),
        "tokens": usage.input_tokens + usage.output_tokens,
        "wall_s": round(wall, 3),
        "cpu_s": round(cpu, 3),  # everything the harness did per request: agent, gateway, world, judges, store
        "cpu_ms_per_request": round(1000 * cpu / max(1, usage.requests), 3),
        # Cores the harness kept busy (CPU s / wall s): well under 1, its loop mostly waited on the endpoint, and each
        # request's work ran in a short burst after a wait, which costs more CPU than the same work back to back.
        "cores_busy": round(cpu / max(1e-9, wall), 3),
        "workers": config.workers,
        "workers_cpu_s": round(workers_cpu, 3),  # of cpu_s: what the worker processes spent (0 with one process)
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        JudgeName.CORE_API_ACCURACY: summary.judged.get(JudgeName.CORE_API_ACCURACY),
        **steady_state(finished, params["concurrency"], served.samples),
    }


def steady_state(
    finished: list[tuple[float, float]], concurrency: int, served: list[tuple[float, int]]
) -> dict[str, Any]:
    """Request throughput and memory while every slot is busy and the pipeline has filled.

    Each stored episode admits the next, so exactly ``concurrency`` episodes are in flight until the
    (N - C)-th completion admits the last one; by the C-th completion about one episode duration has passed.
    Between the two, every slot holds an episode, and an episode has at most one model request out: at most
    C requests are at the endpoint, so C / latency requests per second is the bound, and what falls short of
    it is time a slot spent in the harness instead of at the endpoint. Requests are counted at the endpoint
    (``served``). Episodes per second are not used here: with a few task lengths and fixed latencies,
    completions come in waves, and a window's ends fall at arbitrary phases of them. A run of at most 2C
    episodes has no such window. The whole-run rate counts the first episode duration, when nothing can
    finish yet, and the drain, which waits for the longest episode: at N = C that alone caps it at
    mean / longest episode duration whatever the harness does."""
    n, c = len(finished), concurrency
    if n <= 2 * c:
        return {}
    (t0, rss0), (t1, rss1) = finished[c - 1], finished[n - c - 1]
    inside = [(t, count) for t, count in served if t0 <= t <= t1]
    if len(inside) < 2 or inside[-1][0] <= inside[0][0]:
        return {}
    (s0, c0), (s1, c1) = inside[0], inside[-1]
    return {
        "steady_window_s": round(t1 - t0, 3),
        "steady_requests_per_s": round((c1 - c0) / (s1 - s0), 3),
        "steady_rss_mb": [round(rss0, 1), round(rss1, 1)],  # resident memory as the window opens and closes
    }


class EndpointCounter:
    """Samples the mock endpoint's count of answered requests (HTTP 200) once a second, from a thread."""

    def __init__(self, url: str) -> None:
        self._url = url.rstrip("/") + "/stats"
        self.samples: list[tuple[float, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, name="bench-endpoint-counter", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _poll(self) -> None:
        while not self._stop.is_set():
            try:
                with urllib.request.urlopen(self._url, timeout=5) as reply:
                    served = json.load(reply)["by_status"].get("200", 0)  # answered; not 429s or faults
                    self.samples.append((time.monotonic(), int(served)))
            except (OSError, ValueError, KeyError):
                pass  # a missed sample only narrows the window
            self._stop.wait(1.0)


def children_cpu_s() -> float:
    """CPU seconds of this process's live child processes (the --workers processes), from /proc."""
    total, me = 0, os.getpid()
    for entry in os.scandir("/proc") if os.path.isdir("/proc") else ():
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as stat:
                    fields = stat.read().rpartition(b")")[2].split()
            except OSError:
                continue
            if int(fields[1]) == me:
                total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def _waited_children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _resident_mb() -> float:
    with open("/proc/self/statm", "rb") as statm:
        return int(statm.read().split()[1]) * PAGE_BYTES / 2**20


def main() -> None:
    print(json.dumps(run_arm(json.loads(sys.argv[1]))))


if __name__ == "__main__":
    main()
