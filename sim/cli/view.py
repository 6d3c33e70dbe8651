"""`squall view [RUNS...] [--port P | --out DIR]`: the viewer over a folder of runs, served on 127.0.0.1 or written
as static files."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer


def view(
    runs: Annotated[
        list[Path] | None,
        typer.Argument(help="Run folders, or folders of runs (default: runs).", show_default=False),
    ] = None,
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port on 127.0.0.1; 0 picks a free one.")] = 0,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Write the viewer as static files into this folder (open DIR/index.html)."),
    ] = None,
    max_episodes: Annotated[int, typer.Option(min=1, help="Episodes shown per run, at most (the worst first).")] = 1000,
) -> None:
    """Browse runs: the run list and leaderboard; per run, charts with intervals, search and filters, the task ×
    trial grid; per episode the prompt and tools, every model request with tokens and latency, the stressors that
    fired and the world state against the gold's; the tasks that flipped between two runs. Served, the page follows a
    run while it is written. Ctrl-C (or killing the printed PID) stops the server."""
    from sim.cli.common import fail, make_console, user_errors
    from sim.view.site import ViewSite, find_runs

    paths = runs or [Path("runs")]
    try:
        if not find_runs(paths):
            fail(f"no runs found in {', '.join(map(str, paths))} (a run folder holds manifest.json)")
    except user_errors() as exc:
        fail(str(exc))
    site = ViewSite(paths, max_episodes)
    console = make_console()
    if out is not None:
        from sim.view.static import write_static

        try:
            count = write_static(site, out)
        except user_errors() as exc:
            fail(str(exc))
        except OSError as exc:
            fail(f"{out}: cannot write the viewer: {exc.strerror or exc}")
        console.print(f"squall view: {count} documents written; open {out / 'index.html'}", highlight=False)
        return
    from sim.view.server import make_server

    try:
        server = make_server(site, port)
    except OSError as exc:
        fail(f"127.0.0.1:{port}: cannot listen: {exc.strerror or exc}")
    bound = server.server_address[1]
    console.print(f"squall view: http://127.0.0.1:{bound}/  (pid {os.getpid()}; Ctrl-C stops it)", highlight=False)
    try:
        server.serve_forever(poll_interval=0.5)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
