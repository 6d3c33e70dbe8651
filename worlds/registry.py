"""Turns a world spec string into a ``WorldPack``.

A spec is a built-in name (``smart_home``), a ``.json``/``.jsonl`` task file whose tasks all name one
built-in world, or a directory holding ``world.toml``::

    kind = "domain"            # optional: which loader reads the folder (WORLD_KINDS); default "domain"
    domain = "smart_home"      # built-in world whose home and tools to use
    tasks = "tasks.jsonl"      # optional, relative to the directory; default: the domain's own tasks

or, for a world generated from a text-to-SQL set by ``squall import``, ``kind = "sql"`` (``worlds.sql.ingest.folder``);
or ``http://127.0.0.1:PORT``, a SQL world served by ``squall serve`` (``worlds.sql.serve.rest_client``);
or ``bfcl:<category>``, a category of the Berkeley Function Calling Leaderboard (``worlds.bfcl``);
or ``tau2:<domain>[:<split>]``, a domain of τ²-bench (``worlds.tau2``).
A new kind of world folder (another benchmark's import) is a module with its loader and one ``WORLD_KINDS`` line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

from sim.core import Task, ToolSpec, WorldPack
from sim.core.bounded_read import SETTINGS_LIMIT
from sim.core.structured import load_toml
from sim.core.suggest import did_you_mean
from worlds.task_files import SUFFIXES, TaskFileError, load_tasks

PackFactory = Callable[[Sequence[Task] | None], WorldPack]
"""Builds a pack serving the given tasks, or the world's own tasks when None."""


class WorldLoadError(ValueError):
    """A world spec that names no built-in world or points at a bad file."""


def _smart_home(tasks: Sequence[Task] | None) -> WorldPack:
    # Imported here so that naming one world does not import (or break on) every other.
    from worlds.domains.smart_home import SmartHomePack

    return SmartHomePack(tasks)


def _multidomain(tasks: Sequence[Task] | None) -> WorldPack:
    from worlds.domains.multidomain import MultiDomainPack

    return MultiDomainPack(tasks)


def _sql_sample(tasks: Sequence[Task] | None) -> WorldPack:
    from worlds.sql.sample import sample_pack

    return sample_pack(tasks)


def _ticket_desk(tasks: Sequence[Task] | None) -> WorldPack:
    from worlds.simulated.examples import ticket_desk_pack

    return ticket_desk_pack(tasks)


def _account_unlock(tasks: Sequence[Task] | None) -> WorldPack:
    from worlds.domains.account_unlock import AccountUnlockPack

    return AccountUnlockPack(tasks)


BUILTIN_WORLDS: MappingProxyType[str, PackFactory] = MappingProxyType(
    {
        "smart_home": _smart_home,
        "multidomain": _multidomain,
        "sql_sample": _sql_sample,
        "ticket_desk": _ticket_desk,
        "account_unlock": _account_unlock,
    }
)
"""Built-in world name -> pack factory. A plain constant: adding a world means editing this line."""

_DOMAIN_KEYS = ("domain", "kind", "tasks")

KindLoader = Callable[[Path, dict[str, Any]], WorldPack]
"""Reads a world folder whose world.toml (parsed) names this kind. Raises ValueError naming the file and field."""


def _sql_folder(directory: Path, config: dict[str, Any]) -> WorldPack:
    from worlds.sql.ingest.folder import load_world_folder

    return load_world_folder(directory, config)


def _simulated_folder(directory: Path, config: dict[str, Any]) -> WorldPack:
    from worlds.simulated.folder import load_simulated_folder

    pack = load_simulated_folder(directory, config)
    _IMPORTED_SPECS[pack.name] = {spec.name: spec for spec in pack.tool_specs()}
    return pack


_IMPORTED_SPECS: dict[str, dict[str, ToolSpec]] = {}
"""An imported API's operation schemas by world name, as last loaded in this process: its tasks name the world only
by name, which ``BUILTIN_WORLDS`` cannot build, yet a stressor that fits itself to a task's tools (drift's auto
rows) needs the real schema (defaults, enums, types), not what the gold's values suggest."""


def imported_world_specs(name: str) -> dict[str, ToolSpec] | None:
    """The tool specs of the imported (simulated) world ``name`` loaded in this process, or None."""
    return _IMPORTED_SPECS.get(name)


def _domain_folder(directory: Path, config: dict[str, Any]) -> WorldPack:
    """A built-in domain's home and tools, with its own tasks or the folder's."""
    toml_path = directory / "world.toml"
    unknown = sorted(set(config).difference(_DOMAIN_KEYS))
    if unknown:
        raise WorldLoadError(f"{toml_path}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(_DOMAIN_KEYS)}")
    domain = config.get("domain")
    if not isinstance(domain, str):
        raise WorldLoadError(f"{toml_path}: 'domain' must name a built-in world: {', '.join(known_worlds())}")
    if domain not in BUILTIN_WORLDS:
        raise WorldLoadError(f"{toml_path}: unknown domain '{domain}'; known worlds: {', '.join(known_worlds())}")
    tasks_entry = config.get("tasks")
    if tasks_entry is None:
        return _build(domain, None, origin=str(toml_path))
    if not isinstance(tasks_entry, str):
        raise WorldLoadError(f"{toml_path}: 'tasks' must be a path relative to {directory}")
    tasks_path = directory / tasks_entry
    if not tasks_path.is_file():
        raise WorldLoadError(f"{toml_path}: tasks file {tasks_path} does not exist")
    tasks = _tasks(tasks_path)
    named = _single_world(tasks_path, tasks)
    if named != domain:
        raise WorldLoadError(f"{tasks_path}: tasks are for world '{named}' but {toml_path} says domain '{domain}'")
    return _build(domain, tasks, origin=str(tasks_path))


