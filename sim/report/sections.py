"""The report of a run summary as a list of ``Section``s, built here once: the terminal, Markdown and HTML renderers
lay out the same tables with the same numbers and denominators.

The headline rows and the judges' own tables come from the registered judges (``judges.registry``), each from its
keys; the run's own tables (faults, stressors, users, usage) are built here from the ``RunSummary`` fields."""

from __future__ import annotations

from typing import Any

from judges.bfcl.error_kinds import KINDS as ERROR_KINDS
from judges.common.summary_view import Section, ci_text, mean_sd, pct, ratio_ci
from judges.names import JudgeName
from judges.registry import summaries
from judges.run.agent_loops import loops_row
from judges.run.run_summary import RunSummary
from sim.core.model_io import OUTPUT_TRUNCATED
from sim.report.unscored import causes_text, unscored_notes
from sim.report.view_sections import backup_path_sections, complexity_user_sections, incremental_sections

DETAILED_TYPES = ("drift", "perturb")
"""Stressor types whose operators and scenarios get a row each beside their baseline."""
HEADLINE_COLUMNS = ("metric", "value", "95% CI", "over")
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
STRESS_COLUMNS = ("goals", "before", "after", "degradation", "retention [95% CI]")
HURT_TITLE = "stressors stacked: which scenario hurt (the goals it fired on vs its tasks' other goals)"
HURT_COLUMNS = ("scenario", "gap", "tasks", "touched", "acc. touched", "untouched", "acc. untouched")
"""Headers no wider than their cells: a header wider than its column makes rich fold the first one."""
HURT_NOTES = (
    "touched: the goals the scenario fired on; untouched: the other goals of every episode of the tasks where it "
    "fired. acc.: core API accuracy per goal [Wilson 95% CI]. gap = untouched − touched, in points; positive: the "
    "goals it fired on did worse.",
    "Observational, not causal: the goals a scenario touches are not a random sample (they call the tools it "
    "targets, which may be harder anyway), and other scenarios may have fired on the same goals. An isolated run "
    "(--stressor-mode isolated) measures each scenario against an unstressed baseline.",
)


def page_title(summary: RunSummary) -> str:
    title = f"squall run {summary.run_id or ''}".rstrip()
    if summary.identity is not None and summary.identity.label:
        title += f": {summary.identity.label}"
    if summary.incomplete:
        title += f" (INCOMPLETE score set: {summary.judged_episodes} of {summary.episodes} episodes judged)"
    return title


def identity_line(summary: RunSummary) -> str | None:
    """What the run ran, on one line (agent, world, user, stressors, setup, seed, trials, score set, version)."""
    return summary.identity.header_line() if summary.identity is not None else None


def incomplete_warning(summary: RunSummary) -> str | None:
    """What a report says first when its score set lacks verdicts: its numbers are not the run's."""
    if not summary.incomplete:
        return None
    return (
        f"warning: score set {summary.score_set or ''} is incomplete: {summary.judged_episodes} of {summary.episodes} "
        "stored episodes judged (judging was interrupted); every number here covers those only. Complete it with "
        "`squall score RUN_DIR --resume` (or `squall run --resume` for the run's own set)."
    )


