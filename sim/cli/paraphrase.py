"""`squall stressors paraphrase`: model-written wordings of a world's user requests, for ``perturb.paraphrase_written``.

Requests go through ``sim.cli.generator.model_handle`` (a gateway built like a run's, response cache included), so
a re-run with the same world, model and seed makes no endpoint request. Only wordings that keep every value are written.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
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
    from sim.core import LLMHandle, ModelRequest, Task
    from worlds.stressors.paraphrases import ParaphraseReport


def paraphrase_command(
    world: WorldOption,
    model: ModelOption,
    out: Annotated[Path, typer.Option("--out", help="JSONL file of paraphrases (written atomically).")],
    per_turn: Annotated[int, typer.Option("--per-turn", min=1, max=10, help="Wordings asked for per turn.")] = 3,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N tasks.")] = None,
    cache: CacheOption = "read-write",
    cache_dir: CacheDirOption = DEFAULT_CACHE_DIR,
    seed: SeedOption = 0,
) -> None:
    """Ask a model for other wordings of every turn's request; keep those that carry every value verbatim."""
    from worlds.registry import WorldLoadError, load_world
    from worlds.stressors.paraphrases import write_rows

    config = generator_config(world, seed, cache, cache_dir)
    try:
        tasks = load_world(world).tasks()[:limit]
    except WorldLoadError as exc:
        fail_usage(str(exc))
    similarity = _similarity()
    report = asyncio.run(_run(config, model, tasks, per_turn, similarity))
    write_rows(out, report.rows)
    sys.stdout.write(
        f"turns asked: {report.asked}; wordings proposed: {report.proposed}; kept: {report.kept} (dropped "
        f"{report.copies}: a copy of the request or of the instruction; "
        f"{report.lost_values}: a value changed or missing, or too short / too few of its words; "
        f"{report.lost_meaning}: its meaning too far from the original's)\n"
        f"request failures: {report.request_failures}\n"
        f"wrote {len(report.rows)} reworded turns to {out}; {report.unchanged} keep their own wording\n"
        f"use: squall run --world {world} --stressors perturb.paraphrase_written:file={out}\n"
    )


def _similarity() -> Callable[[str, str], float] | None:
    """The embedding check's cosine, or None (said on stderr) where the [embed] extra is missing."""
    from sim.core.embedding import Embedder, embedding_available

    if (reason := embedding_available()) is not None:
        sys.stderr.write(f"warning: embedding check skipped ({reason}); the length and overlap floors still apply\n")
        return None
    return Embedder().similarity


async def _run(
    config: RunConfig, model: str, tasks: list[Task], per_turn: int, similarity: Callable[[str, str], float] | None
) -> ParaphraseReport:
    from sim.agents.factory import AgentUnavailable
    from worlds.stressors.paraphrases import write_paraphrases

    try:
        async with _handle(config, model) as (handle, name):

            async def complete(request: ModelRequest) -> str | None:
                try:
                    return (await handle.complete(request)).text
                except Exception:  # a provider fault past the gateway's retries: counted, the other turns go on
                    return None

            return await write_paraphrases(
                complete, name, tasks, per_turn=per_turn, seed=config.seed, similarity=similarity
            )
    except AgentUnavailable as exc:
        fail_usage(f"--model: {exc}")


@asynccontextmanager
async def _handle(config: RunConfig, model: str) -> AsyncIterator[tuple[LLMHandle, str]]:
    """The model's handle and the name requests carry; ``local`` starts the embedded model for the command's
    length, as a run does (toy quality: it proves the path offline, the value check keeps what it may)."""
    from sim.llm.model_access import LOCAL

    if model != LOCAL:
        async with model_handle(config, model) as handle:
            yield handle, model
        return
    from sim.config.gateway import build_gateway
    from sim.llm.gateway import EpisodeLLM
    from sim.llm.model_access import open_model

    gateway = build_gateway(config)
    try:
        async with open_model(gateway, model) as name:
            yield EpisodeLLM(gateway, max_steps=1, record=lambda _event: None, clock=time.monotonic), name
    finally:
        await gateway.aclose()
