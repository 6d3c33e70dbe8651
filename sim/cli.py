"""squall command line: run, score, report, mock-llm."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from sim.core import EpisodeResult, Score

app = typer.Typer(
    add_completion=False, no_args_is_help=False, help="Evaluate tool-calling agents under real API conditions."
)
err = Console(stderr=True)


def _fail(message: str, code: int = 2) -> None:
    err.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def _user_errors() -> tuple[type[Exception], ...]:
    """Errors that mean bad input (config, task files, run dirs): a message and exit 2, no traceback."""
    from sim.config import ConfigError
    from sim.mockllm.config import MockConfigError
    from sim.store import StoreError
    from worlds.registry import WorldLoadError
    from worlds.task_files import TaskFileError

    return (ConfigError, StoreError, WorldLoadError, TaskFileError, MockConfigError)


@app.command()
def run(
    config: Annotated[Path | None, typer.Option("--config", "-c", help="TOML file with run settings.")] = None,
    world: Annotated[str | None, typer.Option(help="World name, task file or world directory.")] = None,
    agent: Annotated[
        str | None, typer.Option(help="oracle | null | MODEL | text:MODEL | native:MODEL | text:local")
    ] = None,
    user: Annotated[str | None, typer.Option(help="scripted | scripted:coreferential")] = None,
    stressors: Annotated[str | None, typer.Option(help="Comma-separated stressor names, e.g. outage.")] = None,
    task: Annotated[list[str] | None, typer.Option("--task", help="Only this task id (repeatable).")] = None,
    limit: Annotated[int | None, typer.Option(help="Only the first N tasks.")] = None,
    trials: Annotated[int | None, typer.Option(help="Episodes per task.")] = None,
    seed: Annotated[int | None, typer.Option(help="Root seed.")] = None,
    concurrency: Annotated[int | None, typer.Option(help="Episodes in flight.")] = None,
    out: Annotated[Path | None, typer.Option(help="Folder for run directories (default runs/).")] = None,
    run_id: Annotated[str | None, typer.Option("--run-id", help="Run directory name (default: timestamp).")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue --run-id, skipping finished episodes.")] = False,
    max_steps: Annotated[int | None, typer.Option(help="Model requests / tool calls per turn.")] = None,
    max_turns: Annotated[int | None, typer.Option(help="User turns per episode.")] = None,
    episode_timeout_s: Annotated[float | None, typer.Option("--episode-timeout", help="Seconds per episode.")] = None,
    arg_match: Annotated[str | None, typer.Option(help="exact | embedding")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Run episodes, judge them, store everything under OUT/RUN_ID and print the results table."""
    from sim.config import resolve_config
    from sim.report import render
    from sim.runner import execute

    overrides: dict[str, Any] = {
        "world": world,
        "agent": agent,
        "user": user,
        "limit": limit,
        "trials": trials,
        "seed": seed,
        "concurrency": concurrency,
        "out": out,
        "run_id": run_id,
        "max_steps": max_steps,
        "max_turns": max_turns,
        "episode_timeout_s": episode_timeout_s,
        "arg_match": arg_match,
        "tasks": task or None,
        "stressors": [s.strip() for s in stressors.split(",") if s.strip()] if stressors is not None else None,
        "resume": True if resume else None,
    }
    console = Console()
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[last]}"),
        console=console,
        disable=quiet,
    )
    bar: list[Any] = []

    def on_start(planned: int, done: int) -> None:
        bar.append(progress.add_task("episodes", total=planned, completed=done, last=""))

    def on_episode(result: EpisodeResult, scores: list[Score]) -> None:
        acc = next((s.value for s in scores if s.judge == "core_api_accuracy"), None)
        shown = "failed" if acc is None else f"{acc:.2f}"
        progress.update(bar[0], advance=1, last=f"{result.episode_id}: {shown} ({result.termination})")

    try:
        cfg, quickstart = resolve_config(config, overrides)
        if quickstart:
            console.print(
                f"No agent configured: quickstart suite ({', '.join(cfg.tasks)}) on the embedded SmolLM2-135M "
                "(llama.cpp, CPU). Its scores are low: a true measurement of a 135M model."
            )
        if cfg.resume and cfg.run_id is None:
            _fail("--resume needs --run-id (the run directory name to continue)")
        with progress:
            store, summary = asyncio.run(execute(cfg, on_start, on_episode))
    except KeyboardInterrupt:
        err.print("interrupted: finished episodes are saved; continue with --resume --run-id <id>")
        raise typer.Exit(130) from None
    except _user_errors() as exc:
        _fail(str(exc))
    render(summary, console)
    console.print(f"run directory: {store.root}")


@app.command()
def score(
    run_dir: Annotated[Path, typer.Argument(help="A run directory (runs/<run-id>).")],
    arg_match: Annotated[str | None, typer.Option(help="exact | embedding (default: the run's setting)")] = None,
) -> None:
    """Re-judge stored episodes without calling the agent; rewrites scores.jsonl and summary.json."""
    from judges.metrics import summarize
    from sim.config import RunConfig
    from sim.report import render
    from sim.runner import build_judges, judge
    from sim.store import RunStore

    async def rejudge() -> dict[str, Any]:
        store = RunStore.open_existing(run_dir)
        manifest = store.manifest()
        cfg = RunConfig.model_validate({**manifest["config"], **({"arg_match": arg_match} if arg_match else {})})
        judges = build_judges(cfg)
        episodes = store.episodes()
        scores = [s for r in episodes for s in await judge(r, judges)]
        store.rewrite_scores(scores)
        summary = {"run_id": store.root.name, **summarize(episodes, scores, manifest.get("planned_episodes"))}
        store.write_summary(summary)
        return summary

    try:
        summary = asyncio.run(rejudge())
    except _user_errors() as exc:
        _fail(str(exc))
    render(summary, Console())


@app.command()
def report(
    run_dir: Annotated[Path, typer.Argument(help="A run directory (runs/<run-id>).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Print a run's results table (recomputed from the stored scores)."""
    from judges.metrics import summarize
    from sim.report import render
    from sim.store import RunStore

    try:
        store = RunStore.open_existing(run_dir)
        summary = {
            "run_id": store.root.name,
            **summarize(store.episodes(), store.scores(), store.manifest().get("planned_episodes")),
        }
    except _user_errors() as exc:
        _fail(str(exc))
    if as_json:
        sys.stdout.write(json.dumps(summary, indent=2) + "\n")
    else:
        render(summary, Console())


@app.command("mock-llm")
def mock_llm(
    config: Annotated[Path | None, typer.Option("--config", "-c", help="Mock config (JSON or TOML).")] = None,
    host: Annotated[str, typer.Option(help="Bind address.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (0: any free port).")] = 8765,
    port_file: Annotated[Path | None, typer.Option(help="Write the bound port here once listening.")] = None,
    max_lifetime: Annotated[float | None, typer.Option(help="Exit after this many seconds.")] = None,
) -> None:
    """Serve the mock OpenAI-compatible endpoint (scripted policies, latency, 429s, 5xx, hangs, bad bodies)."""
    from sim.mockllm.config import MockConfig, load_mock_config
    from sim.mockllm.server import run_server

    try:
        cfg = load_mock_config(config) if config else MockConfig.model_validate({"policy": {"kind": "echo"}})
    except _user_errors() as exc:
        _fail(str(exc))
    run_server(cfg, host=host, port=port, port_file=port_file, max_lifetime_s=max_lifetime)


def main() -> None:
    app()
