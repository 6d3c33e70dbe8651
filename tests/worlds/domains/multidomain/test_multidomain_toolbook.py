"""Tool books are built, not registered: ``ToolBook.collect`` reads the marks ``lookup`` / ``action`` leave on
functions, so every module holding tools must be listed by its domain, and collecting twice gives equal books."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

import pytest

from worlds.common.toolbook import ToolBook, tool_def
from worlds.domains.multidomain import domains
from worlds.domains.multidomain.domains import TOOL_MODULES
from worlds.domains.multidomain.pack import build_toolkit


def _module(name: str, source: str) -> ModuleType:
    module = ModuleType(name)
    exec(compile(source, name, "exec"), module.__dict__)
    return module


def test_every_module_that_marks_tools_is_listed_by_its_domain() -> None:
    listed = {name for names in TOOL_MODULES.values() for name in names}
    marking = set()
    for info in pkgutil.iter_modules(domains.__path__):
        module = importlib.import_module(f"{domains.__name__}.{info.name}")
        if any(tool_def(value) is not None for value in vars(module).values()):
            marking.add(info.name)
    assert marking == listed


def test_collect_builds_a_fresh_book_in_source_order_from_the_tools_each_module_defines() -> None:
    first = _module(
        "first",
        "from worlds.common.toolbook import action, lookup\n"
        "@lookup('Find.')\ndef find(state): return {}\n"
        "@action('Add.', requires=('find',))\ndef add(state): return {}\n",
    )
    second = _module("second", "from worlds.common.toolbook import lookup\n@lookup('Zap.')\ndef a(state): return {}\n")
    second.find = first.find  # imported, not defined: it stays in the first module's book only
    book = ToolBook.collect("d", [first, second])
    assert [(t.spec.name, t.requires, t.domain) for t in book.tools] == [
        ("find", (), "d"),
        ("add", ("find",), "d"),
        ("a", (), "d"),
    ]
    assert ToolBook.collect("d", [first, second]) == book
    with pytest.raises(ValueError, match="defines no tools"):
        ToolBook.collect("d", [ModuleType("empty")])


def test_building_the_toolkit_twice_gives_the_same_tools() -> None:
    one, two = build_toolkit(), build_toolkit()
    assert one[0].specs == two[0].specs and one[1] == two[1]
