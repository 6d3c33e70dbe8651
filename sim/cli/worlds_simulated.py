"""`squall worlds warm W --model M` and `squall worlds draft-tasks W --model M --n K`: a simulated world's cache
filled ahead of a run, and tasks drafted by a model (kept only when their gold executes)."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from sim.cli.generator import fail_usage, generator_config

if TYPE_CHECKING:
    from sim.core import LLMHandle
    from worlds.simulated.world import SimulatedPack

WorldArgument = Annotated[
    str, typer.Argument(help="A simulated world: its directory (or a built-in such as ticket_desk).")
]
T = TypeVar("T")
ModelFlag = Annotated[
    str | None, typer.Option("--model", help="Simulator model spec (default: the world.toml's 'model').")
]


def simulated_pack(world: str, model: str | None, fallback: str | None = None) -> tuple[SimulatedPack, str]:
    """The world's pack and its simulator model: ``model``, else the world.toml's, else ``fallback``."""
    from worlds.registry import WorldLoadError, load_world
    from worlds.simulated.world import SimulatedPack

    try:
        pack = load_world(world)
    except WorldLoadError as error:
        fail_usage(str(error))
    if not isinstance(pack, SimulatedPack):
        fail_usage(f'{world}: not a simulated world (world.toml kind = "simulated")')
    chosen = model or pack.runtime.model or fallback
    if chosen is None:
        fail_usage(f"{world}: no simulator model: pass --model, or set 'model' in its world.toml")
    pack.runtime.model = chosen
    return pack, chosen


async def with_handle(world: str, models: Sequence[str], use: Callable[[LLMHandle, list[str]], Awaitable[T]]) -> T:
    """Run ``use(handle, the models' names)`` on a gateway built like a run's; ``local`` starts the embedded model."""
    from sim.config.gateway import build_gateway
    from sim.llm.gateway import EpisodeLLM
    from sim.llm.model_access import ModelUnavailable, open_model

    config = generator_config(world, 0, "off", Path(".cache/responses"))  # the world's cache is its own
    gateway = build_gateway(config)
    try:
        async with AsyncExitStack() as stack:
            names = [await stack.enter_async_context(open_model(gateway, model)) for model in models]
            handle = EpisodeLLM(gateway, max_steps=1, record=lambda _event: None, clock=time.monotonic)
            return await use(handle, names)
    except ModelUnavailable as exc:
        fail_usage(f"--model: {exc}")
    finally:
        await gateway.aclose()


def warm_command(world: WorldArgument, model: ModelFlag = None) -> None:
    """Fill the world's response cache with every task's gold calls (every path), asking the model on a miss."""
    from worlds.simulated.warm import WarmReport, warm

    pack, chosen = simulated_pack(world, model)

    def progress(done: int, total: int, task: object) -> None:
        sys.stderr.write(f"\r[{done}/{total}] {getattr(task, 'id', '')} — {pack.runtime.store.count()} cached")
        sys.stderr.flush()

    async def use(handle: LLMHandle, names: list[str]) -> WarmReport:
        pack.runtime.model = names[0]
        return await warm(pack, handle, progress=progress)

    report = asyncio.run(with_handle(world, [chosen], use))
    sys.stderr.write("\n")
    sys.stdout.write(
        f"{world}: {len(pack.tasks())} tasks, {report.calls} gold calls replayed, {report.added} answers added "
        f"({pack.runtime.store.count()} cached in {pack.runtime.store.directory})\n"
    )
    for task_id, where, why in report.failures:
        sys.stdout.write(f"  failed: task {task_id}: {where}: {why}\n")
    if report.failures:
        raise typer.Exit(1)


def token_counter() -> Callable[[str], int]:
    """tiktoken's o200k count; without its offline files, a character estimate that overcounts (bounds hold)."""
    from sim.llm.tokens import TokenizerUnavailable, count_tokens, get_encoding

    try:
        get_encoding()
    except TokenizerUnavailable as exc:
        sys.stderr.write(f"warning: {exc}; prompt tokens estimated as characters / 3\n")
        return lambda text: len(text) // 3 + 1
    return count_tokens


def draft_tasks_command(
    world: WorldArgument,
    n: Annotated[int, typer.Option("--n", min=1, help="Drafts to ask for.")] = 5,
    model: ModelFlag = None,
    out: Annotated[Path | None, typer.Option("--out", help="JSONL to write (default: W/tasks.jsonl).")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the first draft (the next get seed+1, ...).")] = 0,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing --out.")] = False,
    max_prompt_tokens: Annotated[
        int,
        typer.Option("--max-prompt-tokens", min=500, help="Bound on each draft's prompt, in tokens (o200k)."),
    ] = 12_000,
    max_operations: Annotated[
        int, typer.Option("--max-operations", min=1, help="Operations offered to one draft at most.")
    ] = 16,
    group: Annotated[
        str,
        typer.Option(
            "--group",
            help="How a draft's operations are chosen around its seed (seeds go round-robin over the spec): "
            "search (BM25 over names and descriptions), tag (the seed's first tag) or spec (its neighbours).",
        ),
    ] = "search",
) -> None:
    """Ask a model for tasks; keep those whose gold calls execute through the simulator (answers cached)."""
    from worlds.simulated.draft import DraftLimits, DraftReport, draft_tasks
    from worlds.simulated.draft_prompt import GROUPINGS, PromptBoundTooSmall

    grouping = next((g for g in GROUPINGS if g == group), None)
    if grouping is None:
        fail_usage(f"--group: '{group}' is not one of {', '.join(GROUPINGS)}")
    pack, chosen = simulated_pack(world, model)
    if out is None and pack.folder is None:
        fail_usage(f"{world}: a built-in world: pass --out")
    target = out or (pack.folder or Path()) / "tasks.jsonl"
    if target.exists() and target.stat().st_size and not force:
        fail_usage(f"{target}: already holds tasks (pass --out elsewhere, or --force to replace it)")
    limits = DraftLimits(token_counter(), max_prompt_tokens, max_operations, grouping)
    total = len(pack.spec.operations)

    def offered(number: int, names: tuple[str, ...], tokens: int) -> None:
        sys.stdout.write(f"  draft {number + 1}: {len(names)} of {total} operations offered, {tokens} prompt tokens\n")
        sys.stdout.flush()

    async def use(handle: LLMHandle, names: list[str]) -> DraftReport:
        pack.runtime.model = names[0]
        return await draft_tasks(pack, handle, names[0], n, limits, seed, offered)

    try:
        report = asyncio.run(with_handle(world, [chosen], use))
    except PromptBoundTooSmall as exc:  # found at the first prompt, before anything is written
        fail_usage(str(exc))
    lines = "".join(task.model_dump_json(exclude_defaults=True) + "\n" for task in report.kept)
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.tmp")
    temporary.write_text(lines, encoding="utf-8")
    temporary.replace(target)
    count = len(report.duplicates)
    repeats = f"; {count} repeat{'s' if count > 1 else ''} dropped" if count else ""
    sys.stdout.write(f"{world}: {len(report.kept)} of {n} drafts kept{repeats}; wrote {target}\n")
    for number, first in report.duplicates:
        sys.stdout.write(f"  repeat: draft {number + 1} has the same request and calls as {first}\n")
    for number, why in report.dropped:
        sys.stdout.write(f"  dropped draft {number + 1}: {why}\n")
