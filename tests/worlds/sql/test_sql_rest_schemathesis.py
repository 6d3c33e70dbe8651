"""Issue 25, item 11: schemathesis over the REST world, every check it has, a bounded number of examples per
operation: 0 server errors and 0 check failures.

The schema comes from the same ``openapi_document`` call the server makes, at import: schemathesis's
``from_fixture`` (loading from the started server) fails on pytest 9 (it sets ``node._nodeid``), and
``parametrize`` needs the schema when the module is collected. ``test_the_served_document_is_the_tested_one``
checks that the server publishes exactly that document. The sample world has 35 operations, every one tested:
phases examples, coverage and fuzzing, positive and negative data, 10 examples per operation, derandomized."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import CHECKS, load_all_checks

from tests.support.rest_world import request, rest_server_in_thread
from worlds.sql.sample import sample_pack
from worlds.sql.serve.rest import RestServer
from worlds.sql.serve.rest_schema import openapi_document

pytestmark = [pytest.mark.reliability, pytest.mark.slow]


def sample_document() -> dict[str, object]:
    pack = sample_pack()
    world = pack.new_world(0)
    return openapi_document(pack.name, world.instructions(), world.specs())


schema = schemathesis.openapi.from_dict(sample_document())
load_all_checks()
ALL_CHECKS = CHECKS.get_all()  # not_a_server_error, the conformance checks, negative/positive data, methods, ...


@pytest.fixture(scope="module")
def server() -> Iterator[RestServer]:
    with rest_server_in_thread(sample_pack()) as started:
        yield started


def test_the_served_document_is_the_tested_one(server: RestServer) -> None:
    status, _, body = request(server.port, "GET", "/openapi.json")
    assert status == 200 and json.loads(body) == json.loads(json.dumps(sample_document()))
    assert len(list(schema.get_all_operations())) == 35  # every operation of the sample, none filtered out


@schema.parametrize()
@settings(
    max_examples=10,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture],
)
def test_every_operation_passes_every_check(case: schemathesis.Case, server: RestServer) -> None:
    case.call_and_validate(base_url=server.url, checks=ALL_CHECKS)
