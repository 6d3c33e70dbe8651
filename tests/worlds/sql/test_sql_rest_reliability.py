"""Issue 25, item 11: the REST world server serves no gold to a client without its token, answers per RFC (405
with Allow; a request line over 8,190 bytes gets a JSON 414, not text/plain; no traceback logged for a client's
error), and the OpenAPI document it publishes bounds integers to 64 bits and asks required arrays for an item."""

from __future__ import annotations

import json
import logging
import socket
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sim.bench.mock_process import stop_pid
from sim.core import Task
from tests.support.rest_world import request, rest_server_in_thread, served
from worlds.sql.sample import sample_pack
from worlds.sql.serve.rest import RestServer
from worlds.sql.serve.rest_client import HttpSqlPack

pytestmark = pytest.mark.reliability

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


@pytest.fixture(scope="module")
def server() -> Iterator[RestServer]:
    with rest_server_in_thread(sample_pack()) as started:
        yield started


def json_error(status: int, headers: dict[str, str], body: bytes) -> dict[str, Any]:
    assert headers.get("Content-Type", "").startswith("application/json"), (status, headers, body[:200])
    parsed: dict[str, Any] = json.loads(body)
    assert parsed["error"] and parsed["code"] and parsed["status"], parsed
    return parsed


def test_tasks_need_the_servers_token(server: RestServer) -> None:
    gold_answer = json.dumps(sample_pack().tasks()[0].goals[0].answer)
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": server.token}):
        status, got_headers, body = request(server.port, "GET", "/tasks", headers)
        assert status == 401, (headers, status)
        assert got_headers.get("WWW-Authenticate", "").startswith("Bearer")
        json_error(status, got_headers, body)
        assert gold_answer not in body.decode()
    status, _, body = request(server.port, "GET", "/tasks", {"Authorization": f"Bearer {server.token}"})
    assert status == 200 and [Task.model_validate(t) for t in json.loads(body)] == sample_pack().tasks()


def test_the_harness_reads_the_tasks_with_the_token(server: RestServer) -> None:
    assert HttpSqlPack(server.url, token=server.token).tasks() == sample_pack().tasks()
    with pytest.raises(ValueError, match="refused its tasks"):
        HttpSqlPack(server.url, token="not-the-token")


