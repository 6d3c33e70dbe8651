"""``squall serve --mcp --world W [--stressors S] [--task ID] [--port P] [--port-file F] [--idle-timeout S]
[--stdio]``: one episode of a task served over MCP, for a person or an agent to explore the world by hand; saved and
judged as a one-episode run when it ends.

The episode is a normal run (preparation, stressors, store, judges) whose agent is the ``python:`` outside agent
``ServedEpisode.explore`` below: the scripted user opens with the task's first request, and each of the agent's turns
lasts until the person says so. While a turn lasts, the episode's tools are served at the printed streamable-HTTP URL
(127.0.0.1, ``--port`` or a free one) by the same MCP hub outside agents use: every call goes through the stressors
and is recorded. Controls, beside the MCP URL (plain HTTP POSTs, e.g. ``curl -X POST URL/end``):

- ``POST URL/turn`` (an optional JSON body ``{"reply": "..."}``: what the agent answers the user) ends the turn: the
  scripted user moves on to the task's next goal, printed with the same URL; after the last goal the episode ends;
- ``POST URL/end``, Ctrl-C or SIGTERM ends the episode: it is stored under ``OUT/RUN_ID`` and judged; so does
  ``--idle-timeout`` seconds without a request (HTTP only).

``--port-file`` gets the bound port once the server listens (written then renamed, never read half-written).

``--stdio`` serves the episode over the process's stdin/stdout instead (for a client that spawns ``squall serve``):
the whole connection is the first goal's turn, and the episode ends when the client closes it (or at Ctrl-C);
everything meant for a person goes to stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import time
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sim.core import AgentFactory
    from sim.mcp.hub import McpHub


EXPLORER = "sim.cli.serve_mcp:ServedEpisode.explore"
"""The episode's agent as its manifest names it: ``python:`` + this (bound to the served episode when it runs)."""


@dataclass
class ServedEpisode:
    """The one episode being served: what the person's controls and the explorer share."""

    stdio: bool
    port: int
    port_file: Path | None = None
    idle_timeout_s: float | None = None
    """Without a request to the hub for this long, the episode ends (HTTP only: a stdio client holds its pipe)."""
    idle: bool = False
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    turns: asyncio.Queue[str] = field(default_factory=asyncio.Queue)
    hub: Any = None
    url: str = ""

    def say(self, text: str) -> None:
        stream = sys.stderr if self.stdio else sys.stdout
        stream.write(text)
        stream.flush()

    async def explore(self, request: Any) -> dict[str, Any]:
        """The episode's agent: says where the tools are, waits for the person."""
        self.url = request.mcp_url
        self.hub.last_request = time.monotonic()  # idle counts from when the person is told where to go
        said = "\n".join(f"  {m.role}: {m.content}" for m in request.messages)
        self.say(
            f"squall serve: episode {request.episode_id} (task {request.task_id}, turn {request.turn}) at "
            f"{request.mcp_url}\nthe conversation so far:\n{said}\n(at most {request.max_steps} tool calls this turn; "
            + (
                "the episode ends when the client closes stdin)\n"
                if self.stdio
                else f"POST {request.mcp_url}/turn ends the turn, POST {request.mcp_url}/end or Ctrl-C ends the "
                "episode)\n"
            )
        )
        if self.stdio:
            from sim.mcp.stdio import serve_episode_stdio

            episode = self.hub.episode_at(request.mcp_url)
            serving = asyncio.ensure_future(serve_episode_stdio(episode, request.instructions))
            ended = asyncio.ensure_future(self.ended.wait())
            await asyncio.wait({serving, ended}, return_when=asyncio.FIRST_COMPLETED)
            for task in (serving, ended):
                task.cancel()
            return {"reply": "", "end": True}
        turn = asyncio.ensure_future(self.turns.get())
        ended = asyncio.ensure_future(self.ended.wait())
        await asyncio.wait({turn, ended}, return_when=asyncio.FIRST_COMPLETED)
        ended.cancel()
        if not turn.done():
            turn.cancel()
            return {"reply": "", "end": True}
        return {"reply": turn.result()}

    @asynccontextmanager
    async def open_hub(self) -> AsyncIterator[McpHub]:
        """The MCP hub on the chosen port, with the person's controls beside it."""
        from sim.mcp.hub import open_mcp_hub

        async with open_mcp_hub(port=self.port, routes=_controls(self)) as opened:
            self.hub = opened
            if self.port_file is not None:
                _write_port_file(self.port_file, int(opened.base_url.rsplit(":", 1)[1]))
            watch = None if self.stdio or not self.idle_timeout_s else asyncio.ensure_future(self._end_when_idle())
            try:
                yield opened
            finally:
                if watch is not None:
                    watch.cancel()

    async def _end_when_idle(self) -> None:
        assert self.idle_timeout_s is not None
        while True:  # sleep until the deadline the latest request set, then look again
            left = self.idle_timeout_s - (time.monotonic() - self.hub.last_request)
            if left <= 0:
                break
            await asyncio.sleep(left + 0.01)
        self.idle = True
        self.ended.set()

    def open_agent(self, _gateway: object) -> AbstractAsyncContextManager[AgentFactory]:
        from sim.agents.outside.agent import open_outside_factory

        return open_outside_factory("python", EXPLORER, open_hub=self.open_hub, function=self.explore)


