"""`squall stressors paraphrase`: model-written wordings of a world's user requests, for ``perturb.paraphrase_written``.

Requests go through a gateway built as a run builds its own (limits, retries, the response cache), so a re-run
with the same world, model and seed makes no endpoint request. Only wordings that keep every value are written.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sim.assign_cli import fail_usage

if TYPE_CHECKING:
    from sim.config import RunConfig
    from sim.core import ModelRequest, Task
    from worlds.stressors.paraphrases import ParaphraseReport


def paraphrase_command(
    world: Annotated[str, typer.Option("--world", help="A built-in world, a task file or a world directory.")],
    model: Annotated[str, typer.Option("--model", help="Model spec, e.g. openai-chat:NAME@BASE_URL.")],
    out: Annotated[Path, typer.Option("--out", help="JSONL file of paraphrases (written atomically).")],
    per_turn: Annotated[int, typer.Option("--per-turn", min=1, max=10, help="Wordings asked for per turn.")] = 3,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N tasks.")] = None,
    cache: Annotated[str, typer.Option("--cache", help="read-write | read-only | off.")] = "read-write",
    cache_dir: Annotated[Path, typer.Option("--cache-dir", help="Folder of the response cache.")] = Path(
        ".cache/responses"
    ),
    seed: Annotated[int, typer.Option("--seed", help="Sampling seed of every request.")] = 0,
) -> None:
    """Ask a model for other wordings of every turn's request; keep those that carry every value verbatim."""
    from sim.config import RunConfig  # imported here: `squall --help` need not load pydantic models
    from sim.llm.cache import CACHE_MODES
    from worlds.registry import WorldLoadError, load_world
    from worlds.stressors.paraphrases import write_rows

    if cache not in CACHE_MODES:
        fail_usage(f"--cache: one of {', '.join(CACHE_MODES)}, not {cache!r}")
    try:
        tasks = load_world(world).tasks()[:limit]
    except WorldLoadError as exc:
        fail_usage(str(exc))
    config = RunConfig(world=world, seed=seed, cache=cache, cache_dir=cache_dir)
    report = asyncio.run(_run(config, model, tasks, per_turn))
    write_rows(out, report.rows)
    sys.stdout.write(
        f"turns asked: {report.asked}; wordings proposed: {report.proposed}; kept: {report.kept} "
        f"(dropped {report.proposed - report.kept}: a value changed or missing)\n"
        f"request failures: {report.request_failures}\nwrote {len(report.rows)} turns to {out}\n"
        f"use: squall run --world {world} --stressors perturb.paraphrase_written:file={out}\n"
    )


async def _run(config: RunConfig, model: str, tasks: list[Task], per_turn: int) -> ParaphraseReport:
    from sim.agents.factory import AgentUnavailable, resolve_model
    from sim.llm.gateway import EpisodeLLM
    from sim.runner import build_gateway
    from worlds.stressors.paraphrases import write_paraphrases

    gateway = build_gateway(config)
    try:
        try:
            resolve_model(gateway, model)
        except AgentUnavailable as exc:
            fail_usage(f"--model: {exc}")
        handle = EpisodeLLM(gateway, max_steps=1, record=lambda _event: None, clock=time.monotonic)

        async def complete(request: ModelRequest) -> str | None:
            try:
                return (await handle.complete(request)).text
            except Exception:  # a provider fault past the gateway's retries: counted, the other turns go on
                return None

        return await write_paraphrases(complete, model, tasks, per_turn=per_turn, seed=config.seed)
    finally:
        await gateway.aclose()
