"""Terminal tables over many runs: the runs list, the leaderboard, and the headline of N runs side by side. Each
fits 80 columns: long cells fold rather than being cut to "scrip…"."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from judges.common.summary_view import pct
from judges.run.run_identity import default_label
from judges.run.run_summary import RunSummary
from sim.report.comparable import Boards
from sim.report.leaderboard import Leaderboard
from sim.report.run_index import RunInfo
from sim.report.sections import headline_rows

RUNS_COLUMNS = ("run", "label", "agent", "world", "stressors", "core acc.", "date")


def _ci(ci: tuple[float, float] | None, signed: bool = False) -> str:
    if ci is None:
        return ""
    fmt = "{:+.1f}" if signed else "{:.1f}"
    return f"[{fmt.format(100 * ci[0])},{fmt.format(100 * ci[1])}]"


def _delta(delta: float | None, ci: tuple[float, float] | None) -> str:
    if delta is None:
        return "—"
    bounds = "" if ci is None else f" [{100 * ci[0]:+.0f},{100 * ci[1]:+.0f}]"
    return f"{100 * delta:+.1f}{bounds}"


def render_runs(runs: Sequence[RunInfo], console: Console) -> None:
    labelled = any(_set_label(r) for r in runs)
    table = Table(title=f"{len(runs)} runs", header_style="bold")
    for column in RUNS_COLUMNS:
        if column == "label" and not labelled:
            continue
        right = column == "core acc."
        table.add_column(column, overflow="fold", justify="right" if right else "left", no_wrap=column == "date")
    for r in runs:
        date = r.created_at[:16].replace("T", " ")
        cells = [r.run_id, r.label, r.agent, r.world, r.stressors or "—", pct(r.core_api_accuracy), date]
        table.add_row(*(c for i, c in enumerate(cells) if labelled or i != 1))
    console.print(table)


def _set_label(run: RunInfo) -> bool:
    """Whether the run's label says more than its agent and stressors (a --label, not the derived default)."""
    return bool(run.label) and run.label != default_label(run.agent, [s for s in run.stressors.split(",") if s])


def render_boards(boards: Boards, console: Console) -> None:
    """A leaderboard per world and plan, then the runs none ranks and why."""
    for note in boards.notes:
        console.print(f"[yellow]warning:[/] {note}", highlight=False)
    for part in boards.boards:
        render_leaderboard(part.board, console, f"{part.world}, {part.plan}")
    if not boards.not_comparable:
        return
    table = Table(title=f"not comparable on {boards.metric}", header_style="bold")
    for column in ("run", "world", "why"):
        table.add_column(column, overflow="fold")
    for n in boards.not_comparable:
        table.add_row(n.run_id, n.world, n.reason)
    console.print(table)


def render_leaderboard(board: Leaderboard, console: Console, where: str = "") -> None:
    title = f"leaderboard: {board.metric} by {board.by}" + (f" — {where}" if where else "")
    table = Table(title=title, header_style="bold")
    table.add_column("#", justify="right")
    table.add_column(board.by, overflow="fold")
    for column in ("score", "95% CI", "Δ", "Δ 95% CI", "runs"):
        table.add_column(column, justify="right", no_wrap=True)
    for r in board.rows:
        delta = "—" if r.delta is None else f"{100 * r.delta:+.1f}"
        ci, delta_ci = _ci(r.ci95), _ci(r.delta_ci95, True)
        table.add_row(str(r.rank), r.name, pct(r.score), ci, delta, delta_ci, str(len(r.runs)))
    console.print(table)
    console.print(
        f"  over the {board.shared_episodes} episodes ({board.shared_tasks} tasks) every row holds. {board.note}",
        highlight=False,
    )
    for warning in board.warnings:
        console.print(f"[yellow]warning:[/] {warning}", highlight=False)


def render_paired(boards: Sequence[Leaderboard], names: Sequence[str], console: Console) -> None:
    """Each run's paired difference from the reference run on several judges: one row per run."""
    shown = [b for b in boards if b.shared_episodes]
    if not shown:
        console.print("no episode has a verdict in every run: nothing to pair", highlight=False)
        return
    reference = shown[0].reference
    title = f"paired vs {reference}: Δ points [95% CI] on the episodes all runs hold"
    table = Table(title=title, header_style="bold")
    table.add_column("run", overflow="fold")
    for board in shown:
        table.add_column(board.metric.replace("_", " "), justify="right", overflow="fold")
    rows = {name: [""] * len(shown) for name in names}
    for i, board in enumerate(shown):
        for r in board.rows:
            score = pct(r.score) if r.name == reference else _delta(r.delta, r.delta_ci95)
            rows[r.name][i] = score
    for name, cells in rows.items():
        table.add_row(name, *cells)
    console.print(table)
    counts = ", ".join(f"{b.metric}: {b.shared_episodes} episodes" for b in shown)
    console.print(f"  {reference}'s row: its own score. Shared: {counts}. {shown[0].note}", highlight=False)


def render_headlines(names: Sequence[str], summaries: Sequence[RunSummary], console: Console) -> None:
    """The headline numbers of N runs side by side (each over its own episodes, as its own report shows)."""
    columns: dict[str, list[str]] = {}
    for i, summary in enumerate(summaries):
        for row in headline_rows(summary):
            columns.setdefault(row[0], ["—"] * len(summaries))[i] = row[1]
    table = Table(title="headline, each run over its own episodes", header_style="bold")
    table.add_column("metric", overflow="fold")
    for name in names:
        table.add_column(name, justify="right", overflow="fold")
    for metric, values in columns.items():
        table.add_row(metric, *values)
    console.print(table)
