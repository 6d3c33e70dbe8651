"""Terminal report of a run summary: headline rates with denominators, failures, stressors, per task."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from sim.report.rows import CLUSTERED_NOTE, ast_reason_line, ci_text, headline_rows, pct, ratio_ci

__all__ = ["ci_text", "pct", "ratio_ci", "render"]


DETAILED_TYPES = ("drift", "perturb")
"""Stressor types whose operators and scenarios get a row each beside their baseline."""


def render(summary: dict[str, Any], console: Console) -> None:
    head = Table(title=f"squall run {summary.get('run_id', '')}", show_header=True, header_style="bold")
    head.add_column("metric")
    head.add_column("value", justify="right")
    head.add_column("95% CI", justify="right")
    head.add_column("over", justify="right")
    for row in headline_rows(summary):
        head.add_row(*row)
    console.print(head)
    if summary.get("core_api_accuracy_ci95_clustered"):
        console.print(f"  95% CIs over {summary.get('tasks_scored')} tasks: {CLUSTERED_NOTE}")
    if line := ast_reason_line(summary):
        console.print(f"  {line}")

    faults = summary.get("faults_by_kind") or {}
    if faults or summary.get("terminations"):
        t = Table(title="terminations and faults", header_style="bold")
        t.add_column("kind")
        t.add_column("count", justify="right")
        for k, v in sorted((summary.get("terminations") or {}).items()):
            t.add_row(f"termination: {k}", str(v))
        for k, v in sorted(faults.items()):
            t.add_row(f"fault: {k}", str(v))
        for k, v in (summary.get("error_codes") or {}).items():
            t.add_row(f"  {k}", str(v))
        console.print(t)

    stressors = summary.get("stressors")
    if stressors and stressors.get("unavailable"):
        console.print(f"stressors, isolated: {stressors['unavailable']}")
    elif stressors:
        t = Table(
            title="stressors, isolated: each alone vs the unstressed baseline, on the goals it can touch",
            header_style="bold",
        )
        for column in ("complexity type", "goals", "before", "after", "degradation", "retention [95% CI]"):
            t.add_column(column, justify="left" if column == "complexity type" else "right")
        for row in stressors["by_type"]:
            t.add_row(row["name"], *_cells(row))
        console.print(t)
        _operator_table(stressors, console)
        if stressors.get("unpaired_episodes"):
            left = sum(stressors["unpaired_episodes"].values())
            console.print(f"  {left} stressed episode(s) left out: failed, or their baseline failed or is missing")

    stack = (summary.get("stacking") or {}).get("by_fired")
    if stack:
        t = Table(title="stressors stacked: goal accuracy by scenarios fired on the goal", header_style="bold")
        for column in ("fired", "goals", "accuracy", "95% CI"):
            t.add_column(column, justify="right")
        for row in stack:
            t.add_row(row["fired"], str(row["goals"]), pct(row["accuracy"]), ci_text(row["ci95"]))
        console.print(t)
    _user_table(summary.get("users"), console)
    _share_table(summary.get("failure_stages"), "failure stages (wrong turns)", "stage", console)
    _share_table(summary.get("error_categories"), "error categories (wrong turns)", "category", console)

    per_task = summary.get("per_task") or {}
    if per_task:
        t = Table(title="per task", header_style="bold")
        t.add_column("task")
        t.add_column("trials", justify="right")
        t.add_column("success", justify="right")
        for task, row in per_task.items():
            t.add_row(task, str(row["trials"]), pct(row["conversation_success"]))
        console.print(t)

    u = summary.get("usage") or {}
    if u.get("requests"):
        console.print(
            f"LLM usage: {u['requests']} requests, {u['input_tokens']} in / {u['output_tokens']} out tokens, "
            f"{u['retries']} retries, working {u['working_s']:.1f}s, waiting {u['waiting_s']:.1f}s, "
            f"cost ${u['cost']:.4f}"
        )


USER_COLUMNS = (
    "user",
    "goals",
    "goal acc.",
    "retention [95% CI]",
    "success",
    "turns/goal",
    "asked",
    "user faults",
    "agent faults",
)


def user_cells(row: dict[str, Any], baseline: str | None) -> list[str]:
    """One user's row of the by-user table (terminal and Markdown alike), in ``USER_COLUMNS`` order."""
    kept = row.get("retention")
    retention = "baseline" if row["user"] == baseline else "—"
    if kept and kept.get("ratio") is not None:
        retention = f"{kept['ratio']:.3f} {ratio_ci(kept.get('ci95'))}".strip()
    return [
        row["user"],
        str(row["goals_scored"]),
        pct(row["goal_accuracy"]),
        retention,
        pct(row["conversation_success"]),
        "—" if row["turns_per_goal"] is None else f"{row['turns_per_goal']:.2f}",
        f"{pct(row['clarification'])} of {row['withheld_goals']}" if row["withheld_goals"] else "—",
        str(row["user_faults"]),
        str(row["agent_faults"]),
    ]


