"""The inspect-evals wheel's own τ² tool classes, loaded for the agreement tests only, without inspect-ai.

The wheel's tool modules import three names of inspect-ai (``ToolError``, ``StoreModel``, ``store_as``), two of its
model types, and ``toml`` (read here with the standard library's ``tomllib``); its package ``__init__`` files import
the whole of inspect-ai. Here the packages are entered without running their ``__init__`` and those few names are
stand-ins (``StoreModel`` is a pydantic model, as inspect-ai's is), so the wheel's classes run as written: squall's
tools are compared with τ²'s code, not with a copy. Everything is put back in ``sys.modules`` afterwards.
"""

from __future__ import annotations

import copy
import importlib
import sys
import tomllib
import types
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict

from worlds.tau2.source import package_root


class WheelToolError(Exception):
    """inspect-ai's ``ToolError``: what the wheel's tools raise to refuse a call."""


@cache
def _parsed_toml(text: str) -> dict[str, Any]:
    return tomllib.loads(text)


def parsed_toml(text: str) -> dict[str, Any]:
    """The TOML text parsed, each text once (the telecom tests load the same database for each of 2,285 tasks): a
    fresh copy each call, as parsing gives."""
    return copy.deepcopy(_parsed_toml(text))


def stand_ins(extra_packages: tuple[str, ...] = ()) -> dict[str, types.ModuleType]:
    """The stand-in inspect-ai modules, and the wheel's τ² packages entered without running their ``__init__``
    (``extra_packages``: more of ``inspect_evals.tau2``'s sub-packages)."""
    tool = types.ModuleType("inspect_ai.tool")
    tool.ToolError = WheelToolError  # type: ignore[attr-defined]
    util = types.ModuleType("inspect_ai.util")
    # inspect-ai's StoreModel allows arbitrary types (telecom's tools keep a plain id generator)
    config = ConfigDict(arbitrary_types_allowed=True)
    util.StoreModel = type("StoreModel", (BaseModel,), {"model_config": config})  # type: ignore[attr-defined]
    util.store_as = lambda *args, **kwargs: None  # type: ignore[attr-defined]
    model = types.ModuleType("inspect_ai.model")
    model.Content = object  # type: ignore[attr-defined]
    model.ContentText = type("ContentText", (), {})  # type: ignore[attr-defined]
    toml = types.ModuleType("toml")
    toml.load = lambda handle, **kwargs: parsed_toml(handle.read())  # type: ignore[attr-defined]  # telecom's db
    toml.dump = lambda *args, **kwargs: None  # type: ignore[attr-defined]
    modules = {"inspect_ai": types.ModuleType("inspect_ai"), "inspect_ai.tool": tool, "inspect_ai.util": util}
    modules |= {"inspect_ai.model": model, "toml": toml}
    root = package_root()
    for name, folder in (
        ("inspect_evals", root),
        ("inspect_evals.tau2", root / "tau2"),
        ("inspect_evals.tau2.airline", root / "tau2" / "airline"),
        ("inspect_evals.tau2.retail", root / "tau2" / "retail"),
        ("inspect_evals.tau2.telecom", root / "tau2" / "telecom"),
        ("inspect_evals.tau2.environment", root / "tau2" / "environment"),
        *((f"inspect_evals.tau2.{extra}", root / "tau2" / extra) for extra in extra_packages),
    ):
        package = types.ModuleType(name)
        package.__path__ = [str(folder)]
        modules[name] = package
    return modules


@contextmanager
def wheel_tool_classes() -> Iterator[dict[str, Any]]:
    """The wheel's classes by domain (``telecom_user``: its user tools, ``telecom_environment``: what keeps the two
    sides in step), while the block runs."""
    saved = dict(sys.modules)
    sys.modules.update(stand_ins())
    try:
        airline = importlib.import_module("inspect_evals.tau2.airline.AirlineAgentTools")
        retail = importlib.import_module("inspect_evals.tau2.retail.RetailAgentTools")
        telecom = importlib.import_module("inspect_evals.tau2.telecom.environment")
        yield {
            "airline": airline.AirlineAgentTools,
            "retail": retail.RetailAgentTools,
            "telecom": telecom.TelecomAgentTools,
            "telecom_user": telecom.TelecomUserTools,
            "telecom_environment": telecom.Environment,
        }
    finally:
        for name in set(sys.modules) - set(saved):
            del sys.modules[name]
        sys.modules.update(saved)


def without_none(value: Any) -> Any:
    """A pydantic dump as squall's records hold it: fields left at None are absent."""
    if isinstance(value, dict):
        return {k: without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_none(v) for v in value]
    return value


def changed_records(tools: Any, base: Any) -> set[tuple[str, str]]:
    """(table, key) of the records in ``tools``' database that differ from ``base``'s (the same tool class): changed,
    added or removed. The wheel's airline and retail databases are their tables and nothing else."""
    out = set()
    for table in type(base.db).model_fields:
        now, before = getattr(tools.db, table), getattr(base.db, table)
        out |= {(table, key) for key, record in now.items() if key not in before or record != before[key]}
        out |= {(table, key) for key in before if key not in now}
    return out


def back_to_base(tools: Any, base: Any) -> None:
    """Puts ``tools``' database back to ``base``'s, record by record: a small part of a second where loading a fresh
    database takes most of one."""
    for table, key in changed_records(tools, base):
        table_now, table_base = getattr(tools.db, table), getattr(base.db, table)
        if key in table_base:
            table_now[key] = table_base[key].model_copy(deep=True)
        else:
            del table_now[key]
