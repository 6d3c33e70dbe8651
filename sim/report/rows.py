"""The headline rows of a run summary, [metric, value, 95% CI, over]: one builder for the terminal, Markdown and
HTML reports, so they show the same numbers with the same denominators; and the number formats they share."""

from __future__ import annotations

from typing import Any


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def ci_text(ci: list[float] | tuple[float, float] | None) -> str:
    return "" if not ci else f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def ratio_ci(ci: list[float] | None) -> str:
    return "" if not ci else f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def mean_sd(spread: dict[str, Any]) -> str:
    if spread.get("mean") is None:
        return "n/a"
    sd = spread.get("sd")
    return pct(spread["mean"]) + ("" if sd is None else f" ± {100 * sd:.1f}")


COVERED = {"core_api_accuracy", "conversation_success", "solvable_pass_rate", "answer_facts", "completion"}
COVERED |= {"ast_accuracy", "state_match", "state_end_match", "error_handling", "error_handling_score"}
COVERED |= {"answer_match", "scored"}
"""Rates with a row of their own; any other rate with a count beside it gets a generic row (a judge added later)."""


def headline_rows(summary: dict[str, Any]) -> list[list[str]]:
    """Every headline number the summary has, each with its interval and denominator."""
    s = summary
    rows = [
        ["core API accuracy", pct(s.get("core_api_accuracy")),
         ci_text(s.get("core_api_accuracy_ci95_clustered") or s.get("core_api_accuracy_ci95")),
         f"{s.get('scored_turns', 0)} goals"],
        ["conversation success", pct(s.get("conversation_success")),
         ci_text(s.get("conversation_success_ci95_clustered") or s.get("conversation_success_ci95")),
         f"{s.get('scored_episodes', 0)} episodes"],
    ]  # fmt: skip
    rows += [[f"pass^{k}", pct(v), "", "tasks"] for k, v in (s.get("pass_hat_k") or {}).items() if k != "1"]
    trials = s.get("over_trials") or {}
    if len(trials.get("trials") or ()) >= 2:
        n = f"{len(trials['trials'])} trials"
        rows.append(["core API accuracy, mean ± sd", mean_sd(trials["core_api_accuracy"]), "", n])
        rows.append(["conversation success, mean ± sd", mean_sd(trials["conversation_success"]), "", n])
    rows += _stress_rows(s) + _answer_rows(s) + _quality_rows(s) + _generic_rows(s)
    if s.get("setup"):
        rows.append(["setup", str(s["setup"]), "", ""])
    rows.append(["episodes finished / planned", f"{s.get('episodes')} / {s.get('planned_episodes', '?')}", "", ""])
    rows.append(["failed episodes (not scored)", str(s.get("failed_episodes", 0)), "", ""])
    return rows


def _stress_rows(s: dict[str, Any]) -> list[list[str]]:
    """Solvable pass rate, giving up on decline turns, recovery after a failed call."""
    rows = []
    if "solvable_pass_rate" in s:
        rows.append(["solvable pass rate", pct(s["solvable_pass_rate"]), ci_text(s.get("solvable_pass_rate_ci95")),
                     f"{s.get('solvable_episodes', 0)} episodes w/o decline turn"])  # fmt: skip
    give_up = s.get("give_up") or {}
    if give_up.get("decline_turns"):
        n = f"{give_up['decline_turns']} decline turns"
        rows.append(["give-up rate", pct(give_up["rate"]), ci_text(give_up.get("ci95")), n])
        mean = give_up.get("mean_turns_to_give_up")
        rows.append(["turns to give up, mean", "n/a" if mean is None else f"{mean:.2f}", "",
                     f"{give_up['gave_up_episodes']} episodes; {give_up['never_gave_up']} never gave up"])  # fmt: skip
        rows.append(["looping rate", pct(give_up.get("looping_rate")), "", n])
        rows.append(["invented-call rate", pct(give_up.get("invented_call_rate")), "", n])
    recovery = s.get("recovery") or {}
    if recovery.get("turns_after_failure"):
        rows.append(["recovery after a failed call", pct(recovery["rate"]), ci_text(recovery.get("ci95")),
                     f"{recovery['turns_after_failure']} turns"])  # fmt: skip
    return rows