def headline_rows(summary: RunSummary) -> list[list[str]]:
    """Every headline number the summary has, each with its interval and denominator: the judges' rows in
    registry order, then the run's own."""
    flat = summary.flat()
    trials = summary.over_trials.get("trials") or []
    rows: list[list[str]] = []
    for part in summaries():
        own = part.rows(flat)
        spread = summary.over_trials.get(part.judge)
        if len(trials) >= 2 and spread:  # beside the judge's own number
            own.insert(min(1, len(own)), [f"{part.label}, mean ± sd", mean_sd(spread), "", f"{len(trials)} trials"])
        rows += own
    budget = summary.out_of_budget
    if budget.get("episodes"):
        parts = ", ".join(f"{k} {budget[k]}" for k in ("step_limit", "turn_limit", "timeout") if budget.get(k))
        rows.append(["out-of-budget episodes", str(budget["episodes"]), "", parts])
    if summary.setup and summary.identity is None:  # else the identity line above the table says it
        rows.append(["setup", summary.setup, "", ""])
    if (loops := loops_row(summary.agent_loops)) is not None:
        rows.append(loops)
    rows.append(["episodes finished / planned", f"{summary.episodes} / {summary.planned_episodes}", "", ""])
    if summary.incomplete:
        rows.append(["episodes judged / finished", f"{summary.judged_episodes} / {summary.episodes}", "", "INCOMPLETE"])
    rows.append(["failed episodes (not scored)", str(summary.failed_episodes), "", causes_text(summary)])
    if summary.cache_misses:
        rows.append(["cache misses", str(summary.cache_misses), "", "calls off the recorded path (episodes scored)"])
    return rows


def build_sections(summary: RunSummary) -> list[Section]:
    """Every table of the report, in order."""
    flat = summary.flat()
    parts = summaries()
    warning = incomplete_warning(summary)
    notes = [
        *([warning] if warning else []),
        *unscored_notes(summary),
        *(note for part in parts for note in part.notes(flat)),
    ]
    if quiet := [part.label for part in parts if not part.rows(flat) and not part.sections(flat)]:
        notes.append(f"not shown, nothing here for them to judge (this world, users or settings): {', '.join(quiet)}")
    sections = [Section.of("headline", "headline", HEADLINE_COLUMNS, headline_rows(summary), notes)]
    sections += _faults(summary)
    sections += _stressors(summary.stressors)
    sections += _stacking(summary.stacking)
    sections += incremental_sections(summary.incremental)
    sections += backup_path_sections(summary.backup_paths)
    sections += _users(summary.users)
    sections += complexity_user_sections(summary.complexity_by_user)
    for part in parts:
        sections += part.sections(flat)
    sections += _usage(summary)
    return sections


def _faults(summary: RunSummary) -> list[Section]:
    rows = [(f"termination: {k}", str(v)) for k, v in sorted(summary.terminations.items())]
    rows += [(f"fault: {k}", str(v)) for k, v in sorted(summary.faults_by_kind.items())]
    if not rows:
        return []
    rows += [(f"  {k}", str(v)) for k, v in summary.error_codes.items()]
    cut = summary.error_codes.get(OUTPUT_TRUNCATED)
    notes = [
        f"{OUTPUT_TRUNCATED}: {cut} agent {_replies(cut)} cut at an output limit (the cap sent, or the provider's own "
        "when none was): not counted as malformed calls; --max-tokens or an endpoint's max_output_tokens set the cap"
    ] if cut else []  # fmt: skip
    return [Section.of("faults", "terminations and faults", ("kind", "count"), rows, notes)]


METRIC_LABELS = {JudgeName.BFCL_AST: "BFCL AST verdict", JudgeName.CORE_API_ACCURACY: "core API accuracy"}
CORE_COLUMN = "core API"
"""Beside a headline metric that is not core API accuracy (BFCL's AST verdict): squall's own, on the same goals."""


def _stress_cells(row: dict[str, Any], core: bool = False) -> tuple[str, ...]:
    retention = "-" if row.get("retention") is None else f"{row['retention']:.2f}"
    if row.get("retention_ci95"):
        retention += f" {ratio_ci(row['retention_ci95'])}"
    beside = row.get("core") or {}
    return (
        str(row.get("turns")),
        pct(row.get("before")),
        pct(row.get("after")),
        pct(row.get("degradation")),
        retention,
        *([f"{pct(beside.get('before'))} → {pct(beside.get('after'))}" if beside else "-"] if core else []),
    )


