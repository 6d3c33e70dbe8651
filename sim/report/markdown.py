"""``RUN_DIR/summary.md``: the run summary as Markdown, for a pull request, a paper draft or a chat — the same
sections as the terminal and HTML reports (``sim.report.sections``), each number with its interval and
denominator."""

from __future__ import annotations

from collections.abc import Sequence

from judges.common.summary_view import heading
from judges.run.run_summary import RunSummary
from sim.report.sections import build_sections, identity_line, page_title


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    cells = [header, ["---"] * len(header), *rows]
    return ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in cells]


def markdown_summary(summary: RunSummary) -> str:
    """The summary as Markdown."""
    lines = [f"# {page_title(summary)}"]
    if line := identity_line(summary):
        lines += ["", line]
    for section in build_sections(summary):
        if not section.columns and not section.notes:
            continue
        lines += ["", f"## {heading(section.title)}"]
        if section.columns:
            lines += ["", *_table(section.columns, section.rows)]
        for note in section.notes:
            lines += ["", note]
    return "\n".join(lines) + "\n"
