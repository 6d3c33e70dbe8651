"""Per-episode cost of building a world, for every built-in world, side by side with the 5 ms target.

    python -m sim.bench.world_build [--episodes 10000]

Times ``pack.new_world(seed)`` plus a first state hash (what an episode does before its first turn), and the
memory that many worlds alive at once hold (tracemalloc), as 10,000 episodes in flight would.
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from collections.abc import Sequence

from worlds.registry import known_worlds, load_world

TARGET_MS = 5.0


def measure(name: str, episodes: int) -> dict[str, float]:
    pack = load_world(name)
    started = time.perf_counter()
    for seed in range(episodes):
        pack.new_world(seed).state_hash()
    per_episode_ms = (time.perf_counter() - started) * 1000 / episodes
    tracemalloc.start()
    alive = [pack.new_world(seed) for seed in range(episodes)]
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del alive
    return {"build_ms": per_episode_ms, "ratio": per_episode_ms / TARGET_MS, "kb_per_world": held / 1024 / episodes}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=10_000)
    args = parser.parse_args(argv)
    names = known_worlds()
    print(f"{'world':<14} {'build ms/episode':>17} {'/ 5 ms target':>14} {'KB per live world':>18}", flush=True)
    for i, name in enumerate(names, 1):
        # Progress on stderr (a run takes minutes): stdout stays the table, each row flushed as it is measured.
        print(f"[{i}/{len(names)}] {name}: {args.episodes:,} builds, then {args.episodes:,} alive", file=sys.stderr)
        row = measure(name, args.episodes)
        print(f"{name:<14} {row['build_ms']:>17.4f} {row['ratio']:>14.4f} {row['kb_per_world']:>18.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
