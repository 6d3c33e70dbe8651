"""`squall judges calibrate`: how the error-handling judge's raters agree with a hand-labelled set and each other, or
(``--judge solvable_pass``) how a judge model's solvability verdicts agree with theirs (``sim.cli.judges_solvable``)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from judges.names import JudgeName
from sim.cli.common import fail

judges_app = typer.Typer(help="Calibrate the judges.", no_args_is_help=True, add_completion=False)

RATERS = ("embedding", "llm")


@judges_app.command("calibrate")
def calibrate_command(
    labels: Annotated[
        Path | None, typer.Option(help="A labelled JSONL set (default: the one shipped, judges/errors/data).")
    ] = None,
    raters: Annotated[
        str, typer.Option(help="Comma-separated: embedding, llm (llm needs --judge-model).")
    ] = "embedding",
    judge_model: Annotated[
        str | None,
        typer.Option(
            help="Model of the llm rater, e.g. openai-chat:NAME@URL; 'local' is the embedded SmolLM2-135M, which "
            "rates near chance and takes many minutes on a CPU, so it is never picked by default."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON (with every rater's score per case).")] = False,
    judge: Annotated[
        str,
        typer.Option(
            help="Which judge: error_handling (its raters, the default) or solvable_pass (StableToolBench-style "
            "solvability; needs --judge-model; its labelled set is judges/solvable/data)."
        ),
    ] = JudgeName.ERROR_HANDLING,
) -> None:
    """Score the labelled set with each rater; print Cohen's kappa against the labels and between raters."""
    if judge == JudgeName.SOLVABLE_PASS:
        from sim.cli.judges_solvable import calibrate_solvable

        calibrate_solvable(labels, judge_model, as_json)
        return
    if judge != JudgeName.ERROR_HANDLING:
        fail(f"--judge: unknown {judge!r}; choose error_handling or solvable_pass")
    from judges.errors.calibration import LABELS_PATH, LabelsError, load_labels
    from sim.config.run_config import ConfigError
    from sim.llm.errors import ProviderError

    chosen = [r.strip() for r in raters.split(",") if r.strip()]
    unknown = [r for r in chosen if r not in RATERS]
    if unknown or not chosen:
        fail(f"--raters: unknown {', '.join(unknown) or '(none given)'}; choose from {', '.join(RATERS)}")
    if "llm" in chosen and judge_model is None:
        fail("--raters llm needs --judge-model MODEL (the embedded toy model is never picked by default)")
    try:
        cases = load_labels(labels or LABELS_PATH)
        report = asyncio.run(_calibrate(cases, chosen, judge_model or "local"))
    except (LabelsError, ConfigError) as exc:
        fail(str(exc))
    except ProviderError as exc:  # retries spent (a CPU model on a busy machine times out): one line, no traceback
        fail(f"--judge-model {judge_model}: {exc}", code=1)
    if as_json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
        return
    _print(report)


async def _calibrate(cases: list[Any], chosen: list[str], judge_model: str) -> dict[str, Any]:
    from contextlib import AsyncExitStack

    from judges.errors.calibration import calibrate
    from judges.errors.error_handling import EmbeddingRater, Rater
    from judges.errors.error_handling_llm import LLMRater
    from sim.cli.common import stderr_progress
    from sim.config.run_config import ConfigError, RunConfig
    from sim.judging.judge_set import open_judge_model

    raters: list[Rater] = []
    async with AsyncExitStack() as stack:
        for name in chosen:
            if name == "embedding":
                from sim.core.embedding import Embedder, embedding_available

                if (reason := embedding_available()) is not None:
                    raise ConfigError(f"--raters embedding: {reason}")
                raters.append(EmbeddingRater(Embedder()))
            else:
                config = RunConfig(judge_model=judge_model, error_judge="llm")
                raters.append(LLMRater(await stack.enter_async_context(open_judge_model(config))))
        progress = stderr_progress()
        bars = {r.mode: progress.add_task(f"rater {r.mode}", total=len(cases)) for r in raters}
        with progress:
            return await calibrate(cases, raters, lambda mode: progress.advance(bars[mode]))


def _print(report: dict[str, Any]) -> None:
    counts = ", ".join(f"{s}: {n}" for s, n in report["labels"].items())
    print(f"{report['cases']} labelled replies (labels {counts})")
    for mode, n in report["unusable"].items():
        if n:
            print(f"  {mode}: no usable verdict on {n} case(s) (left out of its rows)")
    print(f"{'':<26}{'n':>5}{'kappa':>8}{'quadratic':>11}{'exact':>8}{'within 1':>10}")
    rows = [(f"{mode} vs labels", a) for mode, a in report["vs_labels"].items()]
    rows += list(report["between"].items())
    for name, a in rows:
        if a is None:
            print(f"{name:<26}{0:>5}  (no case scored by both)")
            continue
        kappa = "n/a" if a["kappa"] is None else f"{a['kappa']:.3f}"
        quad = "n/a" if a["kappa_quadratic"] is None else f"{a['kappa_quadratic']:.3f}"
        print(f"{name:<26}{a['n']:>5}{kappa:>8}{quad:>11}{a['exact']:>8.0%}{a['within_one']:>10.0%}")
