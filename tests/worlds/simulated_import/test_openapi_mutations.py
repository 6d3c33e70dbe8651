"""Mutated OpenAPI documents: a broken one exits 2 under --strict with problems listed, writes nothing, and never
shows a traceback; any mutation at all either imports into a loadable folder (a broken operation skipped) or fails
that way.

The command's function is called directly (as `squall import openapi` calls it, exit code from its ``typer.Exit``):
building the whole command line per example would take most of the test's time; test_openapi_import drives the
real command line."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.cli.import_openapi import openapi_command
from tests.worlds.simulated_import.specs import small_spec
from worlds.simulated.operations import ApiSpec

GET = ["paths", "/pets", "get"]
PARAM = [*GET, "parameters", 0]
POST = ["paths", "/pets", "post"]
BODY = [*POST, "requestBody"]

DELETIONS = [["openapi"], ["paths"], [*PARAM, "name"], [*PARAM, "in"], [*PARAM, "schema"], [*BODY, "content"]]
"""Keys without which the document is broken."""
RETYPINGS: list[tuple[list[Any], Any]] = [
    (["paths"], []),
    (["openapi"], 3.1),
    (GET, "list pets"),
    ([*GET, "parameters"], {"limit": 1}),
    ([*PARAM, "in"], "body"),
    ([*PARAM, "in"], 7),
    ([*PARAM, "required"], "yes"),
    ([*PARAM, "schema", "type"], "strin"),
    ([*PARAM, "schema", "type"], 5),
    ([*POST, "x-squall-writes"], "yes"),
    ([*GET, "tags"], "pets"),
    ([*GET, "operationId"], 12),
    ([*GET, "responses"], ["200"]),
    ([*BODY, "content"], "application/json"),
    (["components", "schemas", "Pet", "required"], "name"),
]
"""Values of the wrong type (or an impossible one) where the document needs another."""
DANGLING = ["#/components/schemas/Nope", "#/components/schemata/Pet", "other.yaml#/Pet", "#/paths/~1nope"]
BROKEN_YAML = [
    "bad: [unclosed",
    "key: value: other",
    "\tindented: with a tab",
    "- a\nb: c",
    'x: "unterminated',
]  # safe_dump quotes with ' only: never closed


def set_at(document: dict[str, Any], path: list[Any], value: Any) -> None:
    node: Any = document
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value


def delete_at(document: dict[str, Any], path: list[Any]) -> None:
    node: Any = document
    for part in path[:-1]:
        node = node[part]
    del node[path[-1]]


@st.composite
def broken_documents(draw: st.DrawFn) -> str:
    """The YAML text of the small document with one change that breaks it."""
    document = small_spec()
    kind = draw(st.sampled_from(["delete", "retype", "duplicate", "duplicate-key", "dangling", "yaml"]))
    if kind == "delete":
        delete_at(document, draw(st.sampled_from(DELETIONS)))
    elif kind == "retype":
        path, value = draw(st.sampled_from(RETYPINGS))
        set_at(document, path, value)
    elif kind == "duplicate":
        other = draw(st.sampled_from(["listPets", "createPet"]))
        set_at(document, ["paths", "/pets/{petId}", "get", "operationId"], other)
    elif kind == "dangling":
        place = draw(
            st.sampled_from(
                [
                    [*GET, "responses", "200", "content", "application/json", "schema", "items"],
                    [*BODY, "content", "application/json", "schema"],
                ]
            )
        )
        set_at(document, place, {"$ref": draw(st.sampled_from(DANGLING))})
    text = yaml.safe_dump(document, sort_keys=False)
    if kind == "duplicate-key":  # a mapping's key line given twice in a row: the first now maps to nothing
        lines = text.splitlines()
        keyed = [index for index, line in enumerate(lines) if re.match(r"\s*[^-\s][^:]*:", line)]
        at = draw(st.sampled_from(keyed))
        lines.insert(at, lines[at])
        text = "\n".join(lines) + "\n"
    if kind == "yaml":
        lines = text.splitlines()
        at = draw(st.integers(0, len(lines)))
        lines.insert(at, draw(st.sampled_from(BROKEN_YAML)))
        text = "\n".join(lines) + "\n"
    return text


@contextlib.contextmanager
def run_import(text: str, strict: bool = False) -> Iterator[tuple[int, str, Path]]:
    """(exit code, stderr, --out) of importing ``text``; the folders go when the block ends."""
    root = Path(tempfile.mkdtemp(prefix="squall-openapi-"))
    try:
        spec = root / "api.yaml"
        spec.write_text(text, encoding="utf-8")
        out = root / "world"
        err = io.StringIO()
        code = 0
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            try:
                openapi_command(spec, out, strict=strict)
            except typer.Exit as exit_:
                code = exit_.exit_code
        yield code, err.getvalue(), out
    finally:
        shutil.rmtree(root, ignore_errors=True)


def assert_refused(code: int, err: str, out: Path) -> None:
    assert code == 2, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert lines and all(line.startswith("error: ") for line in lines), err
    assert not out.exists() and sorted(p.name for p in out.parent.iterdir()) == ["api.yaml"]  # no staging either


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(broken_documents())
def test_a_broken_document_is_refused_with_nothing_written(text: str) -> None:
    with run_import(text, strict=True) as (code, err, out):
        assert_refused(code, err, out)


def _places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key and index of the document, as paths."""
    found: list[tuple[Any, ...]] = [path] if path else []
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(_places(item, (*path, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_places(item, (*path, index)))
    return found


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=5) | st.just("#/components/schemas/Pet"),
    lambda inner: (
        st.lists(inner, max_size=2)
        | st.dictionaries(st.sampled_from(["$ref", "type", "name", "in", "x"]), inner, max_size=2)
    ),
    max_leaves=4,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_mutation_imports_or_is_refused_cleanly(data: st.DataObject) -> None:
    document = small_spec()
    for _ in range(data.draw(st.integers(1, 3))):
        places = _places(document)
        if not places:
            break
        place = list(data.draw(st.sampled_from(places)))
        if data.draw(st.booleans()):
            delete_at(document, place)
        else:
            set_at(document, place, copy.deepcopy(data.draw(JSON_VALUES)))
    text = json.dumps(document) if data.draw(st.booleans()) else yaml.safe_dump(document, sort_keys=False)
    with run_import(text) as (code, err, out):
        if code == 0:
            api = ApiSpec.model_validate_json((out / "operations.json").read_text(encoding="utf-8"))
            assert api.operations and (out / "cache").is_dir()
        else:
            assert_refused(code, err, out)
