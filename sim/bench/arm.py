"""One arm of `squall bench`: a real run through the real gateway over HTTP, measured inside its own process.

Run as ``python -m sim.bench.arm '<json params>'``; prints one JSON object. A process per arm keeps each
arm's CPU time and peak RSS its own, and keeps the mock server's CPU out of both.
"""

from __future__ import annotations

import asyncio
import json
import math
import resource
import sys
import time
from pathlib import Path
from typing import Any

from sim.config import RunConfig
from sim.runner import execute


def run_arm(params: dict[str, Any]) -> dict[str, Any]:
    tasks = 10  # the smart_home world's task count: trials = episodes / tasks
    config = RunConfig(
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
    )
    # Steady-state throughput: from the first admission to the last episode stored (not start-up or summary).
    marks: dict[str, float] = {}

    def on_start(planned: int, done: int) -> None:
        marks["start"], marks["cpu_start"] = time.monotonic(), time.process_time()

    def on_episode(result: object, scores: object) -> None:
        marks["end"], marks["cpu_end"] = time.monotonic(), time.process_time()

    _, summary = asyncio.run(execute(config, on_start, on_episode))
    wall = marks["end"] - marks["start"]
    cpu = marks["cpu_end"] - marks["cpu_start"]
    usage = summary["usage"]
    codes = summary.get("error_codes") or {}
    return {
        "episodes": summary["episodes"],
        "failed_episodes": summary["failed_episodes"],
        "terminations": summary["terminations"],
        "requests": usage["requests"],
        "retries": usage["retries"],
        "errors_429": int(codes.get("provider:rate_limited", 0)),
        "tokens": usage["input_tokens"] + usage["output_tokens"],
        "wall_s": round(wall, 3),
        "cpu_s": round(cpu, 3),  # everything the harness did per request: agent, gateway, world, judges, store
        "cpu_ms_per_request": round(1000 * cpu / max(1, usage["requests"]), 3),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "core_api_accuracy": summary["core_api_accuracy"],
    }


def main() -> None:
    print(json.dumps(run_arm(json.loads(sys.argv[1]))))


if __name__ == "__main__":
    main()
