"""`squall import openapi SPEC --out W`: a simulated world from an OpenAPI 3.0/3.1 document (JSON or YAML).

One tool per operation (``worlds.simulated.openapi_import``); with ``--tasks``, the user's tasks, checked against
the operations. Problems are listed one per line (file and JSON pointer), exit 2, nothing written.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from sim.cli.common import fail, make_console

if TYPE_CHECKING:
    from sim.core import Task
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
    out: Path, force: bool, build: Callable[[], tuple[ApiSpec, list[Task] | None]]
) -> tuple[ApiSpec, list[Task] | None]:
    """Import (``build``) and write the world folder; an existing ``out`` without ``force``, a bad source (every
    problem listed) or an unwritable folder exits 2 with nothing written."""
    from worlds.simulated.import_folder import write_api_world
    from worlds.simulated.problems import SpecError

    if out.exists() and not force:
        fail(f"{out}: already exists (remove it, or pass --force to replace it)")
    try:
        api, tasks = build()
        write_api_world(api, tasks, out, replace=force)
    except SpecError as error:
        report_problems(error)
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
) -> None:
    """A simulated world from an OpenAPI 3.0/3.1 document: one tool per operation, responses simulated."""
    from worlds.simulated.import_folder import check_tasks
    from worlds.simulated.openapi_import import import_openapi

    started = time.perf_counter()

    def build() -> tuple[ApiSpec, list[Task] | None]:
        api = import_openapi(spec, name or out.name)
        return api, check_tasks(tasks, api) if tasks is not None else None

    api, checked = write_imported_world(out, force, build)
    writes = sum(operation.writes for operation in api.operations)
    examples = sum(len(operation.examples) for operation in api.operations)
    sys.stdout.write(
        f"{out}: {len(api.operations)} operations ({writes} writes), {examples} documented examples, "
        f"{len(checked or [])} tasks, {time.perf_counter() - started:.1f}s\n"
    )
