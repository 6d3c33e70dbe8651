"""Parsing input files (JSON, TOML, YAML) within limits on their shape: how deep they nest, and for YAML how far
its aliases expand (the file's size is the reader's limit: a large document without aliases is just large).

Deep nesting runs Python's recursive code (a YAML composer, tomllib, a validator, ``freeze``) out of stack: a
RecursionError traceback at load or, worse, mid-run. YAML aliases let a 1 KB file stand for a billion nodes
("billion laughs"): parsing is quick, but every walk of the result (validation, text checks) is not. Both are
refused at load, naming the file and line, long before either is felt.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, SequenceNode

from sim.core.bounded_read import InputFileError, read_text
from sim.core.text_check import surrogate_problem

MAX_DEPTH = 64
"""Levels of nested lists and mappings any input may have; real tasks, configs and personas use under 10."""
MAX_ALIASES = 100
"""YAML alias references (``*name``) in one file; hand-written personas use none or a few."""
MAX_YAML_NODES = 100_000
"""Nodes a YAML document's aliases may add once expanded: every use of an anchor after its first appearance counts
its whole subtree. Nodes written out in the file are not counted (the bytes read bound them)."""


def nesting_depth(value: Any, stop_at: int = MAX_DEPTH + 1) -> int:
    """Levels of lists, tuples and dicts in ``value`` (a scalar is 0), counted without recursion; counting stops at
    ``stop_at``."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        deepest = max(deepest, depth + 1)
        if deepest >= stop_at:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest


def check_depth(value: Any, where: Path | str) -> None:
    """Raise InputFileError when ``value`` (parsed from ``where``) nests deeper than MAX_DEPTH."""
    if nesting_depth(value) > MAX_DEPTH:
        raise InputFileError(f"{where}: nested deeper than {MAX_DEPTH} levels")


def check_parsed(value: Any, where: Path | str) -> None:
    """Depth, and text every file can hold: JSON and YAML escapes can spell a lone surrogate (``"\\ud800"``),
    which passes validation and crashes the first write of it."""
    check_depth(value, where)
    if problem := surrogate_problem(value):
        raise InputFileError(f"{where}: {problem}")


def parse_json(text: str, where: Path | str) -> Any:
    """``text`` as JSON within MAX_DEPTH; an error names ``where`` (and the line of a syntax error in a text of
    several lines: ``where`` of one line of a JSONL file names the line itself)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        line = f":{error.lineno}" if "\n" in text else ""
        raise InputFileError(f"{where}{line}: invalid JSON: {error.msg} (column {error.colno})") from None
    except RecursionError:  # the C decoder's own guard: nesting far past MAX_DEPTH
        raise InputFileError(f"{where}: nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as error:  # an integer of over 4,300 digits
        raise InputFileError(f"{where}: unreadable JSON: {error}") from None
    check_parsed(value, where)
    return value


def load_json(path: Path | str, limit: int) -> Any:
    """A JSON file (see ``read_bytes`` for ``limit``), within MAX_DEPTH. Raises InputFileError."""
    return parse_json(read_text(path, limit), path)


def load_toml(path: Path | str, limit: int) -> dict[str, Any]:
    """A TOML file (see ``read_bytes`` for ``limit``), within MAX_DEPTH. Raises InputFileError."""
    text = read_text(path, limit)
    try:
        value = tomllib.loads(text)
    except RecursionError:  # tomllib recurses per level: nesting far past MAX_DEPTH
        raise InputFileError(f"{path}: nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as error:  # TOMLDecodeError (it names line and column), an integer too long
        raise InputFileError(f"{path}: invalid TOML: {error}") from None
    check_depth(value, path)
    return value


class _BoundedLoader(yaml.SafeLoader):
    """A SafeLoader that refuses deep nesting and many aliases while composing, before any object is built."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._aliases = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                raise _limit(self.peek_event().start_mark, f"more than {MAX_ALIASES} aliases")
            return super().compose_node(parent, index)
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise _limit(self.peek_event().start_mark, f"nested deeper than {MAX_DEPTH} levels")
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class _OverLimit(yaml.MarkedYAMLError):
    """Well-formed YAML past one of the limits above."""


def _limit(mark: Any, problem: str) -> _OverLimit:
    return _OverLimit(problem=problem, problem_mark=mark)


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _check_aliases(root: Node) -> None:
    """Refuse a document whose aliases add more than MAX_YAML_NODES nodes, or that contains itself. The composer
    returns the anchored node itself wherever an alias names it, so a node met again is an alias use, adding its
    whole expanded subtree. Sizes are summed bottom-up without recursion (aliases can nest past Python's stack)."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    added = 0
    pending: list[tuple[Node, bool]] = [(root, False)]
    while pending:
        node, leaving = pending.pop()
        key = id(node)
        if leaving:
            open_nodes.discard(key)
            sizes[key] = 1 + sum(sizes[id(child)] for child in _children(node))
        elif key in sizes:
            added += sizes[key]
            if added > MAX_YAML_NODES:
                raise _limit(node.start_mark, f"its aliases expand to more than {MAX_YAML_NODES:,} nodes")
        elif key in open_nodes:
            raise _limit(node.start_mark, "an alias refers to a node that contains it")
        else:
            open_nodes.add(key)
            pending.append((node, True))
            pending.extend((child, False) for child in reversed(_children(node)))


def load_yaml(text: str, path: Path | str) -> Any:
    """One YAML document, safely (no Python objects), within the limits above. Raises InputFileError naming the
    file and line: for a syntax error, as for a limit."""
    loader = _BoundedLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_aliases(node)
        value = loader.construct_document(node)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        what = "refused" if isinstance(error, _OverLimit) else "not valid YAML"
        raise InputFileError(f"{where}: {what}: {getattr(error, 'problem', None) or error}") from None
    finally:
        loader.dispose()
    check_parsed(value, path)
    return value
