"""Headline rows for state, error handling and AST checks: one builder for the terminal, Markdown and HTML
reports, so they say the same thing with the same denominators."""

from __future__ import annotations

from typing import Any

from sim.report import ci_text, pct


def quality_rows(summary: dict[str, Any]) -> list[list[str]]:
    """[metric, value, 95% CI, over] for each of these the run has."""
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


def score_ci(ci: list[float] | None) -> str:
    return "" if not ci else f"[{ci[0]:.2f}, {ci[1]:.2f}]"


CLUSTERED_NOTE = (
    "bootstrap over tasks (a task's goals and trials are not independent) for core API accuracy, conversation "
    "success, state match and error handling; Wilson for the others"
)


def ast_reason_line(summary: dict[str, Any]) -> str | None:
    errors = summary.get("ast_errors") or {}
    return "AST errors: " + ", ".join(f"{k} {v}" for k, v in errors.items()) if errors else None
