"""Resolving the ``$ref``s of an OpenAPI document (local ones, ``#/...``), nested and across components.

A reference cycle (a tree node whose ``children`` are nodes) cannot be expanded into a finite schema: at the
second visit of a reference along one path, it is cut and replaced by a placeholder schema that accepts any value
and says which reference it stands for (``x-squall-recursive``), so the agent still reads the shape down to the
first repetition. A ``$ref`` beside other keys (allowed in OpenAPI 3.1) is the target with those keys laid over
it. References into other files or URLs are refused: the import must not read beyond the file it was given.
Literal values (``example``, ``x-`` extensions) are copied as they are, never resolved.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from worlds.simulated.problems import Problems, extend

MAX_EXPANDED_DEPTH = 300
"""Levels of nesting once references are expanded (Python's recursion, and any sane schema, stay far below)."""
MAX_EXPANDED_NODES = 200_000
"""Values one schema may expand to (a reference used twice at each of 20 levels doubles 20 times): past it the
schema is refused, naming its place; no agent could read a tool description that size anyway."""
LITERAL_KEYS = frozenset({"example", "const", "default", "enum"})
"""Keys whose values are data, not schema: copied as they are (unless the key is a name in a map of names)."""
NAME_MAPS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "schemas", "parameters", "responses", "headers"}
)
"""Keys whose values map names to objects: there ``example`` or ``default`` is a name, not a literal."""


class _Budget(Exception):
    """The expansion grew past a limit; reported once as a problem. ``outermost``: the first reference followed."""

    def __init__(self, message: str, outermost: str | None) -> None:
        super().__init__(message)
        self.outermost = outermost


def cycle_placeholder(ref: str) -> dict[str, Any]:
    """What a cut reference cycle becomes: any value, documented."""
    return {"description": f"(recursive: the same shape as {ref}, not expanded again)", "x-squall-recursive": ref}


def decode(ref: str) -> list[str] | None:
    """The segments of a local reference (``#/components/schemas/Pet`` -> [...]); None when not local."""
    if not ref.startswith("#"):
        return None
    body = ref[1:]
    if body == "":
        return []
    if not body.startswith("/"):
        return None
    return [unquote(part).replace("~1", "/").replace("~0", "~") for part in body[1:].split("/")]


class RefResolver:
    """Expands references against one document; problems (dangling, external, too deep) go to ``problems``."""

    def __init__(self, document: Any, problems: Problems) -> None:
        self.document = document
        self.problems = problems
        self._nodes = 0
        self._too_big: set[str] = set()

    def target(self, ref: str, where: str) -> tuple[str, Any] | None:
        """(pointer, value) that ``ref`` (found at ``where``) names; None, with a problem, when it names nothing."""
        segments = decode(ref)
        if segments is None:
            self.problems.add(where, f"$ref '{ref}' is not supported: only references within the file ('#/...')")
            return None
        node = self.document
        for index, segment in enumerate(segments):
            if isinstance(node, dict) and segment in node:
                node = node[segment]
            elif isinstance(node, list) and segment.isdigit() and int(segment) < len(node):
                node = node[int(segment)]
            else:
                reached = "#" + "".join(f"/{s}" for s in segments[:index]) if index else "the document"
                self.problems.add(where, f"$ref '{ref}' does not resolve: no '{segment}' in {reached}")
                return None
        return extend("", *segments), node

    def resolve(self, value: Any, where: str) -> Any:
        """``value`` (found at pointer ``where``) with every reference expanded; a fresh structure."""
        self._nodes = 0
        try:
            return self._walk(value, where, (), 0)
        except _Budget as budget:
            self.problems.add(where, str(budget))
            if budget.outermost is not None:  # later uses of it fail at once instead of expanding it again
                self._too_big.add(budget.outermost)
            return {}

    def deref(self, value: Any, where: str) -> tuple[Any, str]:
        """One level: a ``{"$ref": ...}`` object's target and its pointer (chains followed); else ``value``. None
        (the problem already recorded) when a reference names nothing."""
        seen: set[str] = set()
        while isinstance(value, dict) and isinstance(value.get("$ref"), str):
            ref = value["$ref"]
            if ref in seen:
                self.problems.add(where, f"$ref '{ref}' refers to itself through other references")
                return None, where
            seen.add(ref)
            found = self.target(ref, extend(where, "$ref"))
            if found is None:
                return None, where
            where, value = found
        return value, where

    def _walk(self, value: Any, where: str, stack: tuple[str, ...], depth: int, names: bool = False) -> Any:
        """``names``: ``value`` maps names to objects (a ``properties`` map), so no key of it is a literal."""
        self._nodes += 1
        outermost = stack[0] if stack else None
        if self._nodes > MAX_EXPANDED_NODES:
            raise _Budget(f"expanding the $refs gives over {MAX_EXPANDED_NODES:,} values; refused", outermost)
        if depth > MAX_EXPANDED_DEPTH:
            raise _Budget(f"nested deeper than {MAX_EXPANDED_DEPTH} levels once $refs are expanded; refused", outermost)
        if isinstance(value, list):
            return [self._walk(item, extend(where, i), stack, depth + 1) for i, item in enumerate(value)]
        if not isinstance(value, dict):
            return value
        ref = value.get("$ref")
        if "$ref" in value and not isinstance(ref, str):
            self.problems.add(extend(where, "$ref"), "$ref must be a string")
            return {}
        if isinstance(ref, str):
            if ref in stack:
                return cycle_placeholder(ref)
            if ref in self._too_big:
                raise _Budget(f"expanding the $refs gives over {MAX_EXPANDED_NODES:,} values ({ref}); refused", None)
            found = self.target(ref, extend(where, "$ref"))
            if found is None:
                return {}
            target_where, target = found
            resolved = self._walk(target, target_where, (*stack, ref), depth + 1)
            siblings = {k: v for k, v in value.items() if k != "$ref"}
            if siblings and isinstance(resolved, dict):
                return {**resolved, **self._fields(siblings, where, stack, depth, names)}
            return resolved
        return self._fields(value, where, stack, depth, names)

    def _fields(
        self, value: dict[str, Any], where: str, stack: tuple[str, ...], depth: int, names: bool
    ) -> dict[str, Any]:
        return {
            key: item
            if not names and (key in LITERAL_KEYS or key.startswith("x-"))
            else self._walk(item, extend(where, key), stack, depth + 1, not names and key in NAME_MAPS)
            for key, item in value.items()
        }
