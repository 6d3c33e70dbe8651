"""Store appends, side by side: one write + fsync per record on the event loop (the old path) vs the store writer
(queued on the loop, batched write + fsync on its thread). Prints records/s, fsyncs/s and how long the event loop
was held, measured in one process, one invocation, on the same disk.

    python -m sim.bench.store_writer [--episodes 2000] [--events 40] [--dir DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from judges.names import JudgeName
from sim.core import EpisodeId, EpisodeResult, Event, Goal, Score, Task, ToolCall, ToolResult, UserIntent
from sim.store.run_store import RunStore
from sim.store.writer import StoreWriter


def synthetic_episode(i: int, events: int) -> EpisodeResult:
    """An episode of ``events`` tool results (~300 bytes each stored)."""
    task = Task(id=f"t{i % 10}", world="w", goals=[Goal(user=UserIntent(explicit="turn the lights on"), gold=[])])
    evs = []
    for k in range(events):
        call = ToolCall(id=f"c{k}", name="set_light", arguments={"device": f"light_{k}", "on": True})
        evs.append(
            Event(
                kind="tool_result",
                turn=0,
                step=k,
                call=call,
                result=ToolResult(call_id=call.id, status="success", content="ok"),
            )
        )
    return EpisodeResult(
        episode_id=str(EpisodeId(f"t{i % 10}", i // 10)),
        task_id=f"t{i % 10}",
        trial=i // 10,
        seed=i,
        world="w",
        agent="a",
        user="u",
        task=task,
        tools=[],
        events=evs,
    )


def scores_of(result: EpisodeResult) -> list[Score]:
    return [
        Score(episode_id=result.episode_id, task_id=result.task_id, trial=result.trial, judge=j, value=1.0)
        for j in (JudgeName.CORE_API_ACCURACY, JudgeName.CONVERSATION_SUCCESS)
    ]


class _LoopHold:
    """Longest time the loop went without running a 1 ms ticker (what a blocking call costs everyone else)."""

    def __init__(self) -> None:
        self.longest = 0.0

    async def run(self) -> None:
        while True:
            started = time.perf_counter()
            await asyncio.sleep(0.001)
            self.longest = max(self.longest, time.perf_counter() - started - 0.001)


def _episodes(template: EpisodeResult, n: int) -> Iterator[EpisodeResult]:
    """Made as they are stored, like a run's: the heap holds one at a time, so no full GC pass skews the arms."""
    for i in range(n):
        yield template.model_copy(update={"episode_id": str(EpisodeId(f"t{i % 10}", i // 10)), "task_id": f"t{i % 10}"})


async def _direct(root: Path, episodes: Iterable[EpisodeResult]) -> dict[str, Any]:
    store = RunStore.create(root, {"config_hash": "bench"})
    hold = _LoopHold()
    ticker = asyncio.create_task(hold.run())
    await asyncio.sleep(0.005)
    started = time.perf_counter()
    count = 0
    for result in episodes:  # what a worker did per episode before the writer: two appends, two fsyncs
        store.append_episode(result)
        store.append_scores(scores_of(result))
        count += 1
        await asyncio.sleep(0)
    wall = time.perf_counter() - started
    ticker.cancel()
    records = 3 * count
    fsyncs = 2 * count
    return _row("direct (fsync per append, on the loop)", records, fsyncs, wall, hold.longest)


async def _writer(root: Path, episodes: Iterable[EpisodeResult]) -> dict[str, Any]:
    store = RunStore.create(root, {"config_hash": "bench"})
    hold = _LoopHold()
    ticker = asyncio.create_task(hold.run())
    await asyncio.sleep(0.005)
    started = time.perf_counter()
    async with StoreWriter(store) as writer:
        for result in episodes:
            await writer.append_episode(result)
            await writer.append_scores(scores_of(result))
            await asyncio.sleep(0)
        await writer.flush()
    wall = time.perf_counter() - started
    ticker.cancel()
    row = _row("store writer (batched, thread)", writer.stats.records, writer.stats.fsyncs, wall, hold.longest)
    row["writer"] = writer.stats.as_dict()
    return row


def _row(name: str, records: int, fsyncs: int, wall: float, held: float) -> dict[str, Any]:
    return {
        "path": name,
        "records": records,
        "fsyncs": fsyncs,
        "wall_s": round(wall, 3),
        "records_per_s": round(records / wall, 1),
        "fsyncs_per_s": round(fsyncs / wall, 1),
        "loop_held_max_ms": round(1000 * held, 2),
    }


async def bench(episodes: int, events: int, folder: Path) -> dict[str, Any]:
    template = synthetic_episode(0, events)
    direct = await _direct(folder / "direct", _episodes(template, episodes))
    batched = await _writer(folder / "writer", _episodes(template, episodes))
    size = (folder / "writer" / "episodes.jsonl").stat().st_size
    return {
        "episodes": episodes,
        "bytes_per_episode": size // episodes,
        "arms": [direct, batched],
        "records_per_s_ratio": round(batched["records_per_s"] / direct["records_per_s"], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=2000)
    parser.add_argument("--events", type=int, default=40, help="events per synthetic episode")
    parser.add_argument("--dir", type=Path, default=None, help="folder on the disk to measure (default: a temp dir)")
    args = parser.parse_args()
    base = args.dir or Path(tempfile.mkdtemp(prefix="squall-bench-store-"))
    base.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(dir=base))
    print(json.dumps(asyncio.run(bench(args.episodes, args.events, folder)), indent=2))
    for name in ("direct", "writer"):
        for f in (folder / name).iterdir():
            os.unlink(f)
        (folder / name).rmdir()
    folder.rmdir()


if __name__ == "__main__":
    main()
