"""Commands over many runs: ``squall runs list``, ``squall leaderboard``, ``squall export``, and ``squall report A B
C`` (called by ``sim.cli.report`` when it is given more than one run)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from judges.names import JudgeName
from sim.cli.common import fail, make_console, user_errors

if TYPE_CHECKING:
    from sim.report.leaderboard import Leaderboard

runs_app = typer.Typer(help="The runs in a runs folder.", no_args_is_help=True)

MetricOption = Annotated[
    str,
    typer.Option(help="Judge to rank on: core_api_accuracy, conversation_success, state_match, ... (a judge's name)."),
]


def _errors() -> tuple[type[Exception], ...]:
    from sim.report.export import ExportError

    return (*user_errors(), ValueError, ExportError)


@runs_app.command("list")
def list_runs(
    runs_dir: Annotated[Path, typer.Argument(help="A folder of run directories.")] = Path("runs"),
    as_json: Annotated[bool, typer.Option("--json", help="Print the runs as JSON.")] = False,
) -> None:
    """Every run in RUNS_DIR, oldest first: id, label, agent, world, stressors, core API accuracy, date."""
    from sim.report.many_runs_view import render_runs
    from sim.report.run_index import iter_runs

    try:
        runs = list(iter_runs(runs_dir))
    except _errors() as exc:
        fail(str(exc))
    if as_json:
        sys.stdout.write(json.dumps([r.as_dict() for r in runs], indent=2) + "\n")
        return
    render_runs(runs, make_console())


def _board(runs: list[Path], metric: str, by: str, reference: str | None) -> Leaderboard:
    from sim.report.leaderboard import leaderboard_of_dirs

    try:
        return leaderboard_of_dirs(runs, metric, by, reference)
    except _errors() as exc:
        fail(str(exc))


def leaderboard_command(
    runs: Annotated[
        list[Path], typer.Argument(help="Run directories (a shell glob: runs/sweep-*) or a folder of runs (runs).")
    ],
    by: Annotated[
        str, typer.Option(help="Group runs by: agent | run | label | world | user | stressors | sweep.")
    ] = "agent",
    metric: MetricOption = JudgeName.CORE_API_ACCURACY,
    reference: Annotated[str | None, typer.Option(help="The row Δ is taken against (default: the leader).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the leaderboard as JSON.")] = False,
) -> None:
    """Rank runs (grouped --by agent, ...) on one judge over the episodes every group holds, with 95% intervals
    (bootstrap over tasks) and each row's paired difference from the leader: one leaderboard per world and planned
    tasks, and the runs none can rank listed with why."""
    from sim.report.comparable import load_boards
    from sim.report.many_runs_view import render_boards

    try:
        boards = load_boards(runs, metric, by, reference)
    except _errors() as exc:
        fail(str(exc))
    if as_json:
        sys.stdout.write(json.dumps(boards.as_dict(), indent=2) + "\n")
        return
    render_boards(boards, make_console())


def export_command(
    run_dirs: Annotated[
        list[Path], typer.Argument(help="A run directory (runs/<run-id>); with --format tau2, one run per τ² domain.")
    ],
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            help="csv | jsonl | parquet (needs pyarrow) | tau2 (a τ²-bench leaderboard submission) | bfcl (BFCL "
            "result files of a run on bfcl: worlds).",
        ),
    ] = "csv",
    out: Annotated[
        Path | None, typer.Option(help="Folder for episodes.FORMAT and goals.FORMAT (default: RUN_DIR/export).")
    ] = None,
    score_set: Annotated[
        str | None, typer.Option("--score-set", help="Hash (or prefix) of the score set (default: newest).")
    ] = None,
) -> None:
    """Write a run's verdicts as two tables: one row per episode (identity, termination, tokens, every judge's
    value) and one row per goal and judge (value and that goal's error codes). --format tau2: runs on τ²'s domains
    as one τ²-bench leaderboard submission (submission.json), pass^1…pass^4 and cost per task printed. --format bfcl:
    a run on bfcl: worlds as BFCL result files (BFCL_v4_CATEGORY_result.json), the agent's calls as BFCL stores a
    model's outputs."""
    from sim.report.export import export_run

    if fmt == "tau2":
        _export_tau2(run_dirs, out if out is not None else run_dirs[0] / "export")
        return
    if fmt == "bfcl":
        _export_bfcl(run_dirs, out)
        return
    if len(run_dirs) != 1:
        fail(f"export takes one run directory ({len(run_dirs)} given); several only with --format tau2")
    run_dir = run_dirs[0]
    try:
        written = export_run(run_dir, fmt, out if out is not None else run_dir / "export", score_set)
    except _errors() as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"{out or run_dir}: cannot write the export: {exc.strerror or exc}")
    for path in written:
        make_console().print(f"wrote {path}", highlight=False, soft_wrap=True)


