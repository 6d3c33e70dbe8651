"""`squall stressors assign`: draft scenario rows for a world with a model, through a gateway like a run's.

The pipeline itself (``worlds.stressors.assign``) sees only an LLM handle (``sim.cli.generator.model_handle``: a
gateway built like a run's, response cache included, so a re-run with the same world, model and seed makes no
endpoint request).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sim.cli.generator import (
    DEFAULT_CACHE_DIR,
    CacheDirOption,
    CacheOption,
    ModelOption,
    SeedOption,
    WorldOption,
    fail_usage,
    generator_config,
    model_handle,
)

if TYPE_CHECKING:
    from sim.config.run_config import RunConfig
    from sim.core import WorldPack
    from worlds.stressors.assign import AssignReport


def assign_command(
    world: WorldOption,
    model: ModelOption,
    out: Annotated[Path, typer.Option("--out", help="JSONL file for the accepted rows (written atomically).")],
    top: Annotated[int, typer.Option("--top", min=1, help="Pairs drafted per complexity type.")] = 3,
    types: Annotated[list[str] | None, typer.Option("--types", help="Complexity types (repeat; default all).")] = None,
    cache: CacheOption = "read-write",
    cache_dir: CacheDirOption = DEFAULT_CACHE_DIR,
    seed: SeedOption = 0,
) -> None:
    """Rate every (type, tool) pair with a model, draft rows for the best, keep the drafts that validate."""
    from worlds.registry import WorldLoadError, load_world
    from worlds.stressors.scenario import LEVEL

    config = generator_config(world, seed, cache, cache_dir)
    kinds = [k for item in types or [] for k in item.split(",") if k]
    unknown = [k for k in kinds if k not in LEVEL]
    if unknown:
        fail_usage(f"--types: unknown complexity type(s) {', '.join(unknown)}; known: {', '.join(LEVEL)}")
    try:
        pack = load_world(world)
    except WorldLoadError as exc:
        fail_usage(str(exc))
    report = asyncio.run(_run(config, model, pack, kinds or None, top))
    from worlds.stressors.assign import write_rows

    write_rows(out, report.accepted)
    reasons = ", ".join(f"{n} {r}" for r, n in sorted(report.reasons().items())) or "none"
    sys.stdout.write(
        f"pairs rated: {report.pairs - report.skipped} of {report.pairs} ({report.skipped} skipped: no usable score)\n"
        f"drafts: {len(report.chosen)}; accepted: {len(report.accepted)}; "
        f"rejected: {len(report.rejected)} ({reasons})\n"
        f"request failures: {report.request_failures}\nwrote {len(report.accepted)} rows to {out}\n"
    )
    for kind, tool, reason in report.rejected:
        sys.stdout.write(f"  rejected {kind} x {tool}: {reason}\n")


async def _run(config: RunConfig, model: str, pack: WorldPack, kinds: list[str] | None, top: int) -> AssignReport:
    from sim.agents.factory import AgentUnavailable
    from worlds.stressors.assign import assign

    try:
        async with model_handle(config, model) as handle:
            return await assign(handle, model, pack, types=kinds, top=top, seed=config.seed)
    except AgentUnavailable as exc:
        fail_usage(f"--model: {exc}")
