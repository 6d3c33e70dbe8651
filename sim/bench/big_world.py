"""A big OpenAPI world, imported and loaded by this tree and by another revision of squall, side by side in one run:

    python -m sim.bench.big_world [--operations 250] [--baseline REV]

The document is ``sim.bench.big_spec``'s (Discord-shaped: large, nested, mutually referencing components). Each
arm imports it in its own process (seconds, peak memory, the folder's size against the spec's, the largest stored
operation), then loads the folder in a fresh process (seconds to a pack and its tool list). CPU seconds are printed
beside wall seconds: on a shared machine they move less with its load. ``--baseline REV`` adds the same
measurements for that revision (``git archive`` of it, run with the same Python) and prints each of this tree's
numbers as a ratio to the baseline's. Targets (issue 41): import < 5 s, folder < 10x the spec, load < 1 s.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sim.bench.big_spec import big_spec
from sim.bench.mock_process import REPO_ROOT

ARM = Path(__file__).with_name("big_world_arm.py")
ROWS = (
    ("import_s", "import (s)", "{:.2f}"),
    ("import_cpu_s", "import CPU (s)", "{:.2f}"),
    ("peak_mb", "import peak memory (MB)", "{:.0f}"),
    ("folder_ratio", "folder / spec", "{:.2f}x"),
    ("largest_operation_kb", "largest stored operation (KB)", "{:.1f}"),
    ("load_s", "load to tool list (s)", "{:.2f}"),
    ("load_cpu_s", "load CPU (s)", "{:.2f}"),
)


def run_arm(tree: Path, *args: str) -> dict[str, Any]:
    """The arm script's JSON, run with ``tree`` first on the path."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, str(ARM), *args], cwd=tree, env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"{tree}: {' '.join(args[:1])} failed:\n{done.stderr[-3000:]}")
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def measure(tree: Path, spec: Path, work: Path) -> dict[str, Any]:
    out = work / "world"
    found = run_arm(tree, "import", str(spec), str(out))
    found |= run_arm(tree, "load", str(out))
    found["folder_ratio"] = found["folder_bytes"] / spec.stat().st_size
    found["largest_operation_kb"] = found["largest_operation_bytes"] / 1024
    return found


def checkout(revision: str, into: Path) -> Path:
    """The files of ``revision`` of this repository, unpacked under ``into``."""
    archive = into / "baseline.tar"
    with archive.open("wb") as sink:
        subprocess.run(["git", "archive", revision], cwd=REPO_ROOT, stdout=sink, check=True)
    tree = into / "baseline"
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter="data")
    return tree


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m sim.bench.big_world", description=__doc__.splitlines()[0])
    parser.add_argument("--operations", type=int, default=250)
    parser.add_argument("--baseline", metavar="REV", help="Also measure this git revision (e.g. main).")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="squall-big-world-") as temp:
        work = Path(temp)
        spec = work / "discord_shaped.json"
        spec.write_text(json.dumps(big_spec(args.operations), indent=1), encoding="utf-8")
        print(f"spec: {args.operations} operations, {spec.stat().st_size / 1e6:.2f} MB")
        arms = {"this tree": measure(REPO_ROOT, spec, work / "this")}
        if args.baseline:
            arms = {args.baseline: measure(checkout(args.baseline, work), spec, work / "baseline"), **arms}
        print(f"{'':32}" + "".join(f"{name:>16}" for name in arms) + ("    this / baseline" if args.baseline else ""))
        for key, label, shape in ROWS:
            values = [arm[key] for arm in arms.values()]
            ratio = f"{values[-1] / values[0]:>19.3f}" if args.baseline and values[0] else ""
            print(f"{label:32}" + "".join(f"{shape.format(v):>16}" for v in values) + ratio)
        for name, arm in arms.items():
            print(f"{name}: {arm['operations']} operations stored, {arm['skipped']} skipped, {arm['tools']} tools")


if __name__ == "__main__":
    main()
