"""squall command line: run and score, and the table of every other command (each in a module of its own).

Start-up is kept light: heavy modules (pydantic-ai, openai, torch) are imported by the code paths that
need them, inside the commands. Bad input of any kind — an option, a config file, a task file, a run
folder — prints one line naming where the problem is and exits 2, with nothing written.
"""

from __future__ import annotations

import asyncio
import functools
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
import typer.main
from typer._click import Command

from sim.cli.bench_commands import bench, mock_llm
from sim.cli.chat import chat_command
from sim.cli.common import MAX_ARGUMENT_CHARS, fail, make_console, terminate_as_interrupt, user_errors
from sim.cli.import_source import import_app
from sim.cli.judges import judges_app
from sim.cli.many_runs import export_command, leaderboard_command, runs_app
from sim.cli.personas import personas_app
from sim.cli.report import report as report_command
from sim.cli.run_help import RunCommand
from sim.cli.serve import serve_command
from sim.cli.settings import with_settings
from sim.cli.stressors import stressors_app
from sim.cli.sweep import run_sweep
from sim.cli.view import view as view_command
from sim.cli.worlds import worlds_app
from sim.config.run_config import RunConfig, default_run_id, option_of


def _config_only_help() -> str:
    """The epilog of ``squall run --help``: the settings a config file sets and no option does."""
    said = [f"{name}: {info.description}" for name, info in RunConfig.model_fields.items() if not option_of(name).cli]
    return "Config-file-only settings (no option): " + "; ".join(said).replace("[", "\\[")  # rich reads [x] as markup


app = typer.Typer(
    add_completion=False,
    no_args_is_help=False,
    pretty_exceptions_enable=False,
    help="Evaluate tool-calling agents under real API conditions.",
)
app.add_typer(worlds_app, name="worlds")
app.add_typer(stressors_app, name="stressors")
app.add_typer(personas_app, name="personas")
app.add_typer(judges_app, name="judges")
app.add_typer(import_app, name="import")
app.command("serve")(serve_command)
app.command("chat")(chat_command)
app.add_typer(runs_app, name="runs")
app.command("leaderboard")(leaderboard_command)
app.command("export")(export_command)


