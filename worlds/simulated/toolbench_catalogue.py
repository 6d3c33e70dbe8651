"""The operations of a ToolBench import as they are read, by (tool_name, api name), names kept unique; a query's
``api_list`` entry joins it when no tool file defined that API (a query carries its APIs' documentation)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from worlds.simulated.operations import ApiOperation
from worlds.simulated.problems import Problems
from worlds.simulated.toolbench_import import api_operation
from worlds.simulated.toolbench_names import MAX_NAME, standardize


@dataclass
class Catalogue:
    """The operations read so far, by (tool_name, api name), with names kept unique."""

    operations: list[ApiOperation] = field(default_factory=list)
    by_key: dict[tuple[str, str], str] = field(default_factory=dict)
    standard_names: dict[str, str] = field(default_factory=dict)
    tools: list[str] = field(default_factory=list)

    def add(self, key: tuple[str, str], operation: ApiOperation) -> str:
        taken = {op.name for op in self.operations}
        name, number = operation.name, 2
        while name in taken:
            tail = f"_{number}"
            name = operation.name[: MAX_NAME - len(tail)] + tail
            number += 1
        self.operations.append(operation if name == operation.name else operation.model_copy(update={"name": name}))
        self.by_key[key] = name
        return name


def query_api(entry: Any, where: str, problems: Problems, catalogue: Catalogue, file: str) -> tuple[str, str] | None:
    """The (tool_name, api_name) of a query's ``api_list`` entry, its operation added from the entry itself when
    no tool file defined it (a query carries its APIs' documentation)."""
    if not isinstance(entry, dict):
        problems.add(where, "an 'api_list' entry must be an object")
        return None
    tool_name, api_name = entry.get("tool_name"), entry.get("api_name")
    if not isinstance(tool_name, str) or not isinstance(api_name, str):
        problems.add(where, "an 'api_list' entry needs 'tool_name' and 'api_name' strings")
        return None
    key = (tool_name, api_name)
    if key not in catalogue.by_key:
        standard = catalogue.standard_names.get(tool_name) or standardize(tool_name)
        category = entry.get("category_name") if isinstance(entry.get("category_name"), str) else None
        operation = api_operation(entry, where, problems, (tool_name, standard), category, file)
        if operation is None:
            return None
        catalogue.add(key, operation)
    return key