def _stressors(stressors: dict[str, Any] | None) -> list[Section]:
    """Isolated stressors: by type; the detailed types' operators with their scenarios; the other scenarios."""
    if not stressors:
        return []
    if stressors.get("unavailable"):
        return [Section.of("stressors", "stressors, isolated", (), (), [str(stressors["unavailable"])])]
    left = sum((stressors.get("unpaired_episodes") or {}).values())
    notes = [f"{left} stressed episode(s) left out: failed, or their baseline failed or is missing"] if left else []
    metric = str(stressors.get("metric") or JudgeName.CORE_API_ACCURACY)
    core = metric != JudgeName.CORE_API_ACCURACY
    columns = (*STRESS_COLUMNS, *([CORE_COLUMN] if core else []))
    label = METRIC_LABELS.get(metric, metric)
    out = [
        Section.of(
            "stressors",
            f"stressors, isolated ({label}): each alone vs the unstressed baseline, on the goals it can touch",
            ("complexity type", *columns),
            [(r["name"], *_stress_cells(r, core)) for r in stressors.get("by_type") or ()],
            notes,
        )
    ]
    operators = [r for r in stressors.get("by_operator") or () if r.get("type") in DETAILED_TYPES]
    scenarios = stressors.get("by_scenario") or []
    detailed = [r for r in scenarios if r.get("type") in DETAILED_TYPES]
    rows: list[tuple[str, ...]] = []
    for kind in DETAILED_TYPES:
        for op in (r for r in operators if r["type"] == kind):
            rows.append((f"{kind}: {op['name']} ({op['scenarios']})", *_stress_cells(op, core)))
            for row in (r for r in detailed if r["type"] == kind and r.get("op") == op["name"]):
                rows.append((f"  {row['name'].removeprefix(kind + '.')}", *_stress_cells(row, core)))
        rows += [(r["name"], *_stress_cells(r, core)) for r in detailed if r["type"] == kind and "op" not in r]
    if rows:
        title = f"per operator and scenario ({label}): baseline (before) vs stressed (after)"
        out.append(Section.of("stressor_operators", title, ("operator (scenarios) / scenario", *columns), rows))
    others = [(r["name"], *_stress_cells(r, core)) for r in scenarios if r.get("type") not in DETAILED_TYPES]
    if others:
        out.append(Section.of("stressor_scenarios", f"per scenario ({label})", ("scenario", *columns), others))
    return out + _error_kinds(stressors.get("errors") or [], label)


def _error_kinds(rows: list[dict[str, Any]], label: str) -> list[Section]:
    """The failures of each condition by error type (count and share of the condition's failures); only the types
    the run met get a column."""
    kinds = [k for k in (*ERROR_KINDS, "unknown") if any(r["kinds"].get(k) for r in rows)]
    if not rows:
        return []
    table = [
        (
            r["condition"],
            str(r["goals"]),
            str(r["failed"]),
            str(r["new_failures"]),
            *(f"{n} ({n / r['failed']:.0%})" if (n := r["kinds"].get(k, 0)) else "-" for k in kinds),
        )
        for r in rows
    ]
    notes = [
        f"failed: goals below 1 on the {label}; new: failed goals that passed in their baseline episode. Each failed "
        "goal has one type (from the AST judges' codes: judges/bfcl/error_kinds.py); share of the condition's failures."
    ]
    title = "errors per condition: why the goals failed"
    return [Section.of("stressor_errors", title, ("condition", "goals", "failed", "new", *kinds), table, notes)]


def _stacking(stacking: dict[str, Any] | None) -> list[Section]:
    rows = [
        (r["fired"], str(r["goals"]), pct(r["accuracy"]), ci_text(r["ci95"]))
        for r in (stacking or {}).get("by_fired") or ()
    ]
    if not rows:
        return []
    title = "stressors stacked: goal accuracy by scenarios fired on the goal"
    return [Section.of("stacking", title, ("fired", "goals", "accuracy", "95% CI"), rows), *_hurt(stacking)]


def _with_ci(side: dict[str, Any]) -> str:
    return f"{pct(side['accuracy'])} {ci_text(side['ci95'])}".rstrip()


