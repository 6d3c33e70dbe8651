"""A multi-turn backend's state as squall's state judge reads it, with BFCL's notion of equal.

BFCL's state check compares every public attribute (no leading ``_``) of each instance with ``!=``: a directory
equals another when names and contents do (``Directory.__eq__``), a file when name and content do. Here each public
attribute becomes JSON (directories and files as objects that carry exactly what their ``__eq__`` compares, sets as
sorted lists, mapping keys as text) and is flattened under the class name by ``sim.core.task_state.flatten``
(``GorillaFileSystem.root.contents.notes.txt.content``), so two states compare alike exactly when BFCL's instances
do, up to what JSON cannot tell apart (a key ``1`` from ``"1"``, a tuple from a list, the order of a list of
records with ``id``: none occurs in BFCL's data or gold).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sim.core.task_state import flatten


def public_state(instances: Mapping[str, object]) -> dict[str, Any]:
    """Every involved instance's public attributes, JSON-safe and flat, by class name."""
    whole = {
        name: {key: jsonable(value) for key, value in vars(obj).items() if not key.startswith("_")}
        for name, obj in instances.items()
    }
    return flatten(whole)


def jsonable(value: Any) -> Any:
    """A backend value as JSON, keeping what BFCL's equality compares."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((jsonable(v) for v in value), key=repr)
    kind = type(value).__name__
    if kind == "Directory":  # GorillaFileSystem: equal by name and contents (the parent link is not compared)
        return {"type": "directory", "name": value.name, "contents": jsonable(value.contents)}
    if kind == "File":  # equal by name and content (the modification time is private)
        return {"type": "file", "name": value.name, "content": value.content}
    return repr(value)
