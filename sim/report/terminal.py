"""Terminal report of a run summary: every section (``sim.report.sections``) as a rich table.

Quiet by default: the per-task tables (every judge's and τ²'s) are shown only when asked (``--tasks``) or when the
run has few tasks. Tables
fit the console: one too wide for it is split into several, each repeating its first column, so no cell is cut
short ("scrip…"); the headline alone stays one table, its words wrapping, so a value keeps its interval and
denominator beside it."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from judges.common.summary_view import Section
from judges.run.run_summary import RunSummary
from judges.tau2.tau2_reward_summary import TASK_SECTION as TAU2_TASK_SECTION
from sim.report.sections import build_sections, identity_line, page_title

__all__ = ["FEW_TASKS", "render", "render_sections"]

FEW_TASKS = 10
"""Up to this many tasks, the per-task table is shown without --tasks."""
TASK_SECTION = "tasks"
TASK_TABLES = {TASK_SECTION: "per-task table", TAU2_TASK_SECTION: "τ² per-task table"}
"""The per-task sections, by key, and how the line that says one was left out names it."""
HEADLINE_SECTION = "headline"
BORDER = 3
"""Characters a column adds besides its content: a separator and one space of padding each side."""


def render(summary: RunSummary, console: Console, tasks: bool | None = None) -> None:
    """The report; ``tasks``: True always shows the per-task table, False never, None when there are few tasks."""
    console.print(page_title(summary), style="bold", highlight=False)
    if line := identity_line(summary):
        console.print(line, highlight=False, markup=False)
    sections = build_sections(summary)
    hidden = [s for s in sections if s.key in TASK_TABLES and not _show_tasks(s, tasks)]
    render_sections([s for s in sections if s not in hidden], console)
    for section in hidden if tasks is None else ():  # left out by default: say how to see it
        console.print(
            f"{TASK_TABLES[section.key]} left out ({len(section.rows)} tasks): squall report RUN_DIR --tasks shows it",
            highlight=False,
            style="dim",
        )


def _show_tasks(section: Section, tasks: bool | None) -> bool:
    return tasks if tasks is not None else len(section.rows) <= FEW_TASKS


def _width(texts: list[str], header: str) -> int:
    """A column's natural width: its widest cell, or its header's longest word (headers wrap at spaces)."""
    return max([len(t) for t in texts] + [max((len(w) for w in header.split()), default=0)])


def column_groups(columns: tuple[str, ...], rows: list[tuple[str, ...]], width: int) -> list[list[int]]:
    """The column indices of each table to print so each fits ``width``: all of them when they fit, else the
    first column repeated with as many of the others as fit beside it (at least one)."""
    widths = [_width([r[i] for r in rows if i < len(r)], c) + BORDER for i, c in enumerate(columns)]
    if sum(widths) + 1 <= width or len(columns) <= 2:
        return [list(range(len(columns)))]
    groups: list[list[int]] = []
    current = [0]
    used = widths[0] + 1
    for i in range(1, len(columns)):
        if len(current) > 1 and used + widths[i] > width:
            groups.append(current)
            current, used = [0], widths[0] + 1
        current.append(i)
        used += widths[i]
    groups.append(current)
    return groups


def _headline(section: Section, console: Console) -> None:
    """The headline as one table whatever the width: a number, its interval and its denominator stay on one row
    (numbers never wrap; the metric's name and the denominator wrap at words), so no reader pairs a value with
    another row's interval."""
    table = Table(title=section.title, header_style="bold")
    for i, column in enumerate(section.columns):
        numeric = i in (1, 2)
        table.add_column(column, justify="right" if numeric else "left", no_wrap=numeric, overflow="fold", ratio=None)
    for row in section.rows:
        table.add_row(*(str(cell) for cell in row))
    console.print(table)


def render_sections(sections: list[Section], console: Console) -> None:
    for section in sections:
        if section.key == HEADLINE_SECTION and section.columns:
            _headline(section, console)
        elif section.columns:
            rows = [tuple(r) for r in section.rows]
            groups = column_groups(tuple(section.columns), rows, console.width)
            for n, group in enumerate(groups):
                title = section.title if len(groups) == 1 else f"{section.title} ({n + 1}/{len(groups)})"
                table = Table(title=title, header_style="bold")
                for i in group:
                    table.add_column(section.columns[i], justify="left" if i == 0 else "right", overflow="fold")
                for row in rows:
                    table.add_row(*(row[i] if i < len(row) else "" for i in group))
                console.print(table)
        elif not section.notes:
            continue
        else:
            console.print(f"{section.title}:", style="bold", highlight=False)
        for note in section.notes:
            console.print(f"  {note}", highlight=False)