DEFAULT_KIND = "domain"
WORLD_KINDS: MappingProxyType[str, KindLoader] = MappingProxyType(
    {"domain": _domain_folder, "sql": _sql_folder, "simulated": _simulated_folder}
)
"""world.toml ``kind`` -> the loader of such folders (no ``kind``: ``DEFAULT_KIND``). A plain constant, as
``BUILTIN_WORLDS``: a new kind is one line here, and naming one kind imports no other's package."""


def known_worlds() -> list[str]:
    return sorted(BUILTIN_WORLDS)


def load_world(spec: str) -> WorldPack:
    """The pack a spec names. Raises WorldLoadError with a message fit for the command line."""
    try:
        return _load(spec)
    except (OSError, ValueError) as error:  # an unusable path (too long, NUL byte, no permission)
        if isinstance(error, WorldLoadError):
            raise
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise WorldLoadError(f"{spec[:200]}: unusable world path: {reason}") from error


def _load(spec: str) -> WorldPack:
    if spec in BUILTIN_WORLDS:
        return _build(spec, None, origin=spec)
    if spec.startswith("bfcl:"):  # BFCL's categories, from the installed bfcl-eval wheel
        from worlds.bfcl import load_bfcl_world

        try:
            return load_bfcl_world(spec)
        except ValueError as error:
            raise WorldLoadError(str(error)) from error
    if spec.startswith("tau2:"):  # τ²-bench's domains, from the installed inspect-evals wheel's data
        from worlds.tau2 import load_tau2_world

        try:
            return load_tau2_world(spec)
        except ValueError as error:
            raise WorldLoadError(str(error)) from error
    if spec.startswith("http://"):  # a SQL world served by `squall serve`
        from worlds.sql.serve.rest_client import HttpSqlPack

        try:
            return HttpSqlPack(spec)
        except ValueError as error:
            raise WorldLoadError(str(error)) from error
    path = Path(spec)
    if path.is_dir():
        return _load_dir(path)
    if path.suffix in SUFFIXES:
        if not path.exists():
            raise WorldLoadError(f"{path}: no such task file")
        tasks = _tasks(path)
        return _build(_single_world(path, tasks), tasks, origin=str(path))
    if spec.startswith((".", "/", "~")) or "/" in spec or "\\" in spec:
        raise WorldLoadError(f"{spec}: no such world folder or task file")
    raise WorldLoadError(
        f"unknown world '{spec}'{did_you_mean(spec, known_worlds())}; known worlds: {', '.join(known_worlds())} "
        "(or give a .json/.jsonl task file, or a directory with world.toml)"
    )


def _load_dir(directory: Path) -> WorldPack:
    toml_path = directory / "world.toml"
    if not toml_path.is_file():
        raise WorldLoadError(f"{directory}: a world directory needs a world.toml")
    try:
        config: dict[str, Any] = load_toml(toml_path, SETTINGS_LIMIT)
    except ValueError as error:  # not a regular file, too big, not UTF-8, invalid or absurd TOML: names the file
        raise WorldLoadError(str(error)) from None
    kind = config.get("kind", DEFAULT_KIND)
    loader = WORLD_KINDS.get(kind) if isinstance(kind, str) else None
    if loader is None:
        raise WorldLoadError(f"{toml_path}: unknown kind {kind!r}; known kinds: {', '.join(sorted(WORLD_KINDS))}")
    try:
        return loader(directory, config)
    except WorldLoadError:
        raise
    except ValueError as error:
        raise WorldLoadError(str(error)) from error


def _tasks(path: Path) -> list[Task]:
    try:
        return load_tasks(path)
    except TaskFileError as error:
        raise WorldLoadError(str(error)) from error


def _single_world(path: Path, tasks: list[Task]) -> str:
    worlds = sorted({task.world for task in tasks})
    if len(worlds) != 1:
        raise WorldLoadError(f"{path}: tasks name several worlds ({', '.join(worlds)}); a task file serves one")
    if worlds[0] not in BUILTIN_WORLDS:
        known = ", ".join(known_worlds())
        raise WorldLoadError(f"{path}: tasks name unknown world '{worlds[0]}'; known worlds: {known}")
    return worlds[0]


def _build(name: str, tasks: Sequence[Task] | None, origin: str) -> WorldPack:
    try:
        return BUILTIN_WORLDS[name](tasks)
    except ValueError as error:  # bad built-in data, or tasks that do not fit the world's tools
        raise WorldLoadError(f"{origin}: {error}") from error
