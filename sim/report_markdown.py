"""``RUN_DIR/summary.md``: the run summary as Markdown, for a pull request, a paper draft or a chat — the same
numbers as ``summary.json`` and the terminal table, each with its interval and denominator."""

from __future__ import annotations

from typing import Any


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _ci(ci: list[float] | tuple[float, float] | None) -> str:
    return "" if not ci else f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    cells = [header, ["---"] * len(header), *rows]
    return ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in cells]


def markdown_summary(summary: dict[str, Any]) -> str:
    """The summary as Markdown."""
    lines = [f"# squall run {summary.get('run_id', '')}", ""]
    clustered = summary.get("core_api_accuracy_ci95_clustered")
    rows = [
        [
            "core API accuracy",
            _pct(summary.get("core_api_accuracy")),
            _ci(clustered or summary.get("core_api_accuracy_ci95")),
            f"{summary.get('scored_turns', 0)} goals",
        ],
        [
            "conversation success",
            _pct(summary.get("conversation_success")),
            _ci(summary.get("conversation_success_ci95_clustered") or summary.get("conversation_success_ci95")),
            f"{summary.get('scored_episodes', 0)} episodes",
        ],
    ]
    for k, v in (summary.get("pass_hat_k") or {}).items():
        if k != "1":
            rows.append([f"pass^{k}", _pct(v), "", "tasks"])
    if summary.get("solvable_episodes"):
        rows.append(
            [
                "solvable pass rate",
                _pct(summary.get("solvable_pass_rate")),
                _ci(summary.get("solvable_pass_rate_ci95")),
                f"{summary['solvable_episodes']} episodes",
            ]
        )
    give_up = summary.get("give_up") or {}
    if give_up.get("decline_turns"):
        rows.append(
            [
                "give-up rate",
                _pct(give_up["rate"]),
                _ci(give_up.get("ci95")),
                f"{give_up['decline_turns']} decline turns",
            ]
        )
    for key, label, unit in (
        ("answer_facts", "answer facts", "question goals"),
        ("completion", "completion (exact answer)", "answer turns"),
    ):
        turns = summary.get(f"{key}_turns")
        if turns:
            rows.append([label, _pct(summary.get(key)), _ci(summary.get(f"{key}_ci95")), f"{turns} {unit}"])
    rows.append(
        ["episodes finished / planned", f"{summary.get('episodes')} / {summary.get('planned_episodes')}", "", ""]
    )
    rows.append(["failed episodes (not scored)", str(summary.get("failed_episodes", 0)), "", ""])
    lines += _table(["metric", "value", "95% CI", "over"], rows)
    if clustered:
        lines += [
            "",
            f"Intervals of the first two rows: bootstrap over {summary.get('tasks_scored')} tasks; others Wilson.",
        ]
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
        user_rows = []
        for row in users["by_user"]:
            kept = row.get("retention") or {}
            retention = "baseline" if row["user"] == users.get("baseline") else "—"
            if kept.get("ratio") is not None:
                ci = kept.get("ci95")
                retention = f"{kept['ratio']:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")
            user_rows.append(
                [
                    row["user"],
                    str(row["goals_scored"]),
                    _pct(row["goal_accuracy"]),
                    retention,
                    "—" if row["turns_per_goal"] is None else f"{row['turns_per_goal']:.2f}",
                    f"{_pct(row['clarification'])} of {row['withheld_goals']}" if row["withheld_goals"] else "—",
                    str(row["user_faults"]),
                    str(row["agent_faults"]),
                ]
            )
        header = ["user", "goals", "goal acc.", "retention", "turns/goal", "asked", "user faults", "agent faults"]
        lines += ["", "## By user", "", *_table(header, user_rows)]
    stressors = summary.get("stressors") or {}
    if stressors.get("by_type"):
        stress_rows = [
            [r["name"], str(r.get("turns")), _pct(r.get("before")), _pct(r.get("after")), _pct(r.get("retention"))]
            for r in stressors["by_type"]
        ]
        lines += [
            "",
            "## Stressors, isolated",
            "",
            *_table(["type", "turns", "before", "after", "retention"], stress_rows),
        ]
    per_task = summary.get("per_task") or {}
    if per_task:
        task_rows = [[t, str(r["trials"]), _pct(r["conversation_success"])] for t, r in per_task.items()]
        lines += ["", "## Per task", "", *_table(["task", "trials", "success"], task_rows)]
    return "\n".join(lines) + "\n"
