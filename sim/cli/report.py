"""`squall report RUN_DIR [--compare OTHER]`: the results table, RUN_DIR/report.html, and a two-run comparison."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer


def report(
    run_dirs: Annotated[
        list[Path],
        typer.Argument(
            help="A run directory (runs/<run-id>); several: their headlines side by side and the core judges ranked "
            "on the episodes all of them hold, paired against the first.",
            show_default=False,
        ),
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    score_set: Annotated[
        str | None, typer.Option("--score-set", help="Hash (or prefix) of the score set to show (default: newest).")
    ] = None,
    no_html: Annotated[bool, typer.Option("--no-html", help="Do not write RUN_DIR/report.html.")] = False,
    compare: Annotated[
        list[Path] | None,
        typer.Option(
            "--compare",
            help="Another run to compare with: headline numbers side by side and the paired per-episode difference "
            "(written to RUN_DIR/compare-<other>.html too).",
        ),
    ] = None,
    max_episodes: Annotated[int, typer.Option(min=0, help="Episodes embedded in the HTML viewer, at most.")] = 1000,
    tasks: Annotated[
        bool | None,
        typer.Option(
            "--tasks/--no-tasks", help="Show the per-task table (default: only when the run has 10 tasks or fewer)."
        ),
    ] = None,
) -> None:
    """Print a run's results table (recomputed from the stored scores of one score set) and write
    RUN_DIR/report.html: one offline page with charts and an episode viewer."""
    from sim.cli.common import fail, make_console, user_errors
    from sim.run.rescore import summary_of

    if compare and len(compare) > 1:  # click keeps the last of a repeated option: say so rather than drop one
        fail(
            f"--compare given {len(compare)} times: it compares RUN_DIR with one other run; for several runs use "
            "`squall report A B C`"
        )
    compare_dir = compare[0] if compare else None
    if len(run_dirs) > 1:
        if compare_dir is not None or score_set is not None:
            fail("--compare and --score-set take one run; several runs are compared with each other already")
        from sim.cli.many_runs import report_many

        report_many(run_dirs, as_json)
        return
    run_dir = run_dirs[0]

    try:
        summary = summary_of(run_dir, score_set)
        other_summary = summary_of(compare_dir, None) if compare_dir is not None else None
    except user_errors() as exc:
        fail(str(exc))
    written: list[Path] = []
    comparison = None
    try:
        if compare_dir is not None and other_summary is not None:
            from sim.report.compare import compare_runs

            comparison = compare_runs(run_dir, summary, compare_dir, other_summary)
        if not no_html:
            from sim.report.html import write_html_report

            chosen = summary.score_set
            written.append(write_html_report(run_dir, summary, chosen, cap=max_episodes))
            if comparison is not None and compare_dir is not None:
                from sim.report.compare import compare_file_name, comparison_html

                html = comparison_html(comparison)
                name = compare_file_name(compare_dir)
                written.append(write_html_report(run_dir, summary, chosen, max_episodes, html, name))
    except user_errors() as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"{run_dir}: cannot write the HTML report: {exc.strerror or exc}")
    if as_json:  # stdout stays one JSON document; the HTML is written all the same
        sys.stdout.write(json.dumps(summary.as_dict(), indent=2, default=str) + "\n")
        return
    from sim.report.terminal import render

    console = make_console()
    render(summary, console, tasks)
    if comparison is not None:
        from sim.report.compare import render_comparison

        render_comparison(comparison, console)
    for path in written:
        console.print(f"HTML report: {path}", highlight=False, soft_wrap=True)
