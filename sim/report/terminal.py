"""Terminal report of a run summary: every section (``sim.report.sections``) as a rich table."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from judges.run_summary import RunSummary
from judges.summary_view import Section
from sim.report.sections import build_sections, identity_line, page_title

__all__ = ["render", "render_sections"]


def render(summary: RunSummary, console: Console) -> None:
    console.print(page_title(summary), style="bold", highlight=False)
    if line := identity_line(summary):
        console.print(line, highlight=False, markup=False)
    render_sections(build_sections(summary), console)


def render_sections(sections: list[Section], console: Console) -> None:
    for section in sections:
        if section.columns:
            table = Table(title=section.title, header_style="bold")
            for i, column in enumerate(section.columns):
                table.add_column(column, justify="left" if i == 0 else "right")
            for row in section.rows:
                table.add_row(*row)
            console.print(table)
        elif not section.notes:
            continue
        else:
            console.print(f"{section.title}:", style="bold", highlight=False)
        for note in section.notes:
            console.print(f"  {note}", highlight=False)
