"""Resolving the ``$ref``s of an OpenAPI document, nested and across components, and into other files of the
spec's folder (``worlds.simulated.ref_files``; URLs and paths out of the folder are refused).

A reference cycle (a tree node whose ``children`` are nodes) cannot be expanded into a finite schema: at the
second visit of a reference along one path, it is cut and replaced by a placeholder schema that accepts any value
and says which reference it stands for (``x-squall-recursive``), so the agent still reads the shape down to the
first repetition. A ``$ref`` beside other keys (allowed in OpenAPI 3.1) is the target with those keys laid over
it. Literal values (``example``, ``x-`` extensions) are copied as they are, never resolved.

A schema whose full expansion passes ``MAX_EXPANDED_NODES`` (a component used twice at each of 20 levels doubles
20 times: Stripe's expandable objects; a message holding its author, thread and replies: Discord's) is resolved
again with its nested references shared: each referenced schema once under ``defs``, for the whole document, named
``#/$defs/NAME`` (``worlds.simulated.shared_schemas`` stores them once and attaches them to each operation on load);
cycles are then plain references. A shared schema's problems and relaxations are found once and reported for every
operation that reaches it. When a schema with its parts shared still passes ``MAX_SHARED_NODES`` it is refused
(its operation skipped).

Obvious slips that JSON Schema refuses are relaxed while walking and noted in ``notes`` with their place: a name
listed twice in ``required``, a boolean ``required`` inside a schema (draft 3's form), a boolean
``$recursiveAnchor`` (2019-09's form; 2020-12 wants a name).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from worlds.simulated.problems import Problems, extend
from worlds.simulated.ref_files import RefFiles, join_where, split_where
from worlds.simulated.shared_schemas import DEFS, reach, refs_in

MAX_EXPANDED_DEPTH = 300
"""Levels of nesting once references are expanded (Python's recursion, and any sane schema, stay far below)."""
MAX_EXPANDED_NODES = 2_000
"""Values one schema may expand to inline (some 50 KB of JSON): past it its parts are shared instead (see the
module's doc). It bounds what each operation adds to operations.json beyond the shared schemas."""
MAX_SHARED_NODES = 200_000
"""Values one schema may reach with its parts shared, ``$defs`` included (what a model reads for that tool): past
it the schema is refused (its operation skipped), naming its place."""
LITERAL_KEYS = frozenset({"example", "const", "default", "enum"})
"""Keys whose values are data, not schema: copied as they are (unless the key is a name in a map of names)."""
NAME_MAPS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "schemas", "parameters", "responses", "headers"}
)
"""Keys whose values map names to objects: there ``example`` or ``default`` is a name, not a literal."""
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


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


def _key(where: str) -> str:
    """A place as a reference key, the same whichever file named it (``#/components/schemas/Pet``)."""
    label, pointer = split_where(where)
    return f"{label}#{pointer}"


