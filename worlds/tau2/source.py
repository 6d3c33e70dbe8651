"""Where τ²-bench's data comes from: the installed ``inspect-evals`` wheel, read as files at run time.

The wheel ships τ²'s domains under ``inspect_evals/tau2/data/domains/`` (tasks, splits, databases, policies). Its
Python modules import ``inspect_ai``, which squall does not need: the package folder is found with
``importlib.util.find_spec`` (which imports nothing) and only its data files are read. squall's domain tools are its
own (``worlds.tau2.airline_tools`` and the others).
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import tomllib
from pathlib import Path
from typing import Any

VERSION = "0.26.0"
"""The inspect-evals release squall's τ² worlds are built and tested against."""
PACKAGE = "inspect_evals"
_INSTALL_HINT = f"run `make setup`, or `pip install --no-deps inspect-evals=={VERSION}`"


class Tau2Error(ValueError):
    """τ²'s data cannot be used: the wheel is missing, or a file in it is not what squall expects."""


def package_root() -> Path:
    """The installed ``inspect_evals`` package folder (found, not imported)."""
    spec = importlib.util.find_spec(PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise Tau2Error(f"τ² worlds need the inspect-evals package, which is not installed: {_INSTALL_HINT}")
    return Path(locations[0])


def domain_dir(domain: str) -> Path:
    """The data folder of one τ² domain (``airline`` -> ``.../tau2/data/domains/airline``)."""
    folder = package_root() / "tau2" / "data" / "domains" / domain
    if not folder.is_dir():
        raise Tau2Error(f"{folder}: not in the installed inspect-evals (squall expects version {VERSION})")
    return folder


def domain_file(domain: str, name: str) -> Path:
    path = domain_dir(domain) / name
    if not path.is_file():
        raise Tau2Error(f"{path}: not in the installed inspect-evals (squall expects version {VERSION})")
    return path


def read_json(path: Path) -> Any:
    """A JSON file of the wheel, gzipped or not."""
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rt", encoding="utf-8") as handle:
                return json.load(handle)
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise Tau2Error(f"{path}: cannot read τ² data: {error}") from error


def read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, ValueError) as error:
        raise Tau2Error(f"{path}: cannot read τ² data: {error}") from error


def read_toml(path: Path) -> Any:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise Tau2Error(f"{path}: cannot read τ² data: {error}") from error


def read_database(path: Path) -> dict[str, dict[str, Any]]:
    """A domain's database as tables of records keyed by id. JSON databases are keyed already; a TOML one
    (telecom's) lists each table's records, each keyed here by its ``<table singular>_id`` field."""
    if path.suffix != ".toml":
        data: dict[str, dict[str, Any]] = read_json(path)
        return data
    tables: dict[str, dict[str, Any]] = {}
    for table, rows in read_toml(path).items():
        key = f"{table.removesuffix('s')}_id"
        if not isinstance(rows, list) or not all(isinstance(r, dict) and key in r for r in rows):
            raise Tau2Error(f"{path}: table '{table}': every record must have a '{key}'")
        tables[table] = {str(r[key]): r for r in rows}
    return tables
