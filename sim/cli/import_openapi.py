"""`squall import openapi SPEC --out W`: a simulated world from an OpenAPI 3.0/3.1 document (JSON or YAML).

One tool per operation (``worlds.simulated.openapi_import``); with ``--tasks``, the user's tasks, checked against
the operations. An operation with a problem is skipped with a warning (file and JSON pointer) and listed in the
folder's import_report.json; with ``--strict``, or a problem with the document itself, every problem is listed
one per line, exit 2, nothing written.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from sim.cli.common import fail, make_console

if TYPE_CHECKING:
    from sim.core import Task, ToolSpec
    from worlds.simulated.openapi_import import OpenApiImport
    from worlds.simulated.operations import ApiSpec
    from worlds.simulated.problems import SpecError

SpecArgument = Annotated[Path, typer.Argument(help="The OpenAPI document (.json, .yaml or .yml).", show_default=False)]
OutOption = Annotated[Path, typer.Option("--out", help="World folder to write (run it with --world PATH).")]
NameOption = Annotated[str | None, typer.Option("--name", help="World name (default: the folder's name).")]
TasksOption = Annotated[
    Path | None,
    typer.Option("--tasks", help="Tasks for the world (.jsonl or .json); their gold calls must name operations."),
]
ForceOption = Annotated[bool, typer.Option("--force", help="Replace an existing --out folder.")]
ModelOption = Annotated[
    str | None,
    typer.Option(
        "--model",
        help="The model that simulates answers the response cache lacks (world.toml's model; a run's --world-model "
        "overrides it). Without one the world answers from its cache only.",
    ),
]
StrictOption = Annotated[
    bool,
    typer.Option(
        "--strict",
        help="Refuse the document if any operation has a problem (default: skip it with a warning) or a schema "
        "needed relaxing.",
    ),
]
IncludeOption = Annotated[
    list[str] | None,
    typer.Option(
        "--include",
        help="Import only operations this matches: a tag, a path glob (/guilds/*) or an operation id (globs too); "
        "repeatable.",
        show_default=False,
    ),
]
ExcludeOption = Annotated[
    list[str] | None,
    typer.Option(
        "--exclude",
        help="Leave out operations this matches (a tag, /path glob or operation id); repeatable.",
        show_default=False,
    ),
]
MAX_WARNINGS = 50
"""Warnings printed; import_report.json lists every one."""


def report_problems(error: SpecError) -> NoReturn:
    """Every problem on its own line on stderr ('error: FILE#POINTER: what'), then exit 2."""
    from rich.markup import escape

    console = make_console(stderr=True)
    for line in error.lines:
        console.print(f"[bold red]error:[/] {escape(line)}", highlight=False, soft_wrap=True)
    if error.total > len(error.lines):
        console.print(f"[bold red]error:[/] … and {error.total - len(error.lines)} more", highlight=False)
    raise typer.Exit(2)


def write_imported_world(
    out: Path,
    force: bool,
    build: Callable[[], tuple[ApiSpec, list[Task] | None]],
    report: Callable[[], dict[str, Any]] | None = None,
    model: str | None = None,
) -> tuple[ApiSpec, list[Task] | None]:
    """Import (``build``) and write the world folder, with ``report()`` (asked after ``build``) as its
    import_report.json; an existing ``out`` without ``force``, a bad source (every problem listed) or an
    unwritable folder exits 2 with nothing written."""
    from sim.llm.model_spec import parse_model_spec
    from worlds.simulated.import_folder import write_api_world
    from worlds.simulated.problems import SpecError

    if out.exists() and not force:
        fail(f"{out}: already exists (remove it, or pass --force to replace it)")
    try:
        api, tasks = build()
        if model is not None:
            parse_model_spec(model)  # a malformed spec is refused before anything is written
        write_api_world(api, tasks, out, replace=force, report=report() if report is not None else None, model=model)
    except SpecError as error:
        report_problems(error)
    except ValueError as error:  # the --model spec
        fail(f"--model: {error}")
    except FileExistsError as error:
        fail(str(error))
    except OSError as error:
        fail(f"{out}: cannot write: {error.strerror or error}")
    return api, tasks


def openapi_command(
    spec: SpecArgument,
    out: OutOption,
    name: NameOption = None,
    tasks: TasksOption = None,
    force: ForceOption = False,
    strict: StrictOption = False,
    model: ModelOption = None,
    include: IncludeOption = None,
    exclude: ExcludeOption = None,
) -> None:
    """A simulated world from an OpenAPI 3.0/3.1 document: one tool per operation, responses simulated."""
    from worlds.simulated.import_folder import check_tasks
    from worlds.simulated.openapi_import import read_openapi
    from worlds.simulated.selection import Selection

    started = time.perf_counter()
    imported: list[OpenApiImport] = []
    try:
        selection = Selection(tuple(include or ()), tuple(exclude or ()))
    except ValueError as error:
        fail(str(error))

    def build() -> tuple[ApiSpec, list[Task] | None]:
        imported.append(read_openapi(spec, name or out.name, strict=strict, selection=selection))
        api = imported[0].api
        return api, check_tasks(tasks, api) if tasks is not None else None

    api, checked = write_imported_world(out, force, build, lambda: imported[0].report(), model)
    result = imported[0]
    _warn(result)
    writes = sum(operation.writes for operation in api.operations)
    examples = sum(len(operation.examples) for operation in api.operations)
    left = [f"{result.left_out} left out by --include/--exclude"] if result.left_out else []
    left += [f"{len(result.skipped)} skipped"] if result.skipped else []
    left += [f"{result.webhooks} webhooks not imported"] if result.webhooks else []
    left += [f"{len(result.callbacks)} callbacks not imported"] if result.callbacks else []
    sys.stdout.write(
        f"{out}: {len(api.operations)} operations"
        + (f" ({writes} writes)" if api.operations else "")
        + "".join(f"; {part}" for part in left)
        + f", {examples} documented examples, {len(checked or [])} tasks, {time.perf_counter() - started:.1f}s\n"
    )
    warn_toolkit(api.name, [operation.tool_spec() for operation in api.operations])


def warn_toolkit(world: str, tools: list[ToolSpec]) -> None:
    """The warning (stderr) when offering every tool passes a model's context (``sim.llm.tool_budget``)."""
    from rich.markup import escape

    from sim.llm.tool_budget import toolkit_warning

    line = toolkit_warning(world, tools)
    if line is not None:
        make_console(stderr=True).print(f"[bold yellow]warning:[/] {escape(line)}", highlight=False, soft_wrap=True)


def _warn(result: OpenApiImport) -> None:
    """One line per skipped operation (its first problem) and per relaxed schema, on stderr."""
    from rich.markup import escape

    lines = [
        f"skipped {skip.operation} ({skip.source}): {skip.problems[0] if skip.problems else 'no reason recorded'}"
        + (f" (and {len(skip.problems) - 1} more problems)" if len(skip.problems) > 1 else "")
        for skip in result.skipped
    ]
    lines += [f"relaxed: {line}" for line in result.relaxed]
    console = make_console(stderr=True)
    for line in lines[:MAX_WARNINGS]:
        console.print(f"[bold yellow]warning:[/] {escape(line)}", highlight=False, soft_wrap=True)
    if len(lines) > MAX_WARNINGS:
        more = f"… and {len(lines) - MAX_WARNINGS} more (import_report.json lists them all)"
        console.print(f"[bold yellow]warning:[/] {more}", highlight=False)
