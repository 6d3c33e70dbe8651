"""The soak arm of `squall bench --duration`: a real run kept at N episodes in flight for a fixed time, sampled.

Run as ``python -m sim.bench.soak_arm '<json params>'`` by ``sim.bench.soak``. The run is ``sim.bench.arm``'s (the
real gateway over HTTP to the mock, smart_home episodes, judged and stored), planned with more episodes than the
duration can finish, so every slot stays busy; it is cancelled when the duration has passed (what was in flight is
lost, as a cancelled run loses it). From the first admission, a thread prints one JSON line per ``every_s`` to
stdout: resident MB of this process and its workers, episodes stored, and the mock's answered and in-flight
requests. A thread, not a task on the run's loop: the loop is what is being measured, and a sample must not wait
behind it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import threading
import time
import urllib.request
from typing import Any

from sim.bench.arm import run_config
from sim.bench.rss import tree_rss_mb
from sim.run.event_loop import run
from sim.run.runner import execute

CANCEL_GRACE_S = 60.0
"""How long the cancelled run may take to stop its workers before this process exits anyway (the kernel then stops
them: they die with their parent)."""


def _mock_counts(url: str) -> tuple[int, int]:
    """The mock's answered (HTTP 200) and in-flight requests; (-1, -1) when it did not answer in time."""
    try:
        with urllib.request.urlopen(url.rstrip("/") + "/stats", timeout=5) as reply:
            stats = json.load(reply)
        return int(stats["by_status"].get("200", 0)), int(stats["in_flight"])
    except (OSError, ValueError, KeyError):
        return -1, -1


class Sampler:
    """Prints a sample every ``every_s`` seconds from a thread, on a fixed grid from ``start``."""

    def __init__(self, url: str, every_s: float) -> None:
        self._url, self._every = url, every_s
        self.episodes = 0  # stored episodes: bumped on the run's loop, read here (an int read is atomic)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="bench-soak-sampler", daemon=True)
        self._t0 = 0.0

    def start(self) -> None:
        self._t0 = time.monotonic()
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)

    def _loop(self) -> None:
        k = 0
        while True:
            self.sample()
            k += 1
            if self._stop.wait(max(0.0, self._t0 + k * self._every - time.monotonic())):
                return

    def sample(self) -> None:
        t = time.monotonic() - self._t0
        rss, processes = tree_rss_mb(os.getpid())
        answered, in_flight = _mock_counts(self._url)
        line = {"kind": "sample", "t": round(t, 2), "rss_mb": round(rss, 1), "processes": processes,
                "episodes": self.episodes, "requests": answered, "in_flight": in_flight}  # fmt: skip
        sys.stdout.write(json.dumps(line) + "\n")
        sys.stdout.flush()


async def soak(params: dict[str, Any]) -> dict[str, Any]:
    """Play until ``duration_s`` after the first admission, then cancel; returns how it ended."""
    config = run_config(params)
    sampler = Sampler(params["url"], params["every_s"])
    started = asyncio.Event()

    def on_start(planned: int, done: int) -> None:
        sampler.start()
        started.set()

    def on_episode(done: object) -> None:
        sampler.episodes += 1

    playing = asyncio.ensure_future(execute(config, on_start, on_episode))
    opened = asyncio.ensure_future(started.wait())
    await asyncio.wait({playing, opened}, return_when=asyncio.FIRST_COMPLETED)
    if not started.is_set():
        playing.result()  # it ended before admitting anything: raise what stopped it
        raise RuntimeError("the run ended before admitting an episode")
    await asyncio.wait({playing}, timeout=params["duration_s"])
    ran_out = playing.done()  # every planned episode finished before the duration: the plan was too small
    sampler.sample()  # the last sample, at the duration's end
    sampler.stop()
    playing.cancel()
    await asyncio.wait({playing}, timeout=CANCEL_GRACE_S)
    with contextlib.suppress(asyncio.CancelledError):
        if playing.done() and not playing.cancelled() and playing.exception() is not None:
            raise RuntimeError(f"the run failed: {playing.exception()!r}")
    return {"kind": "end", "ran_out": ran_out, "episodes": sampler.episodes}


def main() -> None:
    end = run(soak(json.loads(sys.argv[1])))
    sys.stdout.write(json.dumps(end) + "\n")
    sys.stdout.flush()
    os._exit(0)  # a worker still stopping, or a thread still blocked on a socket, must not hold the exit


if __name__ == "__main__":
    main()
