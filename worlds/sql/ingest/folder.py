"""The world folder an import writes and ``--world PATH`` reads::

    world.toml            kind = "sql", name, functions, tasks, databases
    functions.json        the generated functions (SqlFunction)
    tasks.jsonl           one verified Task per line
    initial.json          SLOT style, join questions: task id -> the initialisation step (joined tables)
    databases/<db>.sqlite copies of the databases the functions read
    import_report.json    kept and rejected questions, with reasons

Written into a temporary folder beside the target and renamed into place at the end, so a failed import
leaves nothing half-written.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import tomli_w
from pydantic import TypeAdapter, ValidationError

from sim.core.bounded_read import DATA_LIMIT, InputFileError
from sim.core.files import staged_folder
from sim.core.structured import load_json
from worlds.sql.describe.slot_obfuscate import ObfuscatedSlotPack
from worlds.sql.engine.model import SqlFunction
from worlds.sql.engine.world import SqlPack
from worlds.sql.ingest.importer import ImportedWorld
from worlds.sql.styles.style_slot_gold import Initial, SlotPack
from worlds.task_files import TaskFileError, load_tasks

KIND = "sql"
TOML_KEYS = frozenset({"kind", "name", "functions", "tasks", "databases", "style", "initial", "obfuscate_seed"})
_FUNCTIONS = TypeAdapter(list[SqlFunction])


class SqlWorldError(ValueError):
    """A SQL world folder that cannot be loaded; the message names the file and field."""


def write_world(world: ImportedWorld, out: Path, replace: bool = False) -> Path:
    """Write the folder; refuses an existing ``out`` unless ``replace``."""
    out = Path(out)
    with staged_folder(out, replace) as staging:
        (staging / "databases").mkdir()
        for db_id, path in sorted(world.databases.items()):
            shutil.copyfile(path, staging / "databases" / f"{db_id}.sqlite")
        config: dict[str, str | int] = {
            "kind": KIND,
            "name": world.name,
            "functions": "functions.json",
            "tasks": "tasks.jsonl",
        }
        if world.style == "slot":  # generic tools over the databases: no functions file; the loader dispatches on it
            config = {"kind": KIND, "name": world.name, "style": "slot", "tasks": "tasks.jsonl"}
            if world.initial:  # join questions: each one's initialisation step, by task id
                config["initial"] = "initial.json"
                text = json.dumps(world.initial, indent=1, sort_keys=True)
                (staging / "initial.json").write_text(text + "\n", encoding="utf-8")
            if world.obfuscate_seed is not None:
                config["obfuscate_seed"] = world.obfuscate_seed
        (staging / "world.toml").write_text(tomli_w.dumps({**config, "databases": "databases"}), encoding="utf-8")
        functions = [f.model_dump(mode="json") for f in world.functions]
        if world.style != "slot":
            (staging / "functions.json").write_text(json.dumps(functions, indent=1) + "\n", encoding="utf-8")
        lines = [task.model_dump_json(exclude_defaults=True) for task in world.tasks]
        (staging / "tasks.jsonl").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        report = world.report.model_dump_json(indent=1)
        (staging / "import_report.json").write_text(report + "\n", encoding="utf-8")
    return out


def is_sql_world(config: dict[str, Any]) -> bool:
    return config.get("kind") == KIND


def load_world_folder(directory: Path, config: dict[str, Any]) -> SqlPack | SlotPack | ObfuscatedSlotPack:
    """The pack of a folder whose world.toml (already parsed into ``config``) says ``kind = "sql"``."""
    toml_path = directory / "world.toml"
    unknown = sorted(set(config) - TOML_KEYS)
    if unknown:
        raise SqlWorldError(
            f"{toml_path}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(TOML_KEYS))}"
        )
    entries: dict[str, str] = {}
    defaults = {"name": directory.name, "functions": "functions.json", "tasks": "tasks.jsonl", "databases": "databases"}
    for key, default in defaults.items():
        value = config.get(key, default)
        if not isinstance(value, str) or not value:
            raise SqlWorldError(f"{toml_path}: '{key}' must be a non-empty string")
        entries[key] = value
    if config.get("style", "per_question") == "slot":
        initial = config.get("initial")
        if initial is not None and (not isinstance(initial, str) or not initial):
            raise SqlWorldError(f"{toml_path}: 'initial' must be a non-empty string")
        seed = config.get("obfuscate_seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise SqlWorldError(f"{toml_path}: 'obfuscate_seed' must be an integer")
        if seed is not None and initial is not None:  # obfuscated SLOT imports reject joins (style_import)
            raise SqlWorldError(f"{toml_path}: an obfuscated SLOT world has no 'initial' steps")
        return _load_slot(directory, entries, initial, seed)
    functions_path = directory / entries["functions"]
    try:
        functions = _FUNCTIONS.validate_python(load_json(functions_path, DATA_LIMIT))
    except InputFileError as error:  # not a regular file, too big, not UTF-8 JSON, nested too deep
        raise SqlWorldError(str(error)) from None
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"])
        raise SqlWorldError(f"{functions_path}: {where}: {first['msg']}") from error
    try:
        tasks = load_tasks(directory / entries["tasks"])
    except TaskFileError as error:
        raise SqlWorldError(str(error)) from error
    db_dir = directory / entries["databases"]
    databases = {f.db_id: db_dir / f"{f.db_id}.sqlite" for f in functions}
    for db_id, path in sorted(databases.items()):
        if not path.is_file():
            raise SqlWorldError(f"{toml_path}: database '{db_id}' has no file {path}")
    try:
        return SqlPack(entries["name"], functions, tasks, databases)
    except ValueError as error:
        raise SqlWorldError(f"{directory}: {error}") from error


def _load_slot(
    directory: Path, entries: dict[str, str], initial_file: str | None, seed: int | None
) -> SlotPack | ObfuscatedSlotPack:
    """A SLOT-style world: its tools are generic, so the folder's databases are all it needs beside the tasks,
    for join questions their initialisation steps and, obfuscated, the seed of its codes."""
    try:
        tasks = load_tasks(directory / entries["tasks"])
    except TaskFileError as error:
        raise SqlWorldError(str(error)) from error
    databases = {path.stem: path for path in sorted((directory / entries["databases"]).glob("*.sqlite"))}
    initial: dict[str, Initial] = {}
    if initial_file is not None:
        path = directory / initial_file
        try:
            initial = {task_id: Initial.from_json(step) for task_id, step in json.loads(path.read_text()).items()}
        except OSError as error:
            raise SqlWorldError(f"{path}: cannot read: {error.strerror or error}") from error
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise SqlWorldError(f"{path}: not a map of task id to initialisation step: {error}") from error
    try:
        if seed is not None:
            return ObfuscatedSlotPack(entries["name"], tasks, databases, seed)
        return SlotPack(entries["name"], tasks, databases, initial)
    except ValueError as error:
        raise SqlWorldError(f"{directory}: {error}") from error