def test_squall_serve_leaves_its_token_to_its_user_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`squall serve` writes the token file (before the port file) readable by its user only; the harness finds it
    by port with no option; a client without it gets no gold; the file is gone once the server stops."""
    from worlds.sql.serve.rest_token import token_path  # here: the other tests still run (and fail) without the module

    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "runtime"))
    with served(tmp_path / "serve") as (proc, port):
        path = token_path(port)
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        assert HttpSqlPack(f"http://127.0.0.1:{port}").tasks() == sample_pack().tasks()
        assert request(port, "GET", "/tasks")[0] == 401
        stop_pid(proc)
        assert proc.returncode == 0
    assert not path.exists()


def test_a_harness_without_the_token_file_is_refused_in_one_line(
    server: RestServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "elsewhere"))
    with pytest.raises(ValueError, match="no token from its `squall serve` was found"):
        HttpSqlPack(server.url)


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"])
@pytest.mark.parametrize("target", ["/api/count_book", "/openapi.json", "/tasks"])
def test_a_method_not_allowed_names_the_allowed_ones(server: RestServer, method: str, target: str) -> None:
    status, headers, body = request(server.port, method, target)
    assert status == 405
    assert {m.strip() for m in headers.get("Allow", "").split(",")} == {"GET", "HEAD"}
    json_error(status, headers, body)


@pytest.fixture
def server_log(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    with caplog.at_level(logging.DEBUG):
        yield caplog


def assert_no_traceback(log: pytest.LogCaptureFixture) -> None:
    logged = [(r.name, r.levelname, r.getMessage()[:120]) for r in log.records if r.exc_info or r.levelno >= 30]
    assert not logged, logged


def raw_exchange(port: int, payload: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send bytes as they are (no client library to refuse them) and read the whole answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
        connection.sendall(payload)
        chunks = []
        while chunk := connection.recv(65536):
            chunks.append(chunk)
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in header_lines)
    return int(status_line.split()[1]), headers, body


def test_a_long_request_line_gets_a_json_414_and_no_traceback(
    server: RestServer, server_log: pytest.LogCaptureFixture
) -> None:
    target = "/api/get_book_title_by_genre?genre=" + "x" * 9000  # the issue's: over 8,190 bytes
    status, headers, body = raw_exchange(server.port, f"GET {target} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert status == 414
    assert json_error(status, headers, body)["code"] == "uri_too_long"
    assert_no_traceback(server_log)
    assert request(server.port, "GET", "/health")[0] == 200  # and the server still answers


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        (b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"y" * 9000 + b"\r\n\r\n", 431),
        (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03garbage\r\n\r\n", 400),  # a TLS hello on the HTTP port
        (b"GET /health HTTP/1.1\r\nBad Header\r\n\r\n", 400),
    ],
    ids=["long-header", "tls-hello", "malformed-header"],
)
def test_other_unparsable_requests_get_json_and_no_traceback(
    server: RestServer, server_log: pytest.LogCaptureFixture, payload: bytes, expected: int
) -> None:
    status, headers, body = raw_exchange(server.port, payload)
    assert status == expected
    json_error(status, headers, body)
    assert_no_traceback(server_log)


def test_client_errors_log_no_traceback(server: RestServer, server_log: pytest.LogCaptureFixture) -> None:
    for method, target in [
        ("GET", "/nowhere"),
        ("GET", "/api/no_such_function"),
        ("GET", "/api/get_book_title_by_min_pages?min_pages=" + str(2**64)),
        ("GET", "/api/get_book_title_by_min_pages?min_pages=abc&stray=1"),
        ("DELETE", "/api/count_book"),
        ("GET", "/tasks"),
    ]:
        status, headers, body = request(server.port, method, target)
        assert 400 <= status < 500, (target, status)
        json_error(status, headers, body)
    assert_no_traceback(server_log)


def integer_schemas(schema: dict[str, Any]) -> Iterator[dict[str, Any]]:
    if schema.get("type") == "integer":
        yield schema
    if isinstance(schema.get("items"), dict):
        yield from integer_schemas(schema["items"])


def test_the_document_bounds_integers_and_asks_required_arrays_for_an_item(server: RestServer) -> None:
    status, _, body = request(server.port, "GET", "/openapi.json")
    assert status == 200
    document = json.loads(body)
    integers = arrays = 0
    for path, item in document["paths"].items():
        for parameter in item["get"]["parameters"]:
            for schema in integer_schemas(parameter["schema"]):
                integers += 1
                assert INT64_MIN <= schema["minimum"] <= schema["maximum"] <= INT64_MAX, (path, parameter)
            if parameter["schema"].get("type") == "array" and parameter["required"]:
                arrays += 1
                assert parameter["schema"]["minItems"] >= 1, (path, parameter)
    assert integers >= 10 and arrays >= 4  # the sample has both kinds, so the loops above ran


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("min_pages=" + str(INT64_MAX), 200),
        ("min_pages=" + str(INT64_MIN), 200),
        ("min_pages=" + str(INT64_MAX + 1), 400),  # the issue's: past 64 bits, now outside the document
        ("min_pages=" + str(INT64_MIN - 1), 400),
        ("min_pages=" + "9" * 40, 400),
    ],
)
def test_integers_past_64_bits_are_refused_as_the_document_says(server: RestServer, query: str, expected: int) -> None:
    status, _, _ = request(server.port, "GET", "/api/get_book_title_by_min_pages?" + query)
    assert status == expected


@pytest.mark.parametrize("value", [str(INT64_MAX + 1), "1e30", "9" * 29])
def test_array_items_past_64_bits_are_refused(server: RestServer, value: str) -> None:
    """In a list (bound as JSON text) SQLite would take any size, so the bound is the server's own."""
    status, _, _ = request(server.port, "GET", f"/api/get_member_name_by_member_id_list?member_id_list={value}")
    assert status == 400
    assert request(server.port, "GET", "/api/get_member_name_by_member_id_list?member_id_list=1")[0] == 200


def test_a_number_past_64_bits_is_read_as_a_float(server: RestServer) -> None:
    status, _, body = request(server.port, "GET", "/api/get_book_title_by_min_price?min_price=" + "9" * 25)
    assert (status, json.loads(body)) == (200, [])
