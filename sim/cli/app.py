"""squall command line: run and score, and the table of every other command (each in a module of its own).

Start-up is kept light: heavy modules (pydantic-ai, openai, torch) are imported by the code paths that
need them, inside the commands. Bad input of any kind — an option, a config file, a task file, a run
folder — prints one line naming where the problem is and exits 2, with nothing written.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sim.cli.bench_commands import bench, mock_llm
from sim.cli.chat import chat_command
from sim.cli.common import (
    MAX_ARGUMENT_CHARS,
    AnswerJudgeOption,
    AnswerThresholdOption,
    ErrorJudgeOption,
    JudgeModelOption,
    fail,
    make_console,
    param_modes,
    terminate_as_interrupt,
    user_errors,
)
from sim.cli.import_source import import_app
from sim.cli.judges import judges_app
from sim.cli.many_runs import export_command, leaderboard_command, runs_app
from sim.cli.personas import personas_app
from sim.cli.report import report as report_command
from sim.cli.run_help import RunCommand
from sim.cli.run_options import endpoint_options, text_or_file, thresholds
from sim.cli.serve import serve_command
from sim.cli.stressors import stressors_app
from sim.cli.sweep import run_sweep
from sim.cli.view import view as view_command
from sim.cli.worlds import worlds_app

if TYPE_CHECKING:
    from sim.run.executors import EpisodeDone

CONFIG_ONLY_HELP = (  # "\[" : rich would read "[retry]" as markup and print nothing
    "Config-file-only settings (no option): the retry policy, in a \\[retry] table "
    "(max_attempts, base_delay_s, max_delay_s, max_retry_after_s, rate_limit_budget_s, max_malformed)."
)

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


@app.command(epilog=CONFIG_ONLY_HELP, cls=RunCommand)
def run(
    config: Annotated[Path | None, typer.Option("--config", "-c", help="TOML file with run settings.")] = None,
    world: Annotated[str | None, typer.Option(help="World name, task file or world directory.")] = None,
    agent: Annotated[
        str | None,
        typer.Option(
            help="oracle | null | naive | MODEL | text:MODEL | native:MODEL | text:local | direct:MODEL (the whole "
            "call sequence in one reply; direct:oracle, direct:null calibrate it) | an agent outside squall, over the "
            "squall-agent/1 protocol with its tools over MCP: http:URL | python:module:function | command:'PROG ARGS'. "
            "A,B,C: a sweep, one run per agent (OUT/RUN_ID-AGENT) over the same plan and seeds, then a leaderboard"
        ),
    ] = None,
    text_protocol: Annotated[
        str | None, typer.Option(help="text: agents' prompt: react | tags (<API_CALL> JSON, <End of Turn>)")
    ] = None,
    user: Annotated[
        str | None,
        typer.Option(
            help="KIND[:STYLE+...][@PERSONA], comma-separated for several: scripted | llm; styles explicit, "
            "coreferential, paraphrased, terse, verbose, underspecified, impatient, changes_mind (squall personas)"
        ),
    ] = None,
    user_model: Annotated[str | None, typer.Option(help="Model an llm user runs on (default: local).")] = None,
    stressors: Annotated[
        str | None,
        typer.Option(
            help="Comma-separated: scenario names or groups, each optionally NAME:key=value (more pairs follow after "
            "commas), e.g. 'adhoc,failure:rate=0.1,transient=1'. Groups: a type (adhoc, failure, outage, missing...) "
            "holds its rows, spec/exec/user a level's, all every row; no group holds outage.impossible or "
            "missing.removed (they make a goal impossible on every task they touch: name them, with rate=SHARE of "
            "tasks), so outage is outage.backup and missing is missing.until_later. squall stressors list shows "
            "every group's rows."
        ),
    ] = None,
    stressor_mode: Annotated[
        str | None,
        typer.Option(help="cumulative (stressors stacked) | isolated (each scenario alone vs its baseline)"),
    ] = None,
    task: Annotated[list[str] | None, typer.Option("--task", help="Only this task id (repeatable).")] = None,
    limit: Annotated[int | None, typer.Option(help="Only the first N tasks.")] = None,
    trials: Annotated[int | None, typer.Option(help="Episodes per task.")] = None,
    seed: Annotated[int | None, typer.Option(help="Root seed.")] = None,
    concurrency: Annotated[int | None, typer.Option(help="Episodes in flight.")] = None,
    endpoint_concurrency: Annotated[
        int | None, typer.Option(help="Requests in flight per LLM endpoint (default: --concurrency).")
    ] = None,
    tpm: Annotated[int | None, typer.Option(help="Tokens per minute per endpoint (default: from headers).")] = None,
    rpm: Annotated[int | None, typer.Option(help="Requests per minute per endpoint (default: from headers).")] = None,
    max_cost: Annotated[float | None, typer.Option(help="USD; once spent, no new episode starts.")] = None,
    out: Annotated[Path | None, typer.Option(help="Folder for run directories (default runs/).")] = None,
    run_id: Annotated[
        str | None, typer.Option("--run-id", help="Run directory name, not a path (default: a timestamp).")
    ] = None,
    label: Annotated[
        str | None,
        typer.Option(help="Short name of the run in reports and compare columns (default: agent+stressors)."),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="Continue --run-id: judge what was stored unjudged, play what is missing and every episode that "
            "ended in a provider fault (the agent's endpoint address may change).",
        ),
    ] = False,
    max_steps: Annotated[int | None, typer.Option(help="Model requests / tool calls per turn.")] = None,
    max_turns: Annotated[int | None, typer.Option(help="User turns per episode.")] = None,
    episode_timeout_s: Annotated[
        float | None, typer.Option("--episode-timeout", help="Working-time seconds per episode.")
    ] = None,
    request_timeout_s: Annotated[
        float | None, typer.Option("--request-timeout", help="HTTP timeout per LLM request, seconds.")
    ] = None,
    max_tokens: Annotated[int | None, typer.Option(help="Completion cap per model request.")] = None,
    temperature: Annotated[float | None, typer.Option(help="Sampling temperature.")] = None,
    setup: Annotated[
        str | None, typer.Option(help="cumulative (the agent's own history) | isolated (gold history per turn)")
    ] = None,
    arg_match: Annotated[str | None, typer.Option(help="exact | normalised | embedding | llm")] = None,
    arg_match_param: Annotated[
        list[str] | None,
        typer.Option("--arg-match-param", help="TOOL.PARAM=MODE (or *.PARAM, TOOL.*): a parameter's own mode."),
    ] = None,
    error_judge: ErrorJudgeOption = None,
    judge_model: JudgeModelOption = None,
    answer_judge: AnswerJudgeOption = None,
    answer_threshold: AnswerThresholdOption = None,
    embedding_threshold: Annotated[
        float | None, typer.Option(help="Cosine threshold for --arg-match embedding.")
    ] = None,
    scheduler: Annotated[str | None, typer.Option(help="adaptive | static (the peer way, for comparison)")] = None,
    cache: Annotated[str | None, typer.Option(help="Response cache: off | read-write | read-only")] = None,
    cache_dir: Annotated[Path | None, typer.Option(help="Response cache folder (default .cache/responses).")] = None,
    backend: Annotated[
        str | None, typer.Option(help="inprocess | ray (episodes on Ray actors; needs the ray extra)")
    ] = None,
    ray_address: Annotated[
        str | None, typer.Option(help="--backend ray: existing cluster's address (default: a local one on 127.0.0.1).")
    ] = None,
    ray_workers: Annotated[
        int | None, typer.Option(help="--backend ray: worker actors (default: the cluster's CPUs).")
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(help="Local worker processes (default: 1 below 200 in flight, else the cores)."),
    ] = None,
    endpoint: Annotated[
        list[str] | None,
        typer.Option(
            "--endpoint",
            help="NAME=BASE_URL or NAME.KEY=VALUE (repeatable): an \\[endpoints.NAME] table's setting, KEY one of "
            "base_url, api_key_env, headers.HEADER, input_price, output_price (USD per million tokens), sampling "
            "(standard | reasoning | none); a model names it as openai-chat:MODEL@NAME.",
        ),
    ] = None,
    system_prompt: Annotated[
        str | None,
        typer.Option(help="TEXT or @FILE: put before the world's instructions in the agent's system prompt."),
    ] = None,
    tool_descriptions: Annotated[
        int | None,
        typer.Option(help="Cut each tool description the agent sees to N characters (0: none; default: whole)."),
    ] = None,
    param_descriptions: Annotated[
        str | None, typer.Option(help="keep | drop the tool parameters' descriptions the agent sees.")
    ] = None,
    no_preflight: Annotated[
        bool,
        typer.Option(
            "--no-preflight",
            help="Skip the check, before the run folder is made, that the endpoint answers, serves the model and "
            "takes tools.",
        ),
    ] = False,
    max_failed: Annotated[
        float | None,
        typer.Option(help="Exit 3 when more than this share (0-1) of episodes failed (default: only all)."),
    ] = None,
    fail_under: Annotated[
        list[str] | None,
        typer.Option(
            "--fail-under", help="METRIC=VALUE (repeatable): exit 4 when summary.json's METRIC is below VALUE."
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Run episodes, judge them, store everything under OUT/RUN_ID and print the results table.

    Exit status: 0 done; 2 bad input or a failed preflight (nothing written); 3 every episode failed, or more than
    --max-failed of them (provider, user or harness faults); 4 a --fail-under threshold missed; 130 Ctrl-C,
    143 SIGTERM (what finished is saved)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from sim.config.resolve import resolve_config
    from worlds.stressors.catalog import split_items

    overrides: dict[str, Any] = {
        "world": world,
        "agent": agent,
        "text_protocol": text_protocol,
        "user": user,
        "user_model": user_model,
        "limit": limit,
        "trials": trials,
        "seed": seed,
        "concurrency": concurrency,
        "endpoint_concurrency": endpoint_concurrency,
        "tpm": tpm,
        "rpm": rpm,
        "max_cost": max_cost,
        "out": out,
        "run_id": run_id,
        "label": label,
        "max_steps": max_steps,
        "max_turns": max_turns,
        "episode_timeout_s": episode_timeout_s,
        "request_timeout_s": request_timeout_s,
        "max_tokens": max_tokens,
        "temperature": temperature,
        "setup": setup,
        "stressor_mode": stressor_mode,
        "arg_match": arg_match,
        "arg_match_params": param_modes(arg_match_param),
        "embedding_threshold": embedding_threshold,
        "error_judge": error_judge,
        "judge_model": judge_model,
        "answer_judge": answer_judge,
        "answer_threshold": answer_threshold,
        "scheduler": scheduler,
        "cache": cache,
        "cache_dir": cache_dir,
        "backend": backend,
        "ray_address": ray_address,
        "ray_workers": ray_workers,
        "workers": workers,
        "tasks": task or None,
        "stressors": split_items(stressors) if stressors is not None else None,
        "resume": True if resume else None,
        "endpoints": endpoint_options(endpoint),
        "system_prompt": text_or_file("--system-prompt", system_prompt),
        "tool_descriptions": tool_descriptions,
        "param_descriptions": param_descriptions,
        "preflight": False if no_preflight else None,
        "max_failed": max_failed,
        "fail_under": thresholds(fail_under),
    }
    console = make_console()
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

    def on_episode(done: EpisodeDone) -> None:
        acc = done.values.get("core_api_accuracy")
        shown = "failed" if acc is None else f"{acc:.2f}"
        progress.update(bar[0], advance=1, last=f"{done.episode_id}: {shown} ({done.termination})")

    terminated: list[int] = []  # SIGTERM seen (the run then exits 143, not 130)
    try:
        cfg, quickstart = resolve_config(config, overrides)
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

        with progress, terminate_as_interrupt() as terminated:
            store, summary = run_loop(execute(cfg, on_start, on_episode))
    except KeyboardInterrupt:
        make_console(stderr=True).print(
            "interrupted: finished episodes are saved; continue with --resume --run-id <id>"
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


@app.command()
def score(
    run_dir: Annotated[Path, typer.Argument(help="A run directory (runs/<run-id>).")],
    arg_match: Annotated[
        str | None, typer.Option(help="exact | normalised | embedding | llm (default: the run's setting)")
    ] = None,
    error_judge: ErrorJudgeOption = None,
    judge_model: JudgeModelOption = None,
    answer_judge: AnswerJudgeOption = None,
    answer_threshold: AnswerThresholdOption = None,
    embedding_threshold: Annotated[
        float | None, typer.Option(help="Cosine threshold for --arg-match embedding (default: the run's).")
    ] = None,
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
        overrides = {
            "arg_match": arg_match,
            "embedding_threshold": embedding_threshold,
            "error_judge": error_judge,
            "judge_model": judge_model,
            "answer_judge": answer_judge,
            "answer_threshold": answer_threshold,
        }
        summary, note = asyncio.run(rescore(run_dir, overrides, resume))
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


def run_cli(argv: list[str]) -> int:
    """Run the command line; returns the exit code. Usage errors (a bad option value, an unknown option)
    are one line too, like every other bad input."""
    try:
        _check_argument_lengths(argv)
        swept = run_sweep(argv, run_cli)  # run --agent A,B,C: one run per agent (sim/cli/sweep.py)
        if swept is not None:
            return swept
        code = app(args=argv, prog_name="squall", standalone_mode=False)
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
