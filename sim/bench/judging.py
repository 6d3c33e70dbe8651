"""CPU the judges spend per episode, on stored runs: ``python -m sim.bench.judging RUN_DIR ... [--baseline CHECKOUT]``.

Each round parses every stored episode afresh (untimed: a run judges each trace once, so nothing a judge may keep on
a result carries over) and times ``sim.judging.judge_set.judge`` over them with ``time.process_time``, with the
run's default judges (``--error-judge off`` leaves out the embedding error-handling judge: numpy, not Python).
``--baseline CHECKOUT`` runs this same file, in turns with this tree, over another checkout's code (a subprocess with
``PYTHONPATH=CHECKOUT``): old and new side by side under the same load (a checkout from before episodes named
their toolkit, ``sim.store.toolkits``, reads only runs stored with tools inline). ``--scores FILE`` writes every
Score's JSON, one a line, to compare two checkouts' verdicts byte for byte.

Make runs to judge with the baseline agents (no model needed), e.g.
``squall run --world smart_home --agent naive --trials 20 --stressors all --out /tmp/runs --run-id sh``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from sim.config.run_config import RunConfig
from sim.core import EpisodeResult, Judge, Task, ToolSpec
from sim.judging.judge_set import build_judges, judge
from sim.store.run_store import EpisodeKey, RunStore


def _episodes(run: Path) -> list[EpisodeResult]:
    """The run's episodes, parsed afresh (a store of their own: no toolkit parsed in an earlier round is shared)."""
    return list(RunStore.open_existing(run).iter_episodes())


async def _judge_all(results: list[EpisodeResult], judges: list[Judge]) -> tuple[float, list[str]]:
    """CPU seconds to judge ``results``, and every Score's JSON."""
    start = time.process_time()
    scores = [await judge(result, judges, "bench") for result in results]
    spent = time.process_time() - start
    return spent, [s.model_dump_json() for episode in scores for s in episode]


def share_as_in_a_run(results: list[EpisodeResult]) -> None:
    """Give equal tasks one Task object, and equal tool specs one ToolSpec, as a run does: its trials of a task share
    the task's object and its episodes the world's specs, where stored traces parsed apart have objects of their own
    (judges keep what they derive from those objects across episodes: ``judges.common.shared_views``). A stressor's
    rewritten
    task is a new object per episode in a run: this over-shares those, so it is for runs without rewrites."""
    tasks: dict[str, Task] = {}
    specs: dict[str, ToolSpec] = {}
    for result in results:
        result.task = tasks.setdefault(result.task.model_dump_json(), result.task)
        result.tools = [specs.setdefault(spec.model_dump_json(), spec) for spec in result.tools]


def measure(
    run: Path, judges: list[Judge], rounds: int, as_in_a_run: bool = False
) -> tuple[list[float], int, list[str]]:
    """Per round, CPU ms per episode judged; the episode count; the Scores' JSON (of the last round)."""
    per_episode: list[float] = []
    scores: list[str] = []
    count = 0
    for _ in range(rounds):
        results = _episodes(run)
        count = len(results)
        if as_in_a_run:
            share_as_in_a_run(results)
        spent, scores = asyncio.run(_judge_all(results, judges))
        per_episode.append(1000 * spent / max(1, len(results)))
    return per_episode, count, scores


def _child(
    runs: list[Path], error_judge: str, rounds: int, scores: Path | None, as_in_a_run: bool = False
) -> dict[str, list[float]]:
    """This checkout's numbers: per run, CPU ms per episode of each round."""
    judges = build_judges(RunConfig(error_judge=error_judge))
    out: dict[str, list[float]] = {}
    written: list[str] = []
    for run in runs:
        out[str(run)], _, run_scores = measure(run, judges, rounds, as_in_a_run)
        written += run_scores
    if scores is not None:
        scores.write_text("".join(line + "\n" for line in written))
    return out


def _run_checkout(checkout: Path, args: list[str]) -> dict[str, list[float]]:
    """This file's numbers over ``checkout``'s code, in a process of its own."""
    code = "import runpy, sys; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')"
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    done = subprocess.run(
        [sys.executable, "-c", code, __file__, *args, "--child"],
        cwd=checkout,  # ``-c`` puts the working folder first on the path: the checkout's, not this tree's
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, list[float]] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m sim.bench.judging", description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run directories (with episodes.jsonl)")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds per run and process")
    parser.add_argument("--turns", type=int, default=3, help="with --baseline: processes of each checkout, in turns")
    parser.add_argument("--error-judge", default="embedding", choices=("off", "embedding"))
    parser.add_argument("--baseline", type=Path, help="another checkout to time side by side with this one")
    parser.add_argument("--scores", type=Path, help="write every Score's JSON here, one a line")
    parser.add_argument(
        "--as-in-a-run",
        action="store_true",
        help="share equal tasks' and tool specs' objects among episodes, as a run without stressor rewrites does",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child or args.baseline is None:
        numbers = _child(args.runs, args.error_judge, args.rounds, args.scores, args.as_in_a_run)
        if args.child:
            print(json.dumps(numbers))
            return
        for run, ms in numbers.items():
            print(f"{run}: {statistics.median(ms):.3f} ms CPU per episode (median of {len(ms)})")
        return
    common = [*(str(r.resolve()) for r in args.runs), "--rounds", str(args.rounds), "--error-judge", args.error_judge]
    common += ["--as-in-a-run"] if args.as_in_a_run else []
    here = Path(__file__).resolve().parents[2]
    new: dict[str, list[float]] = {str(r): [] for r in args.runs}
    old: dict[str, list[float]] = {str(r): [] for r in args.runs}
    for _ in range(args.turns):  # A B A B ...: drift in the machine's speed falls on both
        for checkout, into in ((args.baseline, old), (here, new)):
            for run, ms in zip(map(str, args.runs), _run_checkout(checkout, common).values(), strict=True):
                into[run] += ms
    print(f"{'run':<40} {'episodes':>8} {'baseline ms':>12} {'this ms':>9} {'ratio':>6}")
    for run in map(str, args.runs):
        before, after = statistics.median(old[run]), statistics.median(new[run])
        episodes = sum(1 for _ in RunStore.open_existing(Path(run)).iter_episodes(EpisodeKey))
        print(f"{run:<40} {episodes:>8} {before:>12.3f} {after:>9.3f} {before / after:>6.2f}")


if __name__ == "__main__":
    main()