def _export_bfcl(run_dirs: list[Path], out: Path | None) -> None:
    from sim.report.export_bfcl import export_bfcl

    if len(run_dirs) != 1:
        fail(f"export --format bfcl takes one run directory ({len(run_dirs)} given)")
    try:
        written = export_bfcl(run_dirs[0], out if out is not None else run_dirs[0] / "export")
    except _errors() as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"{out or run_dirs[0]}: cannot write the export: {exc.strerror or exc}")
    for path in written:
        make_console().print(f"wrote {path}", highlight=False, soft_wrap=True)


def _export_tau2(run_dirs: list[Path], out: Path) -> None:
    from sim.report.export_tau2 import PASS_KS, cost_per_task, tau2_submission
    from sim.run.rescore import summary_of

    try:
        summaries = [summary_of(d, None) for d in run_dirs]
        submission = tau2_submission(run_dirs, summaries)
    except _errors() as exc:
        fail(str(exc))
    try:
        out.mkdir(parents=True, exist_ok=True)
        path = out / "submission.json"
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(submission, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        fail(f"{out}: cannot write the submission: {exc.strerror or exc}")
    console = make_console()
    for (domain, passes), summary in zip(submission["results"].items(), summaries, strict=True):
        shown = "  ".join(f"pass^{k} {'—' if passes[f'pass_{k}'] is None else passes[f'pass_{k}']}" for k in PASS_KS)
        costs = ", ".join(f"{role} ${usd:.4f}" for role, usd in cost_per_task(summary).items()) or "no priced usage"
        console.print(f"{domain}: {shown}  · cost per task: {costs}", highlight=False, soft_wrap=True)
    console.print(f"wrote {path}", highlight=False, soft_wrap=True)


REPORT_METRICS = (JudgeName.CORE_API_ACCURACY, JudgeName.CONVERSATION_SUCCESS, JudgeName.STATE_MATCH)


def report_many(run_dirs: list[Path], as_json: bool) -> None:
    """``squall report A B C``: the runs' headlines side by side, then each core judge ranked over the episodes all
    runs hold, Δ against the first run with a paired interval."""
    from sim.report.leaderboard import group_name
    from sim.report.many_runs_view import render_headlines, render_paired
    from sim.report.run_index import distinct_runs, read_run_info
    from sim.run.rescore import summary_of

    try:
        run_dirs, passed_over = distinct_runs(run_dirs)
        infos = [read_run_info(d) for d in run_dirs]
        summaries = [summary_of(d, None) for d in run_dirs]
    except _errors() as exc:
        fail(str(exc))
    names = [group_name(i, "run") for i in infos]
    by = "run" if len(set(names)) == len(names) else "run_id"
    if by == "run_id":
        names = [i.run_id for i in infos]
    boards = [_board(run_dirs, m, by, names[0]) for m in REPORT_METRICS]
    if as_json:
        out = {"runs": [i.as_dict() for i in infos], "leaderboards": [b.as_dict() for b in boards]}
        sys.stdout.write(json.dumps(out, indent=2) + "\n")
        return
    console = make_console()
    for note in passed_over:
        console.print(f"[yellow]warning:[/] {note}", highlight=False)
    render_headlines(names, summaries, console)
    render_paired(boards, names, console)
