"""Terminal report of a run summary: headline rates with denominators, failures, per task."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _ci(ci: list[float] | tuple[float, float] | None) -> str:
    return "" if not ci else f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def render(summary: dict[str, Any], console: Console) -> None:
    head = Table(title=f"squall run {summary.get('run_id', '')}", show_header=True, header_style="bold")
    head.add_column("metric")
    head.add_column("value", justify="right")
    head.add_column("95% CI", justify="right")
    head.add_column("over", justify="right")
    head.add_row(
        "core API accuracy",
        _pct(summary["core_api_accuracy"]),
        _ci(summary.get("core_api_accuracy_ci95")),
        f"{summary.get('scored_turns', 0)} turns",
    )
    head.add_row(
        "conversation success",
        _pct(summary["conversation_success"]),
        _ci(summary.get("conversation_success_ci95")),
        f"{summary.get('scored_episodes', 0)} episodes",
    )
    for k, v in (summary.get("pass_hat_k") or {}).items():
        if k != "1":
            head.add_row(f"pass^{k}", _pct(v), "", "tasks")
    if summary.get("setup"):
        head.add_row("setup", str(summary["setup"]), "", "")
    head.add_row(
        "episodes finished / planned", f"{summary['episodes']} / {summary.get('planned_episodes', '?')}", "", ""
    )
    head.add_row("failed episodes (not scored)", str(summary["failed_episodes"]), "", "")
    console.print(head)

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
            title="stressors, isolated: each alone vs the unstressed baseline, on the turns it can touch",
            header_style="bold",
        )
        for column in ("complexity type", "turns", "before", "after", "degradation", "retention"):
            t.add_column(column, justify="left" if column == "complexity type" else "right")
        for row in stressors["by_type"]:
            retention = "-" if row["retention"] is None else f"{row['retention']:.2f}"
            t.add_row(
                row["name"],
                str(row["turns"]),
                _pct(row["before"]),
                _pct(row["after"]),
                _pct(row["degradation"]),
                retention,
            )
        console.print(t)
        if stressors.get("unpaired_episodes"):
            left = sum(stressors["unpaired_episodes"].values())
            console.print(f"  {left} stressed episode(s) left out: failed, or their baseline failed or is missing")

    per_task = summary.get("per_task") or {}
    if per_task:
        t = Table(title="per task", header_style="bold")
        t.add_column("task")
        t.add_column("trials", justify="right")
        t.add_column("success", justify="right")
        for task, row in per_task.items():
            t.add_row(task, str(row["trials"]), _pct(row["conversation_success"]))
        console.print(t)

    u = summary.get("usage") or {}
    if u.get("requests"):
        console.print(
            f"LLM usage: {u['requests']} requests, {u['input_tokens']} in / {u['output_tokens']} out tokens, "
            f"{u['retries']} retries, working {u['working_s']:.1f}s, waiting {u['waiting_s']:.1f}s, "
            f"cost ${u['cost']:.4f}"
        )
