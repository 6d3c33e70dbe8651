"""The fast HTTP front, the cached-tools body parser and first_tool's remembered call change nothing: the same bytes and
counters as aiohttp's app, ``json.loads`` and a runner without memory, request for request."""

from __future__ import annotations

import asyncio
import json
import random
import re
from typing import Any

import pytest

from sim.mockllm import FaultRule, FirstToolPolicy, MockConfig, RateLimit
from sim.mockllm.fast_http import parse_head
from sim.mockllm.policies import FirstToolRunner
from sim.mockllm.request_body import BodyParser
from sim.mockllm.server import CLIENT_MAX_SIZE, start_mock_server


def tool(name: str, i: int) -> dict[str, Any]:
    props = {
        f"p{k}": {"type": ["string", "integer", "boolean"][k % 3], "description": f"Arg {k} of {name}."}
        for k in range(i % 4)
    }
    parameters = {"type": "object", "properties": props, "required": sorted(props)[:1], "additionalProperties": False}
    return {
        "type": "function",
        "function": {"name": name, "description": f"Does {name} é ✓.", "parameters": parameters},
    }


TOOLS = [tool(f"tool_{i}", i) for i in range(12)]
OTHER_TOOLS = [tool(f"other_{i}", i + 1) for i in range(5)]


def conversation(turns: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You help."},
        {"role": "user", "content": f"Do {seed}"},
    ]
    for t in range(turns):
        call = {"id": f"call_{t + 1}", "type": "function", "function": {"name": "tool_0", "arguments": "{}"}}
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"call_{t + 1}", "content": f"result {rng.random()}"})
    return messages


def body_texts() -> list[str]:
    """Request bodies as clients write them, and as they must not be mistaken: each parsed twice (cold, then cached)."""
    out: list[str] = []
    for seed in range(6):
        base = {"model": "m", "messages": conversation(seed % 3, seed), "max_tokens": 64, "tools": TOOLS}
        out += [
            json.dumps(base, separators=(",", ":")),  # squall's client: compact, tools last
            json.dumps(base),  # json.dumps defaults
            json.dumps({"tools": TOOLS, **base, "tool_choice": "auto"}, ensure_ascii=False),  # tools first
            json.dumps({**base, "tools": OTHER_TOOLS}),
        ]
    tools = json.dumps(TOOLS)
    quoted = json.dumps(', "tools": ' + tools)  # the tool list's text inside a string
    head = '{"model": "m", "messages": [{"role": "user", "content": "hi"}]'
    out += [
        head + f', "tools": {tools}, "tools": []}}',  # a later duplicate wins
        head + f', "tools": [], "tools": {tools}}}',
        head + f', "tools": {tools}, "x": NaN}}',  # a real NaN elsewhere
        head + f', "tools": {tools}, "x": [Infinity, -Infinity]}}',
        head + f', "nested": {{"tools": {tools}}}}}',  # not the top-level tools
        head + f', "tools": {tools}, "nested": {{"tools": {tools}}}}}',
        head + f', "s": {quoted}, "tools": {tools}}}',
        head + f', "s": {quoted}}}',
        head + f', "tools": {tools} , "stream": true}}',
        head + f', "tools": {tools}',  # truncated
        head + f', "tools": {tools}}} trailing',
        head + f', "tools": {tools}, }}',
        f"[{tools}]",
        f'{{"tools": {tools}}}',
        f' \n{{"tools"  :\t{tools}  }}\n ',
        "",
        "nul",
    ]
    return out


def outcome(parse: Any, raw: bytes) -> str:
    try:
        return "ok " + json.dumps(parse(raw), sort_keys=True)  # NaN compares equal as text
    except ValueError as e:
        return f"{type(e).__name__}: {e}"


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16"])
def test_body_parser_is_json_loads(encoding: str) -> None:
    parser = BodyParser()
    for _ in range(2):
        for text in body_texts():
            raw = text.encode(encoding)
            assert outcome(parser.parse, raw) == outcome(json.loads, raw), text[:120]
    bad = b'{"messages": [], "tools": ' + json.dumps(TOOLS).encode() + b', "x": "\xff"}'
    assert outcome(parser.parse, bad) == outcome(json.loads, bad)