class RefResolver:
    """Expands references against one document (and, with ``files``, the files it names); problems (dangling,
    external, too big) go to ``problems``, relaxations to ``notes``. ``begin`` starts one operation's scope."""

    def __init__(self, document: Any, problems: Problems, files: RefFiles | None = None) -> None:
        self.document = document
        self.files = files
        self.problems = problems
        self.notes = Problems(problems.file)
        self.defs: dict[str, Any] = {}
        """The document's shared schemas by name (see the module's doc), each walked once."""
        self.def_places: dict[str, str] = {}
        self.graph: dict[str, set[str]] = {}
        """Shared name -> the shared names it refers to directly."""
        self.used: set[str] = set()
        """The shared schemas the current operation reaches."""
        self._def_problems: dict[str, tuple[list[str], list[str]]] = {}
        self._def_sizes: dict[str, int] = {}
        self._names: dict[str, str] = {}
        self._pending: list[tuple[str, Any, str]] = []
        self._shared = False
        self._nodes = 0
        self._too_big: set[str] = set()

    def begin(self, problems: Problems, notes: Problems) -> None:
        """One operation's problems and notes go to these; the shared schemas it reaches start empty."""
        self.problems, self.notes = problems, notes
        self.used = set()

    def target(self, ref: str, where: str) -> tuple[str, Any] | None:
        """(place, value) that ``ref`` (found at ``where``) names; None, with a problem, when it names nothing."""
        label, _ = split_where(where)
        name, _, fragment = ref.partition("#")
        document = self.files.document(label) if self.files is not None else self.document
        if name:
            if self.files is None:
                self.problems.add(where, f"$ref '{ref}' is not supported: only references within the file ('#/...')")
                return None
            opened = self.files.open(name, label)
            if isinstance(opened, str):
                self.problems.add(where, f"$ref '{ref}' is refused: {opened}")
                return None
            label, document = opened
        segments = decode("#" + fragment)
        if segments is None:
            self.problems.add(where, f"$ref '{ref}' is not supported: after '#' only a JSON pointer ('#/...')")
            return None
        node = document
        for index, segment in enumerate(segments):
            if isinstance(node, dict) and segment in node:
                node = node[segment]
            elif isinstance(node, list) and segment.isdigit() and int(segment) < len(node):
                node = node[int(segment)]
            else:
                reached = "#" + "".join(f"/{s}" for s in segments[:index]) if index else "the document"
                into = f" of {label}" if label else ""
                self.problems.add(where, f"$ref '{ref}' does not resolve: no '{segment}' in {reached}{into}")
                return None
        return join_where(label, extend("", *segments)), node

    def resolve(self, value: Any, where: str) -> Any:
        """``value`` (found at pointer ``where``) with every reference expanded, or past the bound, its nested
        ones shared (``#/$defs/NAME``, into ``defs``); a fresh structure. ``{}`` with a problem when too big."""
        self._nodes = 0
        try:
            return self._walk(value, where, (), 0)
        except _Budget as budget:
            if budget.outermost is not None:  # later uses of it go straight to sharing instead of expanding again
                self._too_big.add(budget.outermost)
            full = str(budget).removesuffix("; refused")
        self._nodes, self._shared = 0, True
        try:
            resolved = self._walk(value, where, (), 0)
            size = self._nodes
            self._walk_pending()
        except _Budget as budget:
            self.problems.add(
                where, f"{full}; with its parts shared as $defs, {str(budget).removesuffix('; refused')}; refused"
            )
            return {}
        finally:
            self._shared = False
            self._pending.clear()
        reached = reach(refs_in(resolved), self.graph)
        for name in reached:
            problems, notes = self._def_problems[name]
            for line in problems:
                self.problems.add_line(line)
            for line in notes:
                self.notes.add_line(line)
        if size + sum(self._def_sizes[name] for name in reached) > MAX_SHARED_NODES:
            self.problems.add(
                where, f"{full}; with its parts shared as $defs, over {MAX_SHARED_NODES:,} values; refused"
            )
            return {}
        self.used.update(reached)
        return resolved

    def _walk_pending(self) -> None:
        """Walks the shared schemas named since the last call, each once for the document, its problems and
        relaxations kept apart to be reported for every operation that reaches it."""
        while self._pending:
            name, target, target_where = self._pending.pop()
            problems, notes = self.problems, self.notes
            self.problems, self.notes = Problems(problems.file), Problems(notes.file)
            self._nodes = 0
            try:
                self.defs[name] = self._walk(target, target_where, (), 1)
            except _Budget as budget:
                self.defs[name] = {}
                too_big = str(budget).removesuffix("; refused")
                self.problems.add(target_where, f"with its parts shared as $defs, {too_big}; refused")
            finally:
                self._def_problems[name] = (self.problems.lines, self.notes.lines)
                self._def_sizes[name] = self._nodes
                self.graph[name] = refs_in(self.defs[name])
                self.problems, self.notes = problems, notes

    def deref(self, value: Any, where: str) -> tuple[Any, str]:
        """One level: a ``{"$ref": ...}`` object's target and its place (chains followed); else ``value``. None
        (the problem already recorded) when a reference names nothing."""
        seen: set[str] = set()
        while isinstance(value, dict) and isinstance(value.get("$ref"), str):
            ref = value["$ref"]
            found = self.target(ref, extend(where, "$ref"))
            if found is None:
                return None, where
            if _key(found[0]) in seen:
                self.problems.add(where, f"$ref '{ref}' refers to itself through other references")
                return None, where
            seen.add(_key(found[0]))
            where, value = found
        return value, where

    def _walk(self, value: Any, where: str, stack: tuple[str, ...], depth: int, names: bool = False) -> Any:
        """``names``: ``value`` maps names to objects (a ``properties`` map), so no key of it is a literal."""
        self._nodes += 1
        outermost = stack[0] if stack else None
        if self._shared and self._nodes > MAX_SHARED_NODES:
            raise _Budget(f"over {MAX_SHARED_NODES:,} values", None)
        if not self._shared and self._nodes > MAX_EXPANDED_NODES:
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
        if not isinstance(ref, str):
            return self._fields(value, where, stack, depth, names)
        found = self.target(ref, extend(where, "$ref"))
        if found is None:
            return {}
        target_where, target = found
        key = _key(target_where)
        if key in stack:
            return cycle_placeholder(key)
        siblings = {k: v for k, v in value.items() if k != "$ref"}
        if self._shared and depth > 0:  # the root's own reference is expanded: its properties become arguments
            shared = {"$ref": DEFS + self._define(key, target, target_where)}
            return {**shared, **self._fields(siblings, where, stack, depth, names)} if siblings else shared
        if not self._shared and key in self._too_big:
            raise _Budget(f"expanding the $refs gives over {MAX_EXPANDED_NODES:,} values ({ref}); refused", None)
        resolved = self._walk(target, target_where, (*stack, key), depth + 1)
        if siblings and isinstance(resolved, dict):
            return {**resolved, **self._fields(siblings, where, stack, depth, names)}
        return resolved

    def _define(self, key: str, target: Any, where: str) -> str:
        """The name of the shared schema ``key`` names, walked later (once) into ``defs``."""
        if key in self._names:
            return self._names[key]
        base = _UNSAFE_NAME.sub("_", key.rsplit("/", 1)[-1]).strip("_") or "schema"
        name, number = base, 2
        while name in self.def_places:
            name, number = f"{base}_{number}", number + 1
        self._names[key], self.def_places[name] = name, where
        self._pending.append((name, target, where))
        return name

    def _fields(
        self, value: dict[str, Any], where: str, stack: tuple[str, ...], depth: int, names: bool
    ) -> dict[str, Any]:
        if not names:
            value = self._relaxed(value, where)
        return {
            key: item
            if not names and (key in LITERAL_KEYS or key.startswith("x-"))
            else self._walk(item, extend(where, key), stack, depth + 1, not names and key in NAME_MAPS)
            for key, item in value.items()
        }

    def _relaxed(self, schema: dict[str, Any], where: str) -> dict[str, Any]:
        """``schema`` without the slips the module's doc lists, each noted at its place."""
        required = schema.get("required")
        if isinstance(required, bool):
            self.notes.add(extend(where, "required"), f"'required: {str(required).lower()}' inside a schema dropped")
            schema = {k: v for k, v in schema.items() if k != "required"}
        elif isinstance(required, list) and all(isinstance(name, str) for name in required):
            unique = list(dict.fromkeys(required))
            if len(unique) < len(required):
                twice = sorted({name for name in required if required.count(name) > 1})
                self.notes.add(extend(where, "required"), f"'required' lists {', '.join(twice)} more than once")
                schema = {**schema, "required": unique}
        if isinstance(schema.get("$recursiveAnchor"), bool):
            self.notes.add(extend(where, "$recursiveAnchor"), "2019-09's boolean '$recursiveAnchor' dropped")
            schema = {k: v for k, v in schema.items() if k != "$recursiveAnchor"}
        return schema
