"""What the commands that ask a model for data share (`stressors assign`, `stressors paraphrase`, `stressors
expand --model`): their common options, and a model handle on a gateway built as a run builds its own.

The gateway brings the run's limits, retries and response cache, so a re-run with the same inputs, model and seed
makes no endpoint request; the model is resolved before any request, so a bad spec fails at once and clearly.
"""

from __future__ import annotations

import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

if TYPE_CHECKING:
    from sim.config.run_config import RunConfig
    from sim.core import LLMHandle

WorldOption = Annotated[str, typer.Option("--world", help="A built-in world, a task file or a world directory.")]
ModelOption = Annotated[str, typer.Option("--model", help="Model spec, e.g. openai-chat:NAME@BASE_URL.")]
CacheOption = Annotated[str, typer.Option("--cache", help="read-write | read-only | off.")]
CacheDirOption = Annotated[Path, typer.Option("--cache-dir", help="Folder of the response cache.")]
SeedOption = Annotated[int, typer.Option("--seed", help="Sampling seed of every request.")]
DEFAULT_CACHE_DIR = Path(".cache/responses")


def fail_usage(message: str) -> NoReturn:
    sys.stderr.write(f"error: {message}\n")
    raise typer.Exit(2)


def generator_config(world: str, seed: int, cache: str, cache_dir: Path) -> RunConfig:
    """The run settings a generator command's gateway is built from; a bad --cache fails here."""
    from sim.config.run_config import RunConfig  # imported here: `squall --help` need not load pydantic models
    from sim.llm.cache import CACHE_MODES

    if cache not in CACHE_MODES:
        fail_usage(f"--cache: one of {', '.join(CACHE_MODES)}, not {cache!r}")
    return RunConfig(world=world, seed=seed, cache=cache, cache_dir=cache_dir)


@asynccontextmanager
async def model_handle(config: RunConfig, model: str) -> AsyncIterator[LLMHandle]:
    """A one-step LLM handle for ``model`` on a gateway built like a run's, closed on the way out.

    Raises ``sim.agents.factory.AgentUnavailable`` before any request when the model cannot be used here."""
    from sim.agents.factory import resolve_model
    from sim.config.gateway import build_gateway
    from sim.llm.gateway import EpisodeLLM

    gateway = build_gateway(config)
    try:
        resolve_model(gateway, model)
        yield EpisodeLLM(gateway, max_steps=1, record=lambda _event: None, clock=time.monotonic)
    finally:
        await gateway.aclose()