def test_body_parser_reuses_the_tool_list_and_forgets_old_ones() -> None:
    parser = BodyParser()
    first = parser.parse(json.dumps({"messages": [], "tools": TOOLS}).encode())
    second = parser.parse(json.dumps({"messages": [{"role": "user"}], "tools": TOOLS}).encode())
    assert second["tools"] is first["tools"]
    for i in range(70):
        parser.parse(json.dumps({"messages": [], "tools": [tool(f"t{i}", 3)] * 3}).encode())
    again = parser.parse(json.dumps({"messages": [], "tools": TOOLS}).encode())
    assert again["tools"] == TOOLS and again["tools"] is not first["tools"]


def test_first_tool_runner_remembers_only_the_same_list() -> None:
    weird = [{"type": "function", "function": {"name": "w", "parameters": {"enum": {"a": 1}}}}]  # raises KeyError
    lists = [TOOLS, OTHER_TOOLS, [], [{"type": "x"}], weird]
    runner = FirstToolRunner(FirstToolPolicy())
    for turns in range(3):
        for tools in [*lists, TOOLS, TOOLS, list(TOOLS), weird, TOOLS]:
            messages = conversation(turns, 0)[: 2 + turns]  # ends with the user or an assistant call, or a result
            for last in (messages, [*messages, {"role": "tool", "content": "r"}]):
                outcomes = []
                for answer in (runner, FirstToolRunner(FirstToolPolicy())):
                    try:
                        outcomes.append(repr(answer.respond(last, tools)))
                    except KeyError as e:
                        outcomes.append(f"KeyError {e}")
                assert outcomes[0] == outcomes[1]


def test_parse_head_takes_only_plain_chat_posts() -> None:
    plain = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 12"
    assert parse_head(plain, CLIENT_MAX_SIZE) == 12
    assert parse_head(plain.replace(b"/v1/chat", b"/chat"), CLIENT_MAX_SIZE) == 12
    assert parse_head(plain + b"\r\nConnection: keep-alive", CLIENT_MAX_SIZE) == 12
    handed_off = [
        plain.replace(b"POST", b"post"),
        plain.replace(b"HTTP/1.1", b"HTTP/1.0"),
        plain.replace(b"completions", b"completions?x=1"),
        plain.replace(b"Host: x\r\n", b""),
        plain.replace(b"Host: x", b"Host:"),
        plain + b"\r\nHost: y",
        plain + b"\r\nContent-Length: 12",
        plain.replace(b"12", b"+12"),
        plain.replace(b"12", b"1 2"),
        plain + b"\r\nTransfer-Encoding: chunked",
        plain + b"\r\nExpect: 100-continue",
        plain + b"\r\nConnection: close",
        plain + b"\r\nContent-Encoding: gzip",
        plain + b"\r\nX-Odd: caf\xc3\xa9",
        plain + b"\r\n folded",
        plain + b"\r\nBad Name: 1",
        plain + b"\r\nX: " + b"a" * 9000,
    ]
    for head in handed_off:
        assert parse_head(head, CLIENT_MAX_SIZE) is None, head
    assert parse_head(plain.replace(b"12", str(CLIENT_MAX_SIZE + 1).encode()), CLIENT_MAX_SIZE) is None


def post(body: str | bytes, extra: str = "", path: str = "/v1/chat/completions") -> bytes:
    data = body.encode() if isinstance(body, str) else body
    head = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n{extra}"
    return f"{head}Content-Length: {len(data)}\r\n\r\n".encode() + data


def chat(seed: int, turns: int, **extra: Any) -> str:
    return json.dumps({"model": "mock-model", "messages": conversation(turns, seed), "tools": TOOLS, **extra})


