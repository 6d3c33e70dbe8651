"""The report's tables of the views by condition (issue 39): accuracy as stressors are added one by one
(stressor-mode incremental), and accuracy by complexity × user style. Built from the ``RunSummary`` fields, as the
other run tables in ``sim.report.sections``; the terminal, Markdown and HTML reports all lay them out."""

from __future__ import annotations

from typing import Any

from judges.common.summary_view import Section, ci_text, pct

INCREMENTAL_COLUMNS = ("stressors", "goals", "accuracy [95% CI]", "drop [95% CI]")
INCREMENTAL_NOTES = (
    "Every task ran unstressed and under each prefix of the stressor items, in the order given, with the same seeds. "
    "accuracy: core API accuracy per goal (declining right on a goal a stressor made impossible), 95% interval from "
    "a bootstrap over tasks. drop: the row before minus this row, in points, on the goals both scored, with a paired "
    "task bootstrap interval; positive: adding the item cost accuracy.",
)


def incremental_sections(incremental: dict[str, Any] | None) -> list[Section]:
    rows = [
        (
            r["stressors"],
            str(r["goals"]),
            f"{pct(r['accuracy'])} {ci_text(r['ci95'])}".rstrip(),
            _drop_cell(r.get("drop")),
        )
        for r in (incremental or {}).get("rows") or ()
    ]
    if not rows:
        return []
    title = "stressors added one by one (incremental): accuracy per prefix and the drop from the row before"
    return [Section.of("incremental", title, INCREMENTAL_COLUMNS, rows, INCREMENTAL_NOTES)]


def _drop_cell(drop: dict[str, Any] | None) -> str:
    if drop is None:
        return "—"
    value = drop.get("value")
    return "n/a" if value is None else f"{100 * value:+.1f} pp {ci_text(drop.get('ci95'))}".rstrip()


def complexity_user_sections(grid: dict[str, Any] | None) -> list[Section]:
    """Rows: the run's stressor conditions; columns: its users; cells: accuracy (goals)."""
    if not grid or not grid.get("rows"):
        return []
    users = list(grid.get("users") or ())
    rows = [(r["complexity"], *(_cell(r["cells"].get(u) or {}) for u in users)) for r in grid["rows"]]
    notes = [
        "cell: core API accuracy per goal (declining right on a goal a stressor made impossible) [95% interval, "
        "bootstrap over tasks] (goals); every user played every task with the same seeds."
    ]
    if grid.get("mode") == "isolated":
        notes.append("isolated: a type's row counts the goals its scenarios touch; none counts every goal.")
    title = f"accuracy by complexity × user style ({grid.get('mode')})"
    return [Section.of("complexity_by_user", title, ("complexity", *users), rows, notes)]


def _cell(cell: dict[str, Any]) -> str:
    if not cell.get("goals"):
        return "—"
    return f"{pct(cell['accuracy'])} {ci_text(cell.get('ci95'))} ({cell['goals']})".replace("  ", " ")


def backup_path_sections(paths: dict[str, Any] | None) -> list[Section]:
    """Recovery by the lengths of the primary and backup paths of the goals a backup outage cut."""
    if not paths or not paths.get("by_length"):
        return []
    rows = [(r["extra"], str(r["goals"]), str(r["fired"]), _rate(r["recovery"], r["ci95"])) for r in paths["by_length"]]
    mean = paths["mean"]
    notes = [
        f"mean over the {mean['goals']} cut goals: primary path {mean['primary']:.2f} calls, backup path "
        f"{mean['backup']:.2f} ({mean['extra_calls']:+.2f}); recovery {_rate(mean['recovery'], mean['ci95'])} of "
        f"{mean['fired']} goal runs where the outage fired.",
        "backup path: calls beyond the primary path's; fired: goal runs where the agent called the function that "
        "went down; recovered: right among those (core API accuracy) [Wilson 95% CI]. Per goal in summary.json "
        "(backup_paths).",
    ]
    columns = ("backup path", "goal runs", "fired", "recovered [95% CI]")
    return [Section.of("backup_paths", "backup outage: recovery by backup-path length", columns, rows, notes)]


def _rate(value: float | None, ci: Any) -> str:
    return f"{pct(value)} {ci_text(ci)}".rstrip()
