"""The ``squall-agent/1`` handshake: the hello in the protocol and its OpenAPI document, what answers it, and the
verdicts on an ``http:`` service and a ``command:`` program: one nothing answers for is unreachable, one that answers
with an HTTP error, a non-zero exit or garbage is refused saying so, in one line."""

from __future__ import annotations

import asyncio
import shlex
import sys
import time
from pathlib import Path

import pytest

from sim.agents.outside import handshake as handshake_module
from sim.agents.outside.errors import OutsideBadReply
from sim.agents.outside.handshake import HandshakeFailed, handshake
from sim.agents.outside.protocol import AgentReply, AgentRequest, HelloReply, openapi_document
from sim.agents.outside.replies import hello_from_bytes
from tests.sim.agents.test_outside_command import CLI, gone
from tests.support.outside_agents import agent_service
from tests.support.paths import REPO_ROOT
from tests.support.ports import free_port

MY_AGENT = REPO_ROOT / "examples" / "my_agent.py"


def test_the_hello_is_in_the_protocol_and_turn_requests_are_unchanged() -> None:
    document = openapi_document()
    assert {"AgentHello", "HelloReply"} <= set(document["components"]["schemas"])
    post = document["paths"]["/"]["post"]
    sent = post["requestBody"]["content"]["application/json"]["schema"]["oneOf"]
    assert {"$ref": "#/components/schemas/AgentHello"} in sent
    assert "kind" not in AgentRequest.model_fields  # a turn is what it was: agents written before the hello still parse

    assert hello_from_bytes(b'{"kind": "hello", "agent": "me"}', "x", False) == HelloReply(kind="hello", agent="me")
    assert hello_from_bytes(b'{"reply": "Hi."}', "x", False) == AgentReply(reply="Hi.")  # answered as a turn: fine
    assert hello_from_bytes(b"Hi.\n", "x", text_allowed=True) == AgentReply(reply="Hi.")  # a command's plain text


@pytest.mark.parametrize(
    ("raw", "text_allowed", "says"),
    [
        (b"<html>Welcome</html>", False, "reply is not JSON"),
        (b'{"kind": "hello", "protocol": "squall-agent/2"}', False, "not a squall-agent/1 hello answer"),
        (b'{"answer": "no reply field"}', False, "not a squall-agent/1 reply"),
        (b"", True, "empty reply"),
    ],
)
def test_an_answer_to_the_hello_that_is_not_the_protocol_is_refused(raw: bytes, text_allowed: bool, says: str) -> None:
    with pytest.raises(OutsideBadReply, match=says):
        hello_from_bytes(raw, "x", text_allowed)


async def test_a_service_that_answers_the_hello_passes() -> None:
    async with agent_service() as base:
        note = await asyncio.to_thread(handshake, "http", f"{base}/agent")
    assert note == f"preflight: {base}/agent answers the squall-agent/1 hello (agent 'reference')"


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("/fail", "HTTP 500 to the squall-agent/1 hello"),
        ("/nowhere", "HTTP 404 to the squall-agent/1 hello"),
        ("/text", "reply is not JSON"),
        ("/shape", "not a squall-agent/1 reply"),
    ],
)
async def test_a_service_that_answers_the_hello_wrongly_is_refused_saying_how(path: str, says: str) -> None:
    async with agent_service() as base:
        with pytest.raises(HandshakeFailed, match=says) as refused:
            await asyncio.to_thread(handshake, "http", f"{base}{path}")
    assert "does not answer" not in str(refused.value) and len(str(refused.value).splitlines()) == 1


def test_a_url_nothing_listens_at_is_unreachable_at_once() -> None:
    url = f"http://127.0.0.1:{free_port()}/agent"
    started = time.monotonic()
    with pytest.raises(HandshakeFailed, match=r"does not answer \(Connection refused\)"):
        handshake("http", url)
    assert time.monotonic() - started < 1.0


def command(*argv: str) -> str:
    return shlex.join([sys.executable, *argv])


def test_a_program_that_answers_the_hello_passes_with_json_or_plain_text() -> None:
    note = handshake("command", command(str(MY_AGENT), "--fast"))
    assert note is not None and note.endswith("answers the squall-agent/1 hello (agent 'my_agent.py')")
    assert handshake("command", "echo Hello") == "preflight: command echo Hello answers the squall-agent/1 hello"


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["-c", "import sys; sys.exit(1)"], "exited with status 1 on the squall-agent/1 hello"),
        ([str(CLI), "json"], "status 1 on the squall-agent/1 hello: KeyError: 'messages'"),  # a turn's fields
        (["no_such_agent.py"], "exited with status 2 on the squall-agent/1 hello: .*can't open file"),
        ([str(CLI), "garbage"], "not UTF-8"),
        ([str(CLI), "shape"], "not a squall-agent/1 reply"),
    ],
)
def test_a_program_that_fails_the_hello_is_refused_saying_how(argv: list[str], says: str) -> None:
    with pytest.raises(HandshakeFailed, match=says):
        handshake("command", command(*argv))


def test_a_program_that_does_not_answer_in_time_is_killed_with_its_children(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(handshake_module, "COMMAND_HELLO_TIMEOUT_S", 2.0)
    pids = tmp_path / "pids"
    with pytest.raises(HandshakeFailed, match="no answer to the squall-agent/1 hello within 2 s"):
        handshake("command", command(str(CLI), "hang", str(pids)))
    leader, child = map(int, pids.read_text().split())
    deadline = time.monotonic() + 10
    while not (gone(leader) and gone(child)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone(leader) and gone(child)


def test_a_python_agent_is_sent_no_hello() -> None:
    assert handshake("python", "tests.support.outside_callables:raises") is None