def _answer_rows(s: dict[str, Any]) -> list[list[str]]:
    """Answer facts, completion, call F1, stuck and out-of-budget episodes."""
    rows = []
    for key, label, unit in (
        ("answer_facts", "answer facts (gold answer stated)", "question goals"),
        ("completion", "completion (exact answer)", "answer turns"),
    ):
        if s.get(f"{key}_turns"):
            rows.append([label, pct(s.get(key)), ci_text(s.get(f"{key}_ci95")), f"{s[f'{key}_turns']} {unit}"])
    f1 = s.get("call_f1") or {}
    if f1.get("episodes"):
        for kind in ("intent", "slot"):
            prf = f1[kind]
            rows.append([f"{kind} F1 (P / R)", pct(prf["f1"]), f"{pct(prf['precision'])} / {pct(prf['recall'])}",
                         f"{f1['counts'][kind][2]} gold {'calls' if kind == 'intent' else 'slots'}"])  # fmt: skip
    stuck = s.get("stuck") or {}
    if stuck.get("episodes"):
        reasons = ", ".join(f"{k} {v}" for k, v in stuck["by_reason"].items() if v)
        rows.append(["stuck episodes", str(stuck["episodes"]), "", f"{stuck['turns']} goals: {reasons}"])
    budget = s.get("out_of_budget") or {}
    if budget.get("episodes"):
        parts = ", ".join(f"{k} {budget[k]}" for k in ("step_limit", "turn_limit", "timeout") if budget.get(k))
        rows.append(["out-of-budget episodes", str(budget["episodes"]), "", parts])
    return rows


def _quality_rows(summary: dict[str, Any]) -> list[list[str]]:
    """AST checks, state, answers by meaning, error handling: each the run has."""
    rows: list[list[str]] = []
    if summary.get("ast_goals"):
        rows.append(
            ["AST checks (every call clean)", pct(summary["ast_accuracy"]), ci_text(summary.get("ast_accuracy_ci95")),
             f"{summary['ast_goals']} goals"]
        )  # fmt: skip
    if summary.get("state_goals"):
        unavailable = summary.get("state_gold_unavailable") or 0
        rows.append(
            ["state match (world vs gold)", pct(summary["state_match"]),
             ci_text(summary.get("state_match_ci95_clustered")),
             f"{summary['state_goals']} goals at stake" + (f"; {unavailable} episodes no gold" if unavailable else "")]
        )  # fmt: skip
        rows.append(
            ["end state match", pct(summary.get("state_end_match")), "", f"{summary['state_episodes']} episodes"]
        )
        rows.append(
            ["collateral damage", str(summary.get("collateral_damage_episodes", 0)), "",
             f"episodes of {summary['state_episodes']}"]
        )  # fmt: skip
    if summary.get("answer_match_goals"):
        rows.append(
            ["answers by meaning", pct(summary["answer_match"]), ci_text(summary.get("answer_match_ci95")),
             f"{summary['answer_match_goals']} question goals"]
        )  # fmt: skip
    if summary.get("error_handling_goals"):
        score = summary.get("error_handling_score")
        spread = " ".join(f"{k}:{v}" for k, v in (summary.get("error_handling_scores") or {}).items())
        rows.append(
            ["error handling (1-5)", "n/a" if score is None else f"{score:.2f}",
             score_ci(summary.get("error_handling_score_ci95_clustered")),
             f"{summary['error_handling_goals']} goals with a failure ({spread})"]
        )  # fmt: skip
    return rows


def _generic_rows(summary: dict[str, Any]) -> list[list[str]]:
    """Rates with no row above: a value in [0, 1] with a count key beside it."""
    rows = []
    for key, value in summary.items():
        if key in COVERED or isinstance(value, bool) or not isinstance(value, float) or not 0 <= value <= 1:
            continue
        for unit in ("turns", "goals", "episodes"):
            n = summary.get(f"{key}_{unit}")
            if isinstance(n, int) and n:
                ci = summary.get(f"{key}_ci95_clustered") or summary.get(f"{key}_ci95")
                rows.append([key.replace("_", " "), pct(value), ci_text(ci), f"{n} {unit}"])
                break
    return rows


def score_ci(ci: list[float] | None) -> str:
    return "" if not ci else f"[{ci[0]:.2f}, {ci[1]:.2f}]"


CLUSTERED_NOTE = (
    "bootstrap over tasks (a task's goals and trials are not independent) for core API accuracy, conversation "
    "success, state match and error handling; Wilson for the others"
)


def ast_reason_line(summary: dict[str, Any]) -> str | None:
    errors = summary.get("ast_errors") or {}
    return "AST errors: " + ", ".join(f"{k} {v}" for k, v in errors.items()) if errors else None
