"""`squall judges calibrate --judge solvable_pass`: the solvability judge's verdicts on the shipped labelled set,
and its Cohen's kappa against the labels."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from judges.names import JudgeName
from sim.cli.common import fail


def calibrate_solvable(labels: Path | None, judge_model: str | None, as_json: bool) -> None:
    from judges.solvable.calibration import LABELS_PATH, LabelsError, load_labels
    from sim.config.run_config import ConfigError
    from sim.llm.errors import ProviderError

    if judge_model is None:
        fail("--judge solvable_pass needs --judge-model MODEL (the embedded toy model is never picked by default)")
    try:
        cases = load_labels(labels or LABELS_PATH)
        report = asyncio.run(_calibrate(cases, judge_model))
    except (LabelsError, ConfigError) as exc:
        fail(str(exc))
    except ProviderError as exc:  # retries spent: one line, no traceback
        fail(f"--judge-model {judge_model}: {exc}", code=1)
    if as_json:
        sys.stdout.write(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
        return
    _print(report)


async def _calibrate(cases: list[Any], judge_model: str) -> dict[str, Any]:

    from judges.solvable.calibration import calibrate
    from sim.cli.common import stderr_progress
    from sim.config.run_config import RunConfig
    from sim.judging.judge_set import open_judge_model

    async with open_judge_model(RunConfig(judge_model=judge_model)) as model:
        progress = stderr_progress()
        bar = progress.add_task(JudgeName.SOLVABLE_PASS, total=len(cases))
        with progress:
            return await calibrate(cases, model, lambda: progress.advance(bar))


def _print(report: dict[str, Any]) -> None:
    counts = ", ".join(f"{label}: {n}" for label, n in report["labels"].items())
    print(f"{report['cases']} labelled answers (labels {counts}); judge model {report['model']}")
    if report["unusable"]:
        print(f"  no usable verdict on {report['unusable']} case(s) (left out of the agreement)")
    if not report["n"]:
        print("kappa n/a: the judge gave no usable verdict on any case")
        return
    kappa = "n/a" if report["kappa"] is None else f"{report['kappa']:.3f}"
    quad = "n/a" if report["kappa_quadratic"] is None else f"{report['kappa_quadratic']:.3f}"
    print(f"solvable_pass vs labels: n {report['n']}, kappa {kappa}, quadratic {quad}, exact {report['exact']:.0%}")
    for kind, row in report["by_kind"].items():
        print(f"  {kind:<14}{row['agree']:>3} of {row['n']} as labelled")
    for label, said in report["confusion"].items():
        print(f"  labelled {label:<9} judged: " + (", ".join(f"{v} {n}" for v, n in said.items()) or "-"))