def script() -> list[list[bytes]]:
    """Connections, each a list of requests sent one after another; a list inside is sent in one write."""
    chats = [
        post(chat(s, s % 3), path=random.Random(s).choice(["/v1/chat/completions", "/chat/completions"]))
        for s in range(40)
    ]
    odd = [
        post("{not json"),
        post(chat(1, 0, stream=True)),
        post('{"messages": []}'),
        post('{"messages": [1]}'),
        post('{"messages": [{"role": "user", "content": "x"}], "tools": {}}'),
        post(b'{"messages": [{"role": "user", "content": "\xff"}]}'),
        post(chat(2, 1), "Connection: keep-alive\r\n"),
        b"GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n",
        b"HEAD /health HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n",
        b"DELETE /v1/chat/completions HTTP/1.1\r\nHost: x\r\n\r\n",
        post(chat(3, 2)),
    ]
    body = chat(4, 1).encode()
    chunked = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    chunked += f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n"
    return [
        chats[:20],
        [b"".join(chats[20:26])],  # pipelined: answered in order
        odd,
        [chats[26], chunked, chats[27]],  # handed to aiohttp mid-connection, which serves the rest
        [chats[28], post(chat(5, 0), "Connection: close\r\n")],
        [post(chat(6, 1))[:-10] + b"", b""],  # a body cut short: the server waits, then the client leaves
        chats[29:],
    ]


async def read_answer(reader: asyncio.StreamReader, head_only: bool) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    match = re.search(rb"\r\nContent-Length: (\d+)", head)
    size = int(match.group(1)) if match and not head_only else 0
    return head + await reader.readexactly(size)


async def replay(port: int) -> list[bytes]:
    answers: list[bytes] = []
    for requests in script():
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        for request in requests:
            if not request:
                break
            writer.write(request)
            for _ in range(request.count(b" HTTP/1.1\r\n")):
                try:
                    answers.append(await asyncio.wait_for(read_answer(reader, request.startswith(b"HEAD")), 0.5))
                except TimeoutError:
                    answers.append(b"(no answer)")
        writer.close()
        await asyncio.sleep(0.05)
    return answers


def normalised(answer: bytes) -> bytes:
    answer = re.sub(rb"\r\nDate: [^\r]*", b"\r\nDate: -", answer)
    return re.sub(rb'"created": \d+', b'"created": 0', answer)


async def compare_fronts() -> None:
    """The same requests to a server with the fast front and one without: the same answers and counters."""
    config = MockConfig(
        policy=FirstToolPolicy(),
        seed=7,
        jitter_s=0.002,
        rate_limit=RateLimit(rpm=30, tpm=20_000),
        faults=[
            FaultRule(kind="rate_limit", probability=0.08, retry_after_s=0.5),
            FaultRule(kind="server_error", probability=0.08, status=503),
            FaultRule(kind="timeout", probability=0.05, hang_s=0.01),
            FaultRule(kind="malformed", probability=0.05, variant="not_json"),
            FaultRule(kind="malformed", every=9, variant="missing_choices"),
            FaultRule(kind="malformed", at=[4], variant="invalid_json"),
        ],
    )
    seen: dict[bool, tuple[list[bytes], dict[str, Any]]] = {}
    for fast in (False, True):
        # A clock that stands still: the limiter's decisions and headers do not depend on how long the run takes.
        async with await start_mock_server(config, clock=lambda: 0.0, fast_http=fast) as srv:
            answers = await replay(srv.port)
            await asyncio.sleep(0.1)
            stats = srv.stats.model_dump(exclude={"uptime_s", "cpu_s"})
        seen[fast] = [normalised(a) for a in answers], stats
    (slow_answers, slow_stats), (fast_answers, fast_stats) = seen[False], seen[True]
    assert fast_stats == slow_stats
    assert slow_stats["cancelled"] == 1 and slow_stats["in_flight"] == 0
    assert {"timeout", "malformed", "rate_limit", "server_error"} <= set(slow_stats["faults"])
    assert "fault" in slow_stats["rate_limited_by"] and len(slow_stats["rate_limited_by"]) == 2  # and the limiter
    assert len(fast_answers) == len(slow_answers)
    for slow, fast_answer in zip(slow_answers, fast_answers, strict=True):
        assert fast_answer == slow


async def test_fast_front_answers_as_aiohttp_does() -> None:
    await compare_fronts()


def test_fast_front_answers_as_aiohttp_does_on_uvloop() -> None:
    # The CLI server runs on uvloop where it is installed: its transports must hand connections over alike.
    uvloop = pytest.importorskip("uvloop")
    uvloop.run(compare_fronts())
