"""`squall mock-llm` (the scripted OpenAI-compatible endpoint) and `squall bench` (the harness measured against it)."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Literal, cast

import typer

from sim.cli.common import fail, user_errors


def mock_llm(
    config: Annotated[Path | None, typer.Option("--config", "-c", help="Mock config (JSON or TOML).")] = None,
    host: Annotated[str, typer.Option(help="Bind address.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port (0: any free port).")] = 8765,
    port_file: Annotated[Path | None, typer.Option(help="Write the bound port here once listening.")] = None,
    max_lifetime: Annotated[float | None, typer.Option(min=0, help="Exit after this many seconds.")] = None,
) -> None:
    """Serve the mock OpenAI-compatible endpoint (scripted policies, latency, 429s, 5xx, hangs, bad bodies)."""
    from sim.mockllm.config import MockConfig, load_mock_config
    from sim.mockllm.server import run_server

    try:
        cfg = load_mock_config(config) if config else MockConfig.model_validate({"policy": {"kind": "echo"}})
    except user_errors() as exc:
        fail(str(exc))
    if port_file is not None and not port_file.parent.is_dir():
        fail(f"--port-file: folder {port_file.parent} does not exist")
    try:
        run_server(cfg, host=host, port=port, port_file=port_file, max_lifetime_s=max_lifetime)
    except OSError as exc:  # address in use, unknown host, no permission: the bind failed, nothing was served
        fail(f"--host {host} --port {port}: cannot listen: {exc.strerror or exc}")
    except KeyboardInterrupt:
        raise typer.Exit(130) from None


def bench(
    episodes: Annotated[int, typer.Option(min=1, help="Episodes per arm.")] = 1000,
    concurrency: Annotated[int, typer.Option(min=1, help="Episodes in flight.")] = 100,
    latency: Annotated[float, typer.Option(min=0.001, help="Mock latency per model call, seconds.")] = 0.5,
    jitter: Annotated[float, typer.Option(min=0, help="Extra uniform mock latency in [0, JITTER] seconds.")] = 0.0,
    tpm: Annotated[int | None, typer.Option(min=1, help="Mock tokens-per-minute limit.")] = None,
    rpm: Annotated[int | None, typer.Option(min=1, help="Mock requests-per-minute limit.")] = None,
    faults: Annotated[str, typer.Option(help="none | mix (5% 429, 5% 5xx, 2% hangs, 2% bad bodies)")] = "none",
    request_timeout: Annotated[float, typer.Option(min=0.1, help="HTTP timeout per request, seconds.")] = 30.0,
    arms: Annotated[
        str,
        typer.Option(
            help="Comma-separated: squall, bare (plain aiohttp, the same conversations: the floor squall's CPU per "
            "request is divided by), static, mcp (one tool call in-process vs over MCP)"
        ),
    ] = "squall,bare,static,mcp",
    workers: Annotated[
        int, typer.Option(min=1, help="squall arm's worker processes; above 1, also 1 vs N side by side.")
    ] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print the results as JSON.")] = False,
    limiter: Annotated[str, typer.Option(help="How the mock enforces --tpm/--rpm: token_bucket | sliding_window")] = (
        "token_bucket"
    ),
    suite: Annotated[
        bool, typer.Option("--suite", help="Every docs/scale.md workload, squall vs static (other options ignored).")
    ] = False,
    duration: Annotated[
        float | None,
        typer.Option(
            min=1,
            help="Soak: keep --concurrency episodes in flight this many seconds (squall arm, --workers processes), "
            "print RSS every --rss-every seconds and a verdict (steady ratio, RSS flat or growing). --episodes, "
            "--arms and the limits are ignored.",
        ),
    ] = None,
    rss_every: Annotated[float, typer.Option(min=0.05, help="Soak: seconds between samples.")] = 5.0,
    warmup: Annotated[
        float | None,
        typer.Option(
            min=0,
            help="Soak: seconds left out of the verdict (default: the later of 20% of --duration "
            "and the --concurrency-th stored episode).",
        ),
    ] = None,
    series: Annotated[Path | None, typer.Option(help="Soak: write the samples here, one JSON object a line.")] = None,
) -> None:
    """Measure the harness against a mock endpoint: achieved vs Little's-law bound, 429s, CPU per request, RSS,
    for squall's scheduler, a bare aiohttp client (the floor: squall's CPU per request is printed as a ratio to it)
    and a static fixed-concurrency runner with blind backoff, side by side; and (mcp) one
    tool call in-process against the same call over MCP, as an outside agent makes it."""
    from sim.bench.command import BenchSettings, render, run_bench

    if duration is not None:
        _soak(concurrency, latency, jitter, duration, rss_every, workers, request_timeout, warmup, series, as_json)
        return
    if suite:
        from sim.bench.suite import render_suite, run_suite

        result = run_suite()
        sys.stdout.write(json.dumps(result, indent=2) + "\n" if as_json else render_suite(result))
        return
    if limiter not in ("token_bucket", "sliding_window"):
        fail(f"--limiter: {limiter!r}: use token_bucket or sliding_window")
    chosen = tuple(a.strip() for a in arms.split(",") if a.strip())
    if not chosen or any(a not in ("squall", "bare", "static", "mcp") for a in chosen):
        fail(f"--arms: {arms!r}: use one or more of squall, bare, static, mcp")
    if faults not in ("none", "mix"):
        fail(f"--faults: {faults!r}: use none or mix")
    mode: Literal["none", "mix"] = "mix" if faults == "mix" else "none"
    picked = cast(tuple[Literal["squall", "bare", "static", "mcp"], ...], chosen)
    settings = BenchSettings(
        episodes, concurrency, latency, jitter, tpm, rpm, mode, request_timeout, picked, workers=workers
    )
    settings = replace(settings, limiter=cast(Literal["token_bucket", "sliding_window"], limiter))
    report = run_bench(settings)
    if as_json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
    else:
        sys.stdout.write(render(report))


def _soak(
    concurrency: int, latency: float, jitter: float, duration: float, every: float, workers: int,
    request_timeout: float, warmup: float | None, series: Path | None, as_json: bool,
) -> None:  # fmt: skip
    """`squall bench --duration`: the samples as they come (stderr with --json, else stdout), then the verdict."""
    from sim.bench.soak import SoakSettings, render_verdict, run_soak

    if series is not None and not series.parent.is_dir():
        fail(f"--series: folder {series.parent} does not exist")
    settings = SoakSettings(concurrency, latency, jitter, duration, every, workers, request_timeout, warmup)
    stream = sys.stderr if as_json else sys.stdout

    def echo(line: str) -> None:
        stream.write(line + "\n")
        stream.flush()

    report = run_soak(settings, echo, series)
    sys.stdout.write(json.dumps(report, indent=2) + "\n" if as_json else render_verdict(report))