def _write_port_file(path: Path, port: int) -> None:
    tmp = path.with_name(path.name + ".tmp")  # write then rename: a poller never reads half a number
    tmp.write_text(f"{port}\n")
    os.replace(tmp, path)


def _controls(session: ServedEpisode) -> list[Any]:
    """``POST <episode URL>/turn`` and ``/end``: only the episode's own URL (its token) is obeyed."""
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    def ours(request: Request) -> bool:
        return bool(session.url) and session.url.endswith(f"/mcp/{request.path_params['token']}")

    async def turn(request: Request) -> JSONResponse:
        if not ours(request):
            return JSONResponse({"error": "no such episode"}, status_code=404)
        body = await request.body()
        try:
            reply = json.loads(body).get("reply", "") if body.strip() else ""
        except (ValueError, AttributeError):
            return JSONResponse({"error": 'the body must be JSON: {"reply": "..."}'}, status_code=400)
        session.turns.put_nowait(str(reply))
        return JSONResponse({"ok": True, "ended": "turn"})

    async def end(request: Request) -> JSONResponse:
        if not ours(request):
            return JSONResponse({"error": "no such episode"}, status_code=404)
        session.ended.set()
        return JSONResponse({"ok": True, "ended": "episode"})

    return [
        Route("/mcp/{token}/turn", turn, methods=["POST"]),
        Route("/mcp/{token}/end", end, methods=["POST"]),
    ]


async def serve_episode(config: Any, session: ServedEpisode) -> tuple[Path, Any]:
    """Play the one episode with ``session.explore`` as its agent until it ends; the run folder and summary."""
    from sim.run.runner import open_run

    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, session.ended.set)
    try:
        async with open_run(config, agent=session.open_agent) as run:
            store, summary = await run.play()
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(signum)
    return store.root, summary


def serve_mcp(
    world: str,
    stressors: str | None,
    task: str | None,
    out: Path | None,
    run_id: str | None,
    seed: int | None,
    max_steps: int,
    timeout_s: float,
    port: int = 0,
    stdio: bool = False,
    port_file: Path | None = None,
    idle_timeout_s: float | None = None,
) -> None:
    from sim.cli.common import fail, make_console, user_errors
    from sim.config.resolve import resolve_config
    from sim.report.terminal import render
    from worlds.stressors.catalog import split_items

    overrides: dict[str, Any] = {
        "world": world,
        "agent": f"python:{EXPLORER}",
        "stressors": split_items(stressors) if stressors is not None else None,
        "out": out,
        "run_id": run_id,
        "seed": seed,
        "max_steps": max_steps,
        "episode_timeout_s": timeout_s,
        "user": "scripted",
        "trials": 1,
        "concurrency": 1,
        "tasks": [task] if task else None,
        "limit": None if task else 1,
    }
    try:
        cfg, _ = resolve_config(None, overrides)
        session = ServedEpisode(stdio=stdio, port=port, port_file=port_file, idle_timeout_s=idle_timeout_s)
        root, summary = asyncio.run(serve_episode(cfg, session))
    except user_errors() as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}")
    if session.idle:
        sys.stderr.write(f"squall serve: stopped (idle: no request for {idle_timeout_s:g} s)\n")
    console = make_console(stderr=True)
    render(summary, console)
    console.print(f"saved: {root} (re-judge with: squall score {root})")
