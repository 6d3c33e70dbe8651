"""`squall stressors assign`: draft scenario rows for a world with a model, through a gateway like a run's.

The pipeline itself (``worlds.stressors.assign``) sees only an LLM handle; this module owns the model access:
the gateway with the run's defaults (limits, retries, scheduler) and its response cache, so a re-run with the
same world, model and seed makes no endpoint request.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

if TYPE_CHECKING:
    from sim.config import RunConfig
    from sim.core import WorldPack
    from worlds.stressors.assign import AssignReport


def assign_command(
    world: Annotated[str, typer.Option("--world", help="A built-in world, a task file or a world directory.")],
    model: Annotated[str, typer.Option("--model", help="Model spec, e.g. openai-chat:NAME@BASE_URL.")],
    out: Annotated[Path, typer.Option("--out", help="JSONL file for the accepted rows (written atomically).")],
    top: Annotated[int, typer.Option("--top", min=1, help="Pairs drafted per complexity type.")] = 3,
    types: Annotated[list[str] | None, typer.Option("--types", help="Complexity types (repeat; default all).")] = None,
    cache: Annotated[str, typer.Option("--cache", help="read-write | read-only | off.")] = "read-write",
    cache_dir: Annotated[Path, typer.Option("--cache-dir", help="Folder of the response cache.")] = Path(
        ".cache/responses"
    ),
    seed: Annotated[int, typer.Option("--seed", help="Sampling seed of every request.")] = 0,
) -> None:
    """Rate every (type, tool) pair with a model, draft rows for the best, keep the drafts that validate."""
    from sim.config import RunConfig  # imported here: `squall --help` need not load pydantic models
    from sim.llm.cache import CACHE_MODES
    from worlds.registry import WorldLoadError, load_world
    from worlds.stressors.scenario import LEVEL

    if cache not in CACHE_MODES:
        fail_usage(f"--cache: one of {', '.join(CACHE_MODES)}, not {cache!r}")
    kinds = [k for item in types or [] for k in item.split(",") if k]
    unknown = [k for k in kinds if k not in LEVEL]
    if unknown:
        fail_usage(f"--types: unknown complexity type(s) {', '.join(unknown)}; known: {', '.join(LEVEL)}")
    try:
        pack = load_world(world)
    except WorldLoadError as exc:
        fail_usage(str(exc))
    config = RunConfig(world=world, seed=seed, cache=cache, cache_dir=cache_dir)
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
    """The pipeline on a gateway built as a run builds its own, closed on the way out."""
    from sim.agents.factory import AgentUnavailable, resolve_model
    from sim.llm.gateway import EpisodeLLM
    from sim.runner import build_gateway
    from worlds.stressors.assign import assign

    gateway = build_gateway(config)
    try:
        try:
            resolve_model(gateway, model)
        except AgentUnavailable as exc:
            fail_usage(f"--model: {exc}")
        handle = EpisodeLLM(gateway, max_steps=1, record=lambda _event: None, clock=time.monotonic)
        return await assign(handle, model, pack, types=kinds, top=top, seed=config.seed)
    finally:
        await gateway.aclose()


def fail_usage(message: str) -> NoReturn:
    sys.stderr.write(f"error: {message}\n")
    raise typer.Exit(2)
