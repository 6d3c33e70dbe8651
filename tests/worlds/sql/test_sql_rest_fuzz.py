"""Property-based fuzz of the REST server through its own OpenAPI document (hypothesis): for every endpoint,
valid and invalid query strings never get a 5xx, every 200 is a JSON list, every 4xx is a JSON error naming the
problem; and a valid call over HTTP returns the ToolResult the world returns in-process."""

from __future__ import annotations

import asyncio
import functools
import http.client
import json
import threading
import urllib.parse
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from sim.core import ToolCall
from worlds.sql.engine.world import SqlPack
from worlds.sql.sample import sample_pack
from worlds.sql.serve.rest import start_rest_server
from worlds.sql.serve.rest_client import HttpSqlWorld

TEXT = st.text(st.characters(codec="utf-8"), max_size=20)  # no lone surrogates: they have no UTF-8
EXAMPLES = 300


class Served(tuple[int, dict[str, Any]]):
    """(port, OpenAPI document), with a short repr for hypothesis's failure reports."""

    def __repr__(self) -> str:
        return f"Served(port={self[0]})"


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[int, dict[str, Any]]]:
    """The sample served on 127.0.0.1:0 by a loop in a thread, so hypothesis drives it with plain blocking calls."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    started = asyncio.run_coroutine_threadsafe(start_rest_server(sample_pack()), loop).result(timeout=30)
    try:
        status, _, body = get(started.port, "/openapi.json")
        assert status == 200
        yield Served((started.port, json.loads(body)))
    finally:
        asyncio.run_coroutine_threadsafe(started.close(), loop).result(timeout=30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()


@pytest.fixture(scope="module")
def local_pack() -> SqlPack:
    """The sample pack the in-process calls run on: its own, not the server's."""
    return sample_pack()


def get(port: int, target: str) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", target)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def valid_value(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    kind = schema.get("type")
    if kind == "integer":
        return st.integers(min_value=-(2**63), max_value=2**63 - 1)
    if kind == "number":
        return st.one_of(st.integers(-(10**6), 10**6), st.floats(allow_nan=False, allow_infinity=False))
    if kind == "array":
        return st.lists(valid_value(schema.get("items", {})), max_size=4)
    return TEXT


def pairs_for(operation: dict[str, Any], valid: bool) -> st.SearchStrategy[list[tuple[str, str]]]:
    """Query pairs for one operation: every parameter well-typed, or each one well-typed, junk, repeated or
    missing, plus stray parameters."""
    parts = []
    for parameter in operation["parameters"]:
        name, schema = parameter["name"], parameter["schema"]
        typed = valid_value(schema).map(functools.partial(encoded, name))
        if valid:
            parts.append(typed)
        else:
            junk = st.lists(st.tuples(st.just(name), TEXT), min_size=1, max_size=3)
            parts.append(st.one_of(typed, junk, st.just([])))
    extra = st.just([]) if valid else st.lists(st.tuples(TEXT, TEXT), max_size=2)
    return st.tuples(st.tuples(*parts), extra).map(lambda t: [p for group in t[0] for p in group] + t[1])


def encoded(name: str, value: Any) -> list[tuple[str, str]]:
    """Form style, exploded, as the document says: a list repeats its parameter; the empty list is one empty value."""
    values = value if isinstance(value, list) else [value]
    if isinstance(value, list) and not value:
        return [(name, "")]
    return [(name, repr(v) if isinstance(v, float) else str(v)) for v in values]


def check(status: int, headers: dict[str, str], body: bytes, target: str) -> None:
    assert status < 500, (target, status, body)
    assert headers.get("Content-Type", "").startswith("application/json"), (target, headers)
    parsed = json.loads(body)
    if status == 200:
        assert isinstance(parsed, list) and all(isinstance(r, dict) for r in parsed), (target, parsed)
    else:
        assert 400 <= status < 500
        assert parsed["error"] and parsed["code"] and parsed["status"], (target, parsed)


def test_every_endpoint_is_in_the_document(server: tuple[int, dict[str, Any]]) -> None:
    _, document = server
    names = {t.name for t in sample_pack().new_world(0).specs()}
    assert {path.removeprefix("/api/") for path in document["paths"]} == names
    assert document["openapi"].startswith("3.")


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_no_input_gets_a_server_error(server: tuple[int, dict[str, Any]], data: st.DataObject) -> None:
    port, document = server
    path = data.draw(st.sampled_from(sorted(document["paths"])))
    pairs = data.draw(pairs_for(document["paths"][path]["get"], valid=data.draw(st.booleans())))
    target = f"{path}?{urllib.parse.urlencode(pairs)}"
    check(*get(port, target), target)


@settings(max_examples=EXAMPLES // 3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    path=TEXT, raw=st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E, exclude_characters="#"), max_size=30)
)
def test_raw_paths_and_query_strings_get_json_errors(server: tuple[int, dict[str, Any]], path: str, raw: str) -> None:
    port, document = server
    target = "/api/" + urllib.parse.quote(path, safe="") + "?" + raw
    status, headers, body = get(port, target)
    check(status, headers, body, target)
    known = sorted(document["paths"])[0] + "?" + raw  # a real endpoint with a raw, possibly broken query
    check(*get(port, known), known)


@settings(max_examples=EXAMPLES // 3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_call_over_http_returns_the_in_process_result(
    server: tuple[int, dict[str, Any]], local_pack: SqlPack, data: st.DataObject
) -> None:
    port, _ = server
    local = local_pack.new_world(0)  # a fresh world each example, from one pack (importing the sample takes ~0.1 s)
    spec = data.draw(st.sampled_from(local.specs()))
    properties = spec.parameters["properties"]
    arguments = {name: data.draw(valid_value(dict(schema))) for name, schema in properties.items()}
    assume([""] not in arguments.values())  # the one list the query encoding cannot tell from [] (see rest_schema)
    remote = HttpSqlWorld(f"http://127.0.0.1:{port}", local.name, local.specs(), local.instructions())
    call = ToolCall(id="c1", name=spec.name, arguments=arguments)
    expected = asyncio.run(local.call(call))
    got = asyncio.run(remote.call(call))
    assert got.model_dump(mode="json") == expected.model_dump(mode="json"), arguments
