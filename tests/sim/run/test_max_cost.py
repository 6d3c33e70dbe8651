"""--max-cost stops admitting episodes once the run's model calls have cost that much, and says so."""

from __future__ import annotations

import json
from pathlib import Path

from sim.episode.loop import EpisodeSpec
from sim.run.executors import CostCeiling
from tests.support.cli import squall
from worlds.registry import load_world


class Recorder:
    concurrency = 1

    def __init__(self) -> None:
        self.taken: list[str] = []

    async def run(self, todo, sink) -> None:  # type: ignore[no-untyped-def]
        for spec in todo:
            self.taken.append(spec.episode_id)


async def test_the_ceiling_stops_admission_when_spent() -> None:
    task = load_world("smart_home").tasks()[0]
    specs = [EpisodeSpec(task=task, trial=k, seed=k) for k in range(10)]
    spent = iter([0.0, 0.4, 0.9, 1.0, 5.0])
    inner = Recorder()
    ceiling = CostCeiling(inner, lambda: next(spent), max_cost=1.0)
    await ceiling.run(iter(specs), sink=None)  # type: ignore[arg-type]
    assert inner.taken == ["sh-001#0", "sh-001#1", "sh-001#2"]
    assert ceiling.reached == {"max_cost": 1.0, "spent": 1.0}


def test_a_run_under_its_ceiling_runs_everything(tmp_path: Path) -> None:
    code, _, err = squall("run", "--agent", "oracle", "--limit", "2", "--max-cost", "0.5", "--out", str(tmp_path),
                          "--run-id", "r", "-q")  # fmt: skip
    assert code == 0, err
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["episodes"] == 2 and "stopped_by_max_cost" not in summary
