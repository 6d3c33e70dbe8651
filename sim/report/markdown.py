"""``RUN_DIR/summary.md``: the run summary as Markdown, for a pull request, a paper draft or a chat — the same
numbers as ``summary.json`` and the terminal table, each with its interval and denominator."""

from __future__ import annotations

from typing import Any

from sim.report.rows import CLUSTERED_NOTE, ast_reason_line, ci_text, headline_rows, pct, ratio_ci
from sim.report.terminal import USER_COLUMNS, coreferential_line, user_cells


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    cells = [header, ["---"] * len(header), *rows]
    return ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in cells]


def _retention(row: dict[str, Any]) -> str:
    if row.get("retention") is None:
        return "-"
    return f"{row['retention']:.2f} {ratio_ci(row.get('retention_ci95'))}".strip()


def markdown_summary(summary: dict[str, Any]) -> str:
    """The summary as Markdown."""
    lines = [f"# squall run {summary.get('run_id', '')}", ""]
    clustered = summary.get("core_api_accuracy_ci95_clustered")
    rows = headline_rows(summary)
    lines += _table(["metric", "value", "95% CI", "over"], rows)
    if clustered:
        lines += [
            "",
            f"95% intervals over {summary.get('tasks_scored')} tasks: {CLUSTERED_NOTE}.",
        ]
    if line := ast_reason_line(summary):
        lines += ["", line]
    faults = {f"termination: {k}": v for k, v in sorted((summary.get("terminations") or {}).items())}
    faults |= {f"fault: {k}": v for k, v in sorted((summary.get("faults_by_kind") or {}).items())}
    if faults:
        lines += [
            "",
            "## Terminations and faults",
            "",
            *_table(["kind", "count"], [[k, str(v)] for k, v in faults.items()]),
        ]
    users = summary.get("users")
    if users:
        rows_by_user = [user_cells(row, users.get("baseline")) for row in users["by_user"]]
        lines += ["", "## By user", "", *_table(list(USER_COLUMNS), rows_by_user)]
        if line := coreferential_line(users):
            lines += ["", line]
    stressors = summary.get("stressors") or {}
    if stressors.get("by_type"):
        stress_rows = [
            [
                r["name"],
                str(r.get("turns")),
                pct(r.get("before")),
                pct(r.get("after")),
                "-"
                if r.get("retention") is None
                else f"{r['retention']:.2f} {ratio_ci(r.get('retention_ci95'))}".strip(),
            ]
            for r in stressors["by_type"]
        ]
        lines += [
            "",
            "## Stressors, isolated",
            "",
            *_table(["type", "goals", "before", "after", "retention [95% CI]"], stress_rows),
        ]
    stack = (summary.get("stacking") or {}).get("by_fired")
    if stack:
        stack_rows = [[r["fired"], str(r["goals"]), pct(r["accuracy"]), ci_text(r["ci95"])] for r in stack]
        lines += [
            "",
            "## Stressors stacked: goal accuracy by scenarios fired on the goal",
            "",
            *_table(["fired", "goals", "accuracy", "95% CI"], stack_rows),
        ]
    per_task = summary.get("per_task") or {}
    if per_task:
        task_rows = [[t, str(r["trials"]), pct(r["conversation_success"])] for t, r in per_task.items()]
        lines += ["", "## Per task", "", *_table(["task", "trials", "success"], task_rows)]
    return "\n".join(lines) + "\n"