@app.command(epilog=_config_only_help(), cls=RunCommand)
@with_settings()
def run(
    settings: dict[str, Any],
    config: Annotated[Path | None, typer.Option("--config", "-c", help="TOML file with run settings.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Run episodes, judge them, store everything under OUT/RUN_ID and print the results table.

    Exit status: 0 done; 2 bad input or a failed preflight (nothing written); 3 every episode failed, or more than
    --max-failed of them (provider, user or harness faults), or an outside agent could not be reached; 4 a
    --fail-under threshold missed; 130 Ctrl-C, 143 SIGTERM (what finished is saved)."""
    from sim.cli.run_progress import RunProgress
    from sim.config.resolve import resolve_config

    console = make_console()
    progress = RunProgress(console, quiet)
    terminated: list[int] = []  # SIGTERM seen (the run then exits 143, not 130)
    resume_with = "--resume --run-id <id>"  # until the run is named
    try:
        cfg, quickstart = resolve_config(config, settings)
        if cfg.run_id is None and not cfg.resume:  # named now, so the start line and an interrupt can say it
            cfg = cfg.model_copy(update={"run_id": default_run_id(cfg.out)})
        resume_with = f"--resume --run-id {cfg.run_id}" + (f" --out {cfg.out}" if cfg.out != Path("runs") else "")
        if quickstart:
            console.print(
                f"No agent configured: quickstart suite ({', '.join(cfg.tasks)}) on the embedded SmolLM2-135M "
                "(llama.cpp, CPU). Its scores are low: a true measurement of a 135M model."
            )
        from sim.run.preflight import preflight

        for note in preflight(cfg):  # before the world loads and the run folder is made
            if not quiet:
                console.print(note, highlight=False, markup=False)
        from sim.run.event_loop import run as run_loop
        from sim.run.runner import execute

        if not quiet:
            progress.opening = f"run {cfg.run_id}: {cfg.out / str(cfg.run_id)}"
        with progress, terminate_as_interrupt() as terminated:
            store, summary = run_loop(execute(cfg, progress.on_start, progress.on_episode, progress.on_warning))
    except KeyboardInterrupt:
        make_console(stderr=True).print(
            f"interrupted: finished episodes are saved; continue with {resume_with}",
            highlight=False,
            markup=False,
        )
        raise typer.Exit(143 if terminated else 130) from None
    except user_errors() as exc:
        fail(str(exc))
    from sim.report.terminal import render  # imported once there is a summary: a failed preflight answers sooner

    render(summary, console)
    console.print(f"run directory: {store.root}")
    from sim.cli.exit_status import run_exit_status

    code, message = run_exit_status(summary, cfg.max_failed, cfg.fail_under, store.root.name)
    if message:
        make_console(stderr=True).print(message, highlight=False, soft_wrap=True, markup=False)
    if code:
        raise typer.Exit(code)


JUDGE_SETTINGS = ("arg_match", "embedding_threshold", "error_judge", "judge_model", "answer_judge", "answer_threshold")
"""The run settings ``squall score`` may change: how the stored episodes are judged."""


@app.command()
@with_settings(JUDGE_SETTINGS, note=" squall score: default, the run's own setting.")
def score(
    settings: dict[str, Any],
    run_dir: Annotated[Path, typer.Argument(help="A run directory (runs/<run-id>).")],
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="Complete an interrupted score set (the one these options name, else the newest incomplete one): "
            "judge only the episodes it lacks.",
        ),
    ] = False,
) -> None:
    """Re-judge stored episodes without calling the agent. Appends a new score set; never rewrites one."""
    from sim.run.rescore import rescore

    try:
        summary, note = asyncio.run(rescore(run_dir, settings, resume))
    except user_errors() as exc:
        fail(str(exc))
    from sim.report.terminal import render

    console = make_console()
    render(summary, console)
    console.print(note)


app.command("report")(report_command)
app.command("view")(view_command)
app.command("mock-llm")(mock_llm)
app.command("bench")(bench)


def _usage_errors() -> tuple[type[Exception], ...]:
    """Click's UsageError: newer typer vendors its own copy of click, older typer uses click itself."""
    import click

    found: list[type[Exception]] = [click.exceptions.UsageError]
    try:
        from typer._click.exceptions import UsageError
    except ImportError:
        pass
    else:
        found.append(UsageError)
    return tuple(found)


@functools.cache
def _command() -> Command:
    """The click command of ``app``, built once per process: typer builds it by reading every command's signature
    (a few tenths of a second), and a sweep (``run --agent A,B,C``) calls ``run_cli`` once per agent. Called
    directly rather than through ``app(...)``, which only adds typer's pretty tracebacks, disabled above."""
    return typer.main.get_command(app)


def run_cli(argv: list[str]) -> int:
    """Run the command line; returns the exit code. Usage errors (a bad option value, an unknown option)
    are one line too, like every other bad input."""
    try:
        _check_argument_lengths(argv)
        swept = run_sweep(argv, run_cli)  # run --agent A,B,C: one run per agent (sim/cli/sweep.py)
        if swept is not None:
            return swept
        code = _command().main(args=argv, prog_name="squall", standalone_mode=False)
    except _usage_errors() as exc:
        ctx = getattr(exc, "ctx", None)
        hint = f"{ctx.command_path}: " if ctx is not None else ""
        try:
            fail(hint + exc.format_message())  # type: ignore[attr-defined]
        except typer.Exit as exit_:
            return exit_.exit_code
    except typer.Abort:
        return 130
    except typer.Exit as exc:
        return exc.exit_code
    return code if isinstance(code, int) else 0


def _check_argument_lengths(argv: list[str]) -> None:
    """No option value is a document: a longer one is a mistake (a file pasted instead of its path), refused
    before any command reads it."""
    for position, argument in enumerate(argv, start=1):
        if len(argument) > MAX_ARGUMENT_CHARS:
            fail(
                f"argument {position} is {len(argument):,} characters long (at most {MAX_ARGUMENT_CHARS:,}); "
                f"put long text in a file and pass its path"
            )


def main() -> None:
    sys.exit(run_cli(sys.argv[1:]))
