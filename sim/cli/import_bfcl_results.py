"""``squall import bfcl-results PATH``: BFCL result files (``bfcl generate``'s ``BFCL_v*_<category>_result.json``)
as squall runs, one per category, scored by squall's judges; with BFCL's score files found, its verdicts beside
squall's and the agreement (``sim.run.bfcl_results``)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sim.cli.common import fail, user_errors

if TYPE_CHECKING:
    from sim.run.bfcl_results import CategoryResult

SHOWN = 10
"""Disagreeing ids listed per category (the count is whole)."""


def bfcl_results_command(
    path: Annotated[Path, typer.Argument(help="A BFCL result file, or a folder holding them (searched recursively).")],
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Folder for the runs, one per category (default: runs/bfcl-MODEL_NAME)."),
    ] = None,
    model_name: Annotated[
        str | None,
        typer.Option("--model-name", help="The model the results are of (default: its folder, result/MODEL/...)."),
    ] = None,
    scores: Annotated[
        Path | None,
        typer.Option("--scores", help="Folder with BFCL's score files (BFCL_v*_score.json; default: beside PATH)."),
    ] = None,
) -> None:
    """Score BFCL result files with squall's judges: one run per category (agent replay:MODEL_NAME), per-category
    accuracy printed beside BFCL's own verdicts where its score files are found, and how often the two agree."""
    from sim.run.bfcl_results import import_category, plan_import
    from worlds.bfcl.source import BfclError

    model = model_name or model_of(path)
    folder = out if out is not None else Path("runs") / f"bfcl-{model}"
    errors: tuple[type[Exception], ...] = (*user_errors(), BfclError)
    try:
        planned = plan_import(path, folder, scores)
        results = [asyncio.run(import_category(p, folder, model)) for p in planned]
    except errors as error:
        fail(str(error))
    _print(results)


GROUPS = frozenset({"non_live", "live", "multi_turn", "agentic", "format_sensitivity"})
"""The folders ``bfcl generate`` groups a model's result files in (``result/MODEL/non_live/...``)."""


def model_of(path: Path) -> str:
    """The model a result path is of: the folder ``bfcl generate`` named after it, above its group folders."""
    folder = path.resolve() if path.is_dir() else path.resolve().parent
    while folder.name in GROUPS and folder.parent != folder:
        folder = folder.parent
    return folder.name or "bfcl"


def _print(results: list[CategoryResult]) -> None:
    write = sys.stdout.write
    for result in results:
        for note in result.notes:
            write(f"note: {note}\n")
    write(f"{'category':<26} {'entries':>7} {'squall':>8} {'BFCL':>8}  agreement\n")
    agreed = compared = 0
    for r in results:
        squall = [v for v in r.squall.values() if v is not None]
        bfcl = list(r.bfcl.values()) if r.bfcl is not None else []
        differ = r.disagreements()
        both = [i for i in r.squall if r.bfcl is not None and i in r.bfcl and r.squall[i] is not None]
        agreement = f"{len(both) - len(differ)}/{len(both)}" if r.bfcl is not None else "no BFCL score file"
        write(f"{r.category:<26} {len(r.squall):>7} {_pct(squall):>8} {_pct(bfcl):>8}  {agreement}\n")
        agreed += len(both) - len(differ)
        compared += len(both)
    for r in results:
        unscored = [i for i, v in r.squall.items() if v is None]
        if unscored:
            write(f"{r.category}: {len(unscored)} entries without a squall verdict: {', '.join(unscored[:SHOWN])}\n")
    if compared:
        differ = [i for r in results for i in r.disagreements()]
        listed = f"; disagreements: {', '.join(differ[:SHOWN])}" + (" ..." if len(differ) > SHOWN else "")
        write(f"agreement: {agreed}/{compared}{listed if differ else ''}\n")
    for r in results:
        write(f"run: {r.run_dir}\n")


def _pct(verdicts: list[bool]) -> str:
    return f"{100 * sum(verdicts) / len(verdicts):.1f}%" if verdicts else "-"
