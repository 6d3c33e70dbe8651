"""Writing the world folder of an imported API (layout: ``worlds.simulated.operations``), and checking the tasks
that go with it.

Written into a temporary folder beside the target and renamed into place at the end, as the SQL importer does
(``worlds.sql.ingest.folder``), so a failed import leaves nothing behind.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import tomli_w
from jsonschema import Draft202012Validator

from sim.core import Task
from sim.core.files import staged_folder
from worlds.simulated.operations import ApiSpec
from worlds.simulated.problems import SpecError
from worlds.task_files import TaskFileError, load_tasks

KIND = "simulated"


def check_tasks(path: Path, spec: ApiSpec) -> list[Task]:
    """The tasks of ``path`` (JSONL or JSON), every problem listed: a task of another world, a gold call naming
    no operation, or arguments the operation's schema refuses. Raises SpecError."""
    try:
        tasks = load_tasks(path)
    except TaskFileError as error:
        raise SpecError([str(error)]) from None
    validators = {operation.name: Draft202012Validator(operation.parameters) for operation in spec.operations}
    lines: list[str] = []
    for task in tasks:
        where = f"{path}: task '{task.id}'"
        if task.world != spec.name:
            lines.append(f"{where}: world '{task.world}' is not this world's name '{spec.name}' (see --name)")
        for g, goal in enumerate(task.goals):
            for name in goal.tools or []:
                if name not in validators:
                    lines.append(f"{where}: goals.{g}.tools: no operation named '{name}'")
            for p, calls in enumerate(goal.paths()):
                field = "gold" if p == 0 else f"alternatives.{p - 1}"
                for c, call in enumerate(calls):
                    validator = validators.get(call.name)
                    if validator is None:
                        lines.append(f"{where}: goals.{g}.{field}.{c}: no operation named '{call.name}'")
                        continue
                    for issue in validator.iter_errors(dict(call.arguments)):
                        place = "/".join(str(part) for part in issue.absolute_path)
                        at = f" (at {place})" if place else ""
                        lines.append(f"{where}: goals.{g}.{field}.{c}: {call.name}: {issue.message}{at}")
    if lines:
        raise SpecError(lines)
    return tasks


def write_api_world(
    spec: ApiSpec,
    tasks: list[Task] | None,
    out: Path,
    replace: bool = False,
    report: dict[str, Any] | None = None,
    model: str | None = None,
) -> Path:
    """world.toml, operations.json, tasks.jsonl (empty without tasks: the simulated world reads that as none yet,
    to be written or drafted), an empty cache/ and, where given, ``report`` as import_report.json (what the
    importer left out, and why); ``model``, where given, simulates the answers the cache lacks (world.toml's
    ``model``); refuses an existing ``out`` unless ``replace``."""
    out = Path(out)
    with staged_folder(out, replace) as staging:
        config = {"kind": KIND, "name": spec.name, "source": spec.source, "operations": "operations.json"}
        config |= {"tasks": "tasks.jsonl", "cache": "cache"} | ({"model": model} if model else {})
        lines = [task.model_dump_json(exclude_defaults=True) for task in tasks or []]
        (staging / "tasks.jsonl").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        (staging / "world.toml").write_text(tomli_w.dumps(config), encoding="utf-8")
        operations = json.dumps(spec.stored(), indent=1, ensure_ascii=False)
        (staging / "operations.json").write_text(operations + "\n", encoding="utf-8")
        (staging / "cache").mkdir()
        if report is not None:
            (staging / "import_report.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return out