def _hurt(stacking: dict[str, Any] | None) -> list[Section]:
    """Which stacked scenario hurt: accuracy on the goals it fired on vs the same tasks' other goals, most
    harmful first (the rows come sorted), with the caveat that this is a comparison, not an experiment."""
    rows = [
        (
            r["scenario"],
            "n/a" if r["gap"] is None else f"{100 * r['gap']:+.1f} pp",
            str(r["tasks"]),
            str(r["touched"]["goals"]),
            _with_ci(r["touched"]),
            str(r["untouched"]["goals"]),
            _with_ci(r["untouched"]),
        )
        for r in (stacking or {}).get("by_scenario") or ()
    ]
    if not rows:
        return []
    return [Section.of("stacking_scenarios", HURT_TITLE, HURT_COLUMNS, rows, HURT_NOTES)]


def user_cells(row: dict[str, Any], baseline: str | None) -> list[str]:
    """One user's row of the by-user table, in ``USER_COLUMNS`` order."""
    kept = row.get("retention")
    retention = "baseline" if row["user"] == baseline else "—"
    if kept and kept.get("ratio") is not None:
        retention = f"{kept['ratio']:.3f} {ratio_ci(kept.get('ci95'))}".strip()
    return [
        row["user"],
        str(row["goals_scored"]),
        pct(row["goal_accuracy"]),
        retention,
        pct(row[JudgeName.CONVERSATION_SUCCESS]),
        "—" if row["turns_per_goal"] is None else f"{row['turns_per_goal']:.2f}",
        f"{pct(row[JudgeName.CLARIFICATION])} of {row['withheld_goals']}" if row["withheld_goals"] else "—",
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


def _users(users: dict[str, Any] | None) -> list[Section]:
    """Per user style: goal accuracy, retention against the explicit user, turns per goal, asking for withheld
    values, and the simulator's own faults apart from the agent's."""
    if not users:
        return []
    rows = [user_cells(r, users.get("baseline")) for r in users.get("by_user") or ()]
    line = coreferential_line(users)
    title = "by user (same tasks and seeds; retention vs the explicit user, paired)"
    return [Section.of("users", title, USER_COLUMNS, rows, [line] if line else [])]


def _usage(summary: RunSummary) -> list[Section]:
    """Requests, tokens and cost per role; cached input, reasoning tokens and replies cut at the output limit as
    columns only where the run has any (older summaries and providers that report none keep their table)."""
    u = summary.usage
    if not u.requests:
        return []
    roles = {role: r for role, r in summary.usage_by_role.items() if r.requests}
    details = [
        (name, key)
        for name, key in (("cached in", "cached_input_tokens"), ("reasoning", "reasoning_tokens"), ("cut", "truncated"))
        if getattr(u, key) or any(getattr(r, key) for r in roles.values())
    ]
    rows = [
        (role, str(r.requests), f"{r.input_tokens:,}", f"{r.output_tokens:,}", f"${r.cost:.4f}",
         *(f"{getattr(r, key):,}" for _, key in details))
        for role, r in roles.items()
    ]  # fmt: skip
    cached = f" ({u.cached_input_tokens:,} cached)" if u.cached_input_tokens else ""
    reasoning = f" ({u.reasoning_tokens:,} reasoning)" if u.reasoning_tokens else ""
    cut = f", {u.truncated:,} {_replies(u.truncated)} cut at the output limit" if u.truncated else ""
    note = (
        f"LLM usage: {u.requests} requests, {u.input_tokens} in{cached} / {u.output_tokens} out tokens{reasoning}"
        f"{cut}, {u.retries} retries, working {u.working_s:.1f}s, waiting {u.waiting_s:.1f}s, cost ${u.cost:.4f}"
    )
    columns = ("role", "requests", "in", "out", "cost", *(name for name, _ in details)) if rows else ()
    return [Section.of("usage", "usage per role" if rows else "usage", columns, rows, [note])]


def _replies(count: int) -> str:
    return "reply" if count == 1 else "replies"