def coreferential_line(users: dict[str, Any]) -> str | None:
    """The explicit → coreferential retention sentence, when the run measured it."""
    coref = users.get("explicit_to_coreferential")
    if not coref or coref.get("ratio") is None:
        return None
    return (
        f"explicit → coreferential retention ({coref['user']}): {coref['ratio']:.3f} {ratio_ci(coref.get('ci95'))} "
        f"on {coref['paired_goals']} paired goals whose wording leans on earlier turns, {coref['tasks']} tasks"
    )


def _user_table(users: dict[str, Any] | None, console: Console) -> None:
    """Per user style: goal accuracy, retention against the explicit user, turns per goal, asking for withheld
    values, and the simulator's own faults apart from the agent's."""
    if not users:
        return
    t = Table(title="by user (same tasks and seeds; retention vs the explicit user, paired)", header_style="bold")
    for column in USER_COLUMNS:
        t.add_column(column, justify="left" if column == "user" else "right")
    for row in users["by_user"]:
        t.add_row(*user_cells(row, users.get("baseline")))
    console.print(t)
    if line := coreferential_line(users):
        console.print(line)


def _share_table(counts: dict[str, int] | None, title: str, label: str, console: Console) -> None:
    """Counts of wrong goals per label (failure stage, error category), with their share."""
    rows = {k: v for k, v in (counts or {}).items() if v}
    if not rows:
        return
    total = sum(rows.values())
    t = Table(title=title, header_style="bold")
    for column in (label, "goals", "share"):
        t.add_column(column, justify="left" if column == label else "right")
    for key, n in rows.items():
        t.add_row(key, str(n), pct(n / total))
    console.print(t)


def _operator_table(stressors: dict[str, Any], console: Console) -> None:
    """Baseline next to each operator (all its scenarios) and each scenario, for the detailed types."""
    operators = [r for r in stressors.get("by_operator") or () if r.get("type") in DETAILED_TYPES]
    scenarios = [r for r in stressors.get("by_scenario") or () if r.get("type") in DETAILED_TYPES]
    if not operators and not scenarios:
        return
    t = Table(title="per operator and scenario: baseline (before) vs stressed (after)", header_style="bold")
    t.add_column("operator (scenarios) / scenario", overflow="fold")
    for column in ("goals", "baseline", "stressed", "degradation", "retention [95% CI]"):
        t.add_column(column, justify="right")
    for kind in DETAILED_TYPES:
        for op in (r for r in operators if r["type"] == kind):
            t.add_row(f"{kind}: {op['name']} ({op['scenarios']})", *_cells(op), style="bold")
            for row in (r for r in scenarios if r["type"] == kind and r.get("op") == op["name"]):
                t.add_row(f"  {row['name'].removeprefix(kind + '.')}", *_cells(row))
        for row in (r for r in scenarios if r["type"] == kind and "op" not in r):
            t.add_row(row["name"], *_cells(row))
    console.print(t)


def _cells(row: dict[str, Any]) -> tuple[str, ...]:
    retention = "-" if row["retention"] is None else f"{row['retention']:.2f}"
    if row.get("retention_ci95"):
        retention += f" {ratio_ci(row['retention_ci95'])}"
    return (str(row["turns"]), pct(row["before"]), pct(row["after"]), pct(row["degradation"]), retention)
