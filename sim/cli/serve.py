"""`squall serve --world SPEC [--port 0] [--port-file F] [--idle-timeout S]`: a SQL world over HTTP (REST).

Binds 127.0.0.1 only. Prints the URL once listening (and writes the port to ``--port-file``); stops by itself on
SIGTERM/SIGINT, after ``--idle-timeout`` seconds without a request, or when the process that started it exits.
Agents reach it with ``squall run --world http://127.0.0.1:PORT``. The gold (``/tasks``) is served only with the
token this command leaves in a file of the user's own (``worlds.sql.serve.rest_token``), where that harness finds it.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated, NoReturn

import typer


def serve_command(
    world: Annotated[
        str, typer.Option("--world", help="A SQL world (sql_sample, or a folder from `squall import`); any with --mcp.")
    ],
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Port on 127.0.0.1 (0: a free one, printed); --mcp too.")
    ] = 0,
    port_file: Annotated[
        Path | None, typer.Option("--port-file", help="Write the bound port here once listening.")
    ] = None,
    idle_timeout: Annotated[
        float,
        typer.Option(
            "--idle-timeout",
            min=0.0,
            help="Stop after this many seconds without a request (0: never); --mcp: ends the episode (not --stdio).",
        ),
    ] = 900.0,
    mcp: Annotated[
        bool, typer.Option("--mcp", help="Serve one episode of a task over MCP instead; saved and judged at Ctrl-C.")
    ] = False,
    stressors: Annotated[str | None, typer.Option(help="--mcp: comma-separated stressors, as for squall run.")] = None,
    task: Annotated[str | None, typer.Option("--task", help="--mcp: the task to play (default: the first).")] = None,
    out: Annotated[Path | None, typer.Option(help="--mcp: folder for run directories (default runs/).")] = None,
    run_id: Annotated[str | None, typer.Option("--run-id", help="--mcp: run directory name.")] = None,
    seed: Annotated[int | None, typer.Option(help="--mcp: root seed (world, stressors).")] = None,
    max_steps: Annotated[int, typer.Option("--max-steps", min=1, help="--mcp: tool calls allowed.")] = 1000,
    episode_timeout: Annotated[
        float, typer.Option("--episode-timeout", min=1.0, help="--mcp: the episode's time budget, seconds.")
    ] = 86_400.0,
    stdio: Annotated[
        bool,
        typer.Option("--stdio", help="--mcp: serve the episode over stdin/stdout; it ends when the client closes."),
    ] = False,
) -> None:
    """Serve a SQL world's functions as GET endpoints with an OpenAPI document at /openapi.json; with --mcp, one
    episode of any world's task over MCP (streamable HTTP on 127.0.0.1, the URL printed), to explore by hand."""
    if mcp:
        from sim.cli.serve_mcp import serve_mcp

        if stdio and port_file is not None:
            fail("--port-file names the HTTP port: --stdio serves none")
        args = (world, stressors, task, out, run_id, seed, max_steps, episode_timeout, port, stdio)
        serve_mcp(*args, port_file=port_file, idle_timeout_s=idle_timeout or None)
        return
    if stdio:
        fail("--stdio serves an episode over MCP: use it with --mcp")
    from worlds.registry import WorldLoadError, load_world
    from worlds.sql.engine.world import SqlPack
    from worlds.sql.serve.rest import RestServer, serve_until_stopped
    from worlds.sql.serve.rest_token import TokenFileError

    try:
        pack = load_world(world)
    except WorldLoadError as error:
        fail(str(error))
    if not isinstance(pack, SqlPack):
        fail(f"{world}: `squall serve` serves SQL worlds (sql_sample, or a folder from `squall import`)")

    def ready(server: RestServer) -> None:
        sys.stdout.write(f"squall serve: {pack.name} at {server.url} (OpenAPI: {server.url}/openapi.json)\n")
        sys.stdout.flush()

    try:
        reason = asyncio.run(serve_until_stopped(pack, port, port_file, idle_timeout or None, on_ready=ready))
    except TokenFileError as error:
        fail(str(error))
    except OSError as error:
        fail(f"cannot listen on 127.0.0.1:{port}: {error.strerror or error}")
    sys.stderr.write(f"squall serve: stopped ({reason})\n")


def fail(message: str) -> NoReturn:
    sys.stderr.write(f"squall serve: {message}\n")
    raise typer.Exit(2)
