"""`squall import toolbench FILE|DIR --out W [--queries Q.json]`: a simulated world from ToolBench/StableToolBench
tool files, with their queries as tasks (``worlds.simulated.toolbench_files``).

Problems are listed one per line (file and JSON pointer), exit 2, nothing written.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sim.cli.common import fail
from sim.cli.import_openapi import ForceOption, ModelOption, NameOption, OutOption, write_imported_world

if TYPE_CHECKING:
    from sim.core import Task
    from worlds.simulated.operations import ApiSpec

SourceArgument = Annotated[
    Path, typer.Argument(help="A ToolBench tool file (.json), or a folder of them (<Category>/<tool>.json).")
]
QueriesOption = Annotated[
    Path | None,
    typer.Option("--queries", help="ToolBench queries (G1/G2/G3 instruction JSON: query, api_list, relevant APIs)."),
]


def toolbench_command(
    source: SourceArgument,
    out: OutOption,
    name: NameOption = None,
    queries: QueriesOption = None,
    force: ForceOption = False,
    model: ModelOption = None,
) -> None:
    """A simulated world from ToolBench tool files: one tool per API, named as ToolBench names it; queries as tasks."""
    from worlds.simulated.toolbench_files import import_toolbench

    started = time.perf_counter()

    def build() -> tuple[ApiSpec, list[Task]]:
        if not source.exists():
            fail(f"{source}: no such file or folder")
        return import_toolbench(source, name or out.name, queries)

    api, tasks = write_imported_world(out, force, build, model=model)
    sys.stdout.write(
        f"{out}: {len(api.operations)} operations, {len(tasks or [])} tasks, {time.perf_counter() - started:.1f}s\n"
    )
