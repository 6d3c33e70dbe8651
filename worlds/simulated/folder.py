"""Reads a world folder of ``kind = "simulated"`` (the layout is ``worlds.simulated.operations``'s)::

kind = "simulated"
name = "ticket_desk"          # default: the folder's name; the ApiSpec's and the tasks' world
source = "openapi"            # which importer wrote it (informational)
operations = "operations.json"
tasks = "tasks.jsonl"         # may be absent: a world with no tasks yet (draft or write them)
cache = "cache"               # the simulated responses (worlds.simulated.cache)
model = "openai-chat:NAME@URL"  # optional: the model that answers cache misses
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sim.core import Task
from sim.core.bounded_read import DATA_LIMIT, SETTINGS_LIMIT, InputFileError
from sim.core.structured import load_json, load_toml
from worlds.simulated.cache import CacheFileError, ResponseStore
from worlds.simulated.operations import ApiSpec
from worlds.simulated.world import SimulatedPack
from worlds.task_files import TaskFileError, load_tasks

KIND = "simulated"
TOML_KEYS = frozenset({"kind", "name", "source", "operations", "tasks", "cache", "model"})
_DEFAULTS = {"operations": "operations.json", "tasks": "tasks.jsonl", "cache": "cache"}


class SimulatedWorldError(ValueError):
    """A simulated world folder that cannot be loaded; the message names the file and field."""


def load_simulated_folder(directory: Path, config: dict[str, Any], model: str | None = None) -> SimulatedPack:
    """The pack of a folder whose world.toml (parsed into ``config``) says ``kind = "simulated"``; ``model``
    overrides the toml's simulator model."""
    toml_path = directory / "world.toml"
    unknown = sorted(set(config) - TOML_KEYS)
    if unknown:
        allowed = ", ".join(sorted(TOML_KEYS))
        raise SimulatedWorldError(f"{toml_path}: unknown key(s) {', '.join(unknown)}; allowed: {allowed}")
    entries = {key: config.get(key, default) for key, default in {**_DEFAULTS, "name": directory.name}.items()}
    for key, value in entries.items():
        if not isinstance(value, str) or not value:
            raise SimulatedWorldError(f"{toml_path}: '{key}' must be a non-empty string")
    toml_model = config.get("model")
    if toml_model is not None and (not isinstance(toml_model, str) or not toml_model):
        raise SimulatedWorldError(f"{toml_path}: 'model' must be a model spec string")
    spec = _spec(directory / entries["operations"])
    if spec.name != entries["name"]:
        raise SimulatedWorldError(f"{toml_path}: name '{entries['name']}' but operations name '{spec.name}'")
    tasks = _tasks(directory / entries["tasks"])
    try:
        store = ResponseStore(directory / entries["cache"])
    except CacheFileError as error:
        raise SimulatedWorldError(str(error)) from error
    try:
        return SimulatedPack(spec, tasks, store, model or toml_model, directory)
    except ValueError as error:
        raise SimulatedWorldError(f"{directory}: {error}") from error


def tasks_file(directory: Path) -> Path:
    """The task file a simulated world folder's world.toml names (``tasks``), where a command writes its tasks back.
    Raises SimulatedWorldError."""
    try:
        name = load_toml(directory / "world.toml", SETTINGS_LIMIT).get("tasks", _DEFAULTS["tasks"])
    except InputFileError as error:
        raise SimulatedWorldError(str(error)) from None
    if not isinstance(name, str) or not name:
        raise SimulatedWorldError(f"{directory / 'world.toml'}: 'tasks' must be a non-empty string")
    return directory / name


def _spec(path: Path) -> ApiSpec:
    try:
        return ApiSpec.model_validate(load_json(path, DATA_LIMIT))
    except InputFileError as error:
        raise SimulatedWorldError(str(error)) from None
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"])
        raise SimulatedWorldError(f"{path}: {where}: {first['msg']}") from error


def _tasks(path: Path) -> list[Task]:
    try:
        if not path.exists() or not path.read_text(encoding="utf-8").strip():
            return []  # no tasks yet: write or draft them (worlds draft-tasks)
    except (OSError, UnicodeDecodeError) as error:
        raise SimulatedWorldError(f"{path}: cannot read: {error}") from error
    try:
        return load_tasks(path)
    except TaskFileError as error:
        raise SimulatedWorldError(str(error)) from error
