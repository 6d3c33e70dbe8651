"""Terminal report of a run summary: headline rates with denominators, failures, stressors, per task."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def ci_text(ci: list[float] | tuple[float, float] | None) -> str:
    return "" if not ci else f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def ratio_ci(ci: list[float] | None) -> str:
    return "" if not ci else f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def _mean_sd(spread: dict[str, Any]) -> str:
    if spread.get("mean") is None:
        return "n/a"
    sd = spread.get("sd")
    return pct(spread["mean"]) + ("" if sd is None else f" ± {100 * sd:.1f}")


DETAILED_TYPES = ("drift", "perturb")
"""Stressor types whose operators and scenarios get a row each beside their baseline."""


def render(summary: dict[str, Any], console: Console) -> None:
    head = Table(title=f"squall run {summary.get('run_id', '')}", show_header=True, header_style="bold")
    head.add_column("metric")
    head.add_column("value", justify="right")
    head.add_column("95% CI", justify="right")
    head.add_column("over", justify="right")
    head.add_row(
        "core API accuracy",
        pct(summary["core_api_accuracy"]),
        ci_text(summary.get("core_api_accuracy_ci95_clustered") or summary.get("core_api_accuracy_ci95")),
        f"{summary.get('scored_turns', 0)} turns",
    )
    head.add_row(
        "conversation success",
        pct(summary["conversation_success"]),
        ci_text(summary.get("conversation_success_ci95_clustered") or summary.get("conversation_success_ci95")),
        f"{summary.get('scored_episodes', 0)} episodes",
    )
    for k, v in (summary.get("pass_hat_k") or {}).items():
        if k != "1":
            head.add_row(f"pass^{k}", pct(v), "", "tasks")
    _stress_rows(head, summary)
    _answer_rows(head, summary)
    from sim.report_quality import CLUSTERED_NOTE, ast_reason_line, quality_rows  # it imports this module's helpers

    for row in quality_rows(summary):
        head.add_row(*row)
    if summary.get("setup"):
        head.add_row("setup", str(summary["setup"]), "", "")
    head.add_row(
        "episodes finished / planned", f"{summary['episodes']} / {summary.get('planned_episodes', '?')}", "", ""
    )
    head.add_row("failed episodes (not scored)", str(summary["failed_episodes"]), "", "")
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
            title="stressors, isolated: each alone vs the unstressed baseline, on the turns it can touch",
            header_style="bold",
        )
        for column in ("complexity type", "turns", "before", "after", "degradation", "retention [95% CI]"):
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


def _stress_rows(head: Table, summary: dict[str, Any]) -> None:
    """Headline rows of the stressed and impossible conditions, each with its denominator."""
    trials = summary.get("over_trials") or {}
    if len(trials.get("trials") or ()) >= 2:
        n = f"{len(trials['trials'])} trials"
        head.add_row("core API accuracy, mean ± sd", _mean_sd(trials["core_api_accuracy"]), "", n)
        head.add_row("conversation success, mean ± sd", _mean_sd(trials["conversation_success"]), "", n)
    if "solvable_pass_rate" in summary:
        head.add_row(
            "solvable pass rate",
            pct(summary["solvable_pass_rate"]),
            ci_text(summary.get("solvable_pass_rate_ci95")),
            f"{summary.get('solvable_episodes', 0)} episodes w/o decline turn",
        )
    give_up = summary.get("give_up") or {}
    if give_up.get("decline_turns"):
        head.add_row(
            "give-up rate",
            pct(give_up["rate"]),
            ci_text(give_up.get("ci95")),
            f"{give_up['decline_turns']} decline turns",
        )
        mean = give_up.get("mean_turns_to_give_up")
        head.add_row(
            "turns to give up, mean",
            "n/a" if mean is None else f"{mean:.2f}",
            "",
            f"{give_up['gave_up_episodes']} episodes; {give_up['never_gave_up']} never gave up",
        )
        head.add_row("looping rate", pct(give_up.get("looping_rate")), "", f"{give_up['decline_turns']} decline turns")
        head.add_row(
            "invented-call rate",
            pct(give_up.get("invented_call_rate")),
            "",
            f"{give_up['decline_turns']} decline turns",
        )
    recovery = summary.get("recovery") or {}
    if recovery.get("turns_after_failure"):
        head.add_row(
            "recovery after a failed call",
            pct(recovery["rate"]),
            ci_text(recovery.get("ci95")),
            f"{recovery['turns_after_failure']} turns",
        )


def _answer_rows(head: Table, summary: dict[str, Any]) -> None:
    """Completion, call F1, stuck and out-of-budget rows, where the run has them."""
    if summary.get("answer_facts_turns"):
        head.add_row(
            "answer facts (gold answer stated)",
            pct(summary["answer_facts"]),
            ci_text(summary.get("answer_facts_ci95")),
            f"{summary['answer_facts_turns']} question goals",
        )
    if summary.get("completion_turns"):
        head.add_row(
            "completion (exact answer)",
            pct(summary["completion"]),
            ci_text(summary.get("completion_ci95")),
            f"{summary['completion_turns']} answer turns",
        )
    f1 = summary.get("call_f1") or {}
    if f1.get("episodes"):
        for kind in ("intent", "slot"):
            prf = f1[kind]
            head.add_row(
                f"{kind} F1 (P / R)",
                pct(prf["f1"]),
                f"{pct(prf['precision'])} / {pct(prf['recall'])}",
                f"{f1['counts'][kind][2]} gold {'calls' if kind == 'intent' else 'slots'}",
            )
    stuck = summary.get("stuck") or {}
    if stuck.get("episodes"):
        reasons = ", ".join(f"{k} {v}" for k, v in stuck["by_reason"].items() if v)
        head.add_row("stuck episodes", str(stuck["episodes"]), "", f"{stuck['turns']} turns: {reasons}")
    budget = summary.get("out_of_budget") or {}
    if budget.get("episodes"):
        parts = ", ".join(f"{k} {budget[k]}" for k in ("step_limit", "turn_limit", "timeout") if budget.get(k))
        head.add_row("out-of-budget episodes", str(budget["episodes"]), "", parts)


def _share_table(counts: dict[str, int] | None, title: str, label: str, console: Console) -> None:
    """Counts of wrong turns per label (failure stage, error category), with their share."""
    rows = {k: v for k, v in (counts or {}).items() if v}
    if not rows:
        return
    total = sum(rows.values())
    t = Table(title=title, header_style="bold")
    for column in (label, "turns", "share"):
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
    for column in ("turns", "baseline", "stressed", "degradation", "retention [95% CI]"):
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
