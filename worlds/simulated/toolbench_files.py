"""`squall import toolbench`'s reading: tool files (one, or a folder of them) and a queries file, as an
``ApiSpec`` and its Tasks. Every problem of every file is collected and reported together (``SpecError``).

A folder is read recursively (``*.json``, sorted), each file's parent folder naming its category, as in
ToolBench's ``toolenv/tools/<Category>/<tool>.json``. Two APIs whose ToolBench names coincide (the name is cut
to its last 64 characters) get ``_2``, ``_3`` (``toolbench_catalogue``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sim.core import Task
from worlds.simulated.operations import ApiOperation, ApiSpec
from worlds.simulated.problems import Problems, SpecError, extend
from worlds.simulated.spec_files import load_document
from worlds.simulated.toolbench_catalogue import Catalogue
from worlds.simulated.toolbench_import import api_operation, standard_tool_name
from worlds.simulated.toolbench_queries import read_queries


def import_toolbench(source: Path, world: str, queries: Path | None) -> tuple[ApiSpec, list[Task]]:
    """The operations of the tool file(s) at ``source`` and, with ``queries``, its queries as Tasks."""
    source = Path(source)
    if source.is_dir():
        files = sorted(path for path in source.rglob("*.json") if path.is_file())
        if not files:
            raise SpecError([f"{source}: no .json tool files in this folder"])
    else:
        files = [source]
    catalogue = Catalogue()
    lines: list[str] = []
    for file in files:
        category = file.parent.name if source.is_dir() and file.parent != source else None
        try:
            _read_tool(file, load_document(file), category, catalogue)
        except SpecError as error:
            lines.extend(error.lines)
    tasks: list[Task] = []
    if queries is not None and not lines:
        try:
            tasks = read_queries(queries, world, catalogue)
        except SpecError as error:
            lines.extend(error.lines)
    if not catalogue.operations and not lines:
        lines.append(f"{source}: no APIs (every tool's 'api_list' is empty)")
    if lines:
        raise SpecError(lines)
    title = catalogue.tools[0] if len(catalogue.tools) == 1 else f"{len(catalogue.tools)} ToolBench tools"
    spec = ApiSpec(name=world, title=title, source="toolbench", operations=tuple(catalogue.operations))
    return spec, tasks


def _read_tool(file: Path, tool: Any, category: str | None, catalogue: Catalogue) -> None:
    problems = Problems(str(file))
    if not isinstance(tool, dict):
        problems.add("", "a ToolBench tool file must be an object with 'tool_name' and 'api_list'")
        problems.raise_if_any()
    tool_name = tool.get("tool_name")
    if not isinstance(tool_name, str) or not tool_name.strip():
        problems.add(extend("", "tool_name"), "'tool_name' must be a non-empty string")
        tool_name = file.stem  # its APIs are still read, for their own problems
    api_list = tool.get("api_list")
    if not isinstance(api_list, list):
        problems.add(extend("", "api_list"), "'api_list' must be a list of APIs")
        problems.raise_if_any()
    assert isinstance(api_list, list)  # checked above
    standard = standard_tool_name(tool, file)
    catalogue.standard_names[tool_name] = standard
    catalogue.tools.append(tool_name)
    category = tool.get("category_name") if isinstance(tool.get("category_name"), str) else category
    built: list[tuple[tuple[str, str], ApiOperation]] = []
    for index, entry in enumerate(api_list):
        operation = api_operation(
            entry, extend("", "api_list", index), problems, (tool_name, standard), category, file.name
        )
        if operation is not None:
            built.append(((tool_name, operation.summary), operation))
    problems.raise_if_any()
    for key, operation in built:
        catalogue.add(key, operation)
