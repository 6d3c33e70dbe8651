"""`squall worlds draft-gold W --model M [--world-model M] [--only-missing] [--tasks IDS]`: gold for a simulated
world's tasks that name their APIs without arguments (ToolBench queries), drafted by a model and kept only where it
executes (``worlds.simulated.draft_gold``).

The world's task file is rewritten whole and atomically, the queries as they were; what was kept and dropped, and
why, is printed and written to ``draft_gold_report.json`` beside it. A provider failure stops the pass: what was
kept so far is written, exit 1 (``--only-missing`` carries on from there).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sim.cli.generator import fail_usage
from sim.cli.worlds_simulated import WorldArgument, simulated_pack, token_counter, with_handle

if TYPE_CHECKING:
    from sim.core import LLMHandle, Task
    from worlds.simulated.draft_gold import GoldDraftReport

REPORT_FILE = "draft_gold_report.json"


def draft_gold_command(
    world: WorldArgument,
    model: Annotated[str, typer.Option("--model", help="The model that fills in the calls' arguments.")],
    world_model: Annotated[
        str | None,
        typer.Option("--world-model", help="Simulator model for cache misses (default: world.toml's, else --model)."),
    ] = None,
    only_missing: Annotated[
        bool, typer.Option("--only-missing", help="Only tasks without gold (default: drafted gold is drafted again).")
    ] = False,
    tasks: Annotated[
        str | None, typer.Option("--tasks", help="Comma-separated task ids (default: every task it may draft).")
    ] = None,
    max_prompt_tokens: Annotated[
        int, typer.Option("--max-prompt-tokens", min=200, help="Bound on each request's prompt, in tokens (o200k).")
    ] = 12_000,
) -> None:
    """Fill in the gold calls' arguments from each request with a model; keep them where every call executes."""
    from sim.llm.errors import ProviderError
    from worlds.simulated.draft_gold import GoldDraftReport, draft_gold, lacks_gold, tasks_to_draft
    from worlds.simulated.folder import SimulatedWorldError, tasks_file

    pack, chosen_world_model = simulated_pack(world, world_model, fallback=model)
    if pack.folder is None or not Path(world).is_dir():  # a built-in's files belong to squall, not to this run
        fail_usage(f"{world}: a built-in world: draft-gold rewrites the task file of a world folder (give its path)")
    try:
        target = tasks_file(pack.folder)
        ids = [i.strip() for i in tasks.split(",") if i.strip()] if tasks is not None else None
        chosen = tasks_to_draft(pack.tasks(), only_missing, ids)
    except SimulatedWorldError as error:
        fail_usage(str(error))
    except ValueError as error:
        fail_usage(f"--tasks: {error}")
    if not chosen:
        sys.stdout.write(f"{world}: nothing to draft (every task has gold{'' if only_missing else ' of its author'})\n")
        return
    report = GoldDraftReport(tasks=pack.tasks())
    count = token_counter()

    def progress(done: int, total: int, task_id: str) -> None:
        sys.stderr.write(f"\r[{done}/{total}] {task_id}: {len(report.kept)} kept, {len(report.dropped)} dropped")
        sys.stderr.flush()

    async def use(handle: LLMHandle, names: list[str]) -> GoldDraftReport:
        pack.runtime.model = names[1]
        return await draft_gold(pack, handle, names[0], chosen, count, max_prompt_tokens, report, progress)

    stopped, code = None, 1
    try:
        asyncio.run(with_handle(world, [model, chosen_world_model], use))
    except ProviderError as error:
        stopped = f"stopped: the model failed for good ({error.code}: {error})"
    except KeyboardInterrupt:  # the drafts kept so far cost requests: they are written before exiting
        stopped, code = "stopped: interrupted", 130
    sys.stderr.write("\n")
    if report.kept:
        pack.with_tasks(report.tasks)  # loads as the world will (a bug here must not reach the file)
        _write_tasks(target, report.tasks)
    _write_report(pack.folder / REPORT_FILE, model, chosen_world_model, report)
    reasons = ", ".join(f"{reason} {n}" for reason, n in sorted(report.by_reason().items()))
    wrote = f"; wrote {target}" if report.kept else "; task file unchanged"
    sys.stdout.write(
        f"{world}: kept {len(report.kept)} / dropped {len(report.dropped)}{f' ({reasons})' if reasons else ''} of "
        f"{len(chosen)} tasks{wrote}\n"
    )
    for dropped in report.dropped:
        sys.stdout.write(f"  dropped: task {dropped.task}: {dropped.reason}: {dropped.detail}\n")
    still = sum(1 for task in report.tasks if lacks_gold(task))
    if still:
        sys.stdout.write(
            f"{still} of {len(report.tasks)} tasks still have no executable gold (the oracle cannot calibrate them; "
            "solvable_pass still judges them)\n"
        )
    if stopped is not None:
        sys.stdout.write(f"{stopped}; run again with --only-missing to carry on\n")
        raise typer.Exit(code)


def _write_tasks(path: Path, tasks: list[Task]) -> None:
    """The tasks in the file's own format (JSONL, or a JSON list for ``.json``), replaced whole."""
    from sim.core.files import write_text_atomic

    dumped = [task.model_dump_json(exclude_defaults=True) for task in tasks]
    text = "[\n" + ",\n".join(dumped) + "\n]\n" if path.suffix == ".json" else "".join(f"{d}\n" for d in dumped)
    try:
        write_text_atomic(path, text)
    except OSError as error:
        fail_usage(f"{path}: cannot write: {error.strerror or error}")


def _write_report(path: Path, model: str, world_model: str, report: GoldDraftReport) -> None:
    from sim.core.files import write_text_atomic

    document = {
        "model": model,
        "world_model": world_model,
        "kept": report.kept,
        "dropped": [{"task": d.task, "reason": d.reason, "detail": d.detail} for d in report.dropped],
    }
    try:
        write_text_atomic(path, json.dumps(document, indent=1, ensure_ascii=False) + "\n")
    except OSError as error:
        fail_usage(f"{path}: cannot write: {error.strerror or error}")
