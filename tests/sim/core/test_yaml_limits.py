"""YAML is bounded by what its aliases add, not by its size in nodes: a large plain document loads, a small one
whose aliases multiply is refused, as is one that contains itself."""

from __future__ import annotations

import pytest

from sim.core import structured
from sim.core.bounded_read import InputFileError
from sim.core.structured import load_yaml


def test_a_large_document_without_aliases_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    # The bound once counted every node: a document past it without aliases must still load. Its size relative to
    # the bound is what is tested, so the bound is lowered (the pure-Python loader takes seconds on 150,000 nodes).
    monkeypatch.setattr(structured, "MAX_YAML_NODES", 1_000)
    count = 1_500
    assert count > structured.MAX_YAML_NODES
    value = load_yaml("items: [" + ",".join(["1"] * count) + "]\n", "big.yaml")
    assert len(value["items"]) == count


def test_aliases_within_the_bound_load() -> None:
    assert load_yaml("a: &x {k: 1}\nb: *x\nc: *x\n", "ok.yaml") == {"a": {"k": 1}, "b": {"k": 1}, "c": {"k": 1}}


def test_the_billion_laughs_is_refused() -> None:
    lines, previous = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'], "a"
    for name in "bcdefghi":
        lines.append(f"{name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]")
        previous = name
    with pytest.raises(InputFileError, match="aliases expand to more than 100,000 nodes"):
        load_yaml("\n".join(lines) + "\n", "lol.yaml")


def test_a_node_containing_itself_is_refused() -> None:
    with pytest.raises(InputFileError, match="an alias refers to a node that contains it"):
        load_yaml("a: &x [1, *x]\n", "loop.yaml")
