"""``squall export --format tau2 RUN ...``: squall runs on τ²'s domains as one τ²-bench leaderboard submission
(``submission.json``: the model, pass^1…pass^4 per domain in percent, the methodology), so a run can be set beside a
published row.

What a submission claims is checked first (ExportError, nothing written): every run is on a ``tau2:`` world, one run
per domain, the same agent and user in each, no stressor (a stressed run is not τ²'s protocol). squall's user
simulator, tools and judge are its own (τ²'s data, not its code), so the submission is ``custom`` and its notes say
what differs: the user, the split, the tasks left unjudged (a reward basis needing a judge model), the trials.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from judges.run.run_summary import RunSummary
from sim.report.export import ExportError

PASS_KS = (1, 2, 3, 4)
"""The pass^k τ²'s leaderboard reports (None where the run has fewer trials)."""


@dataclass(frozen=True)
class DomainRun:
    """One run's τ² numbers, read from its summary."""

    domain: str
    world: str
    summary: RunSummary

    @property
    def tau2(self) -> dict[str, Any]:
        return dict(self.summary.flat().get("tau2_by_domain", {}).get(self.domain) or {})


def _domain_run(run_dir: Path, summary: RunSummary) -> DomainRun:
    identity = summary.identity
    world = (identity.world if identity is not None else None) or ""
    if not world.startswith("tau2:"):
        raise ExportError(f"{run_dir}: world {world or '?'!r} is not one of τ²'s (tau2:airline, tau2:retail, ...)")
    if identity is not None and identity.stressors:
        raise ExportError(
            f"{run_dir}: stressed ({', '.join(identity.stressors)}): a τ² submission is of unstressed runs only"
        )
    domain = world.split(":")[1]
    found = DomainRun(domain, world, summary)
    if not found.tau2:
        raise ExportError(f"{run_dir}: no tau2_reward verdict in its summary (was the tau2_reward judge run?)")
    return found


def _same(runs: Sequence[DomainRun], what: str) -> str:
    values = {getattr(r.summary.identity, what, None) for r in runs}
    if len(values) > 1:
        shown = ", ".join(sorted(map(str, values)))
        raise ExportError(f"the runs differ in {what} ({shown}): one submission is one setup")
    return str(next(iter(values)))


def _pct(value: float | None) -> float | None:
    return None if value is None else round(100 * value, 1)


def cost_per_task(summary: RunSummary) -> dict[str, float]:
    """USD per task by role (agent, user, judge...), the judge's apart as τ² users asked for it."""
    tasks = max(1, int(summary.flat().get("tau2_tasks") or 0))
    return {role: round(u.cost / tasks, 6) for role, u in sorted(summary.usage_by_role.items()) if u.cost}


def tau2_submission(run_dirs: Sequence[Path], summaries: Sequence[RunSummary]) -> dict[str, Any]:
    """The leaderboard submission of ``run_dirs`` (each with its summary). ExportError names what is wrong."""
    runs = [_domain_run(d, s) for d, s in zip(run_dirs, summaries, strict=True)]
    domains = [r.domain for r in runs]
    if len(set(domains)) < len(domains):
        raise ExportError(f"two runs of one domain ({', '.join(domains)}): give one run per domain")
    agent, user = _same(runs, "model"), _same(runs, "user")
    results = {
        r.domain: {f"pass_{k}": _pct((r.tau2.get("pass_hat_k") or {}).get(str(k))) for k in PASS_KS} for r in runs
    }
    notes = [
        "Run with squall (its own tools, user simulator and reward judge written from τ²'s documented behaviour; "
        f"τ²'s tasks, policies and databases from inspect-evals {_version('inspect-evals')}).",
        f"User: squall's {user}.",
    ]
    for r in runs:
        flat = r.summary.flat()
        notes.append(
            f"{r.world}: {r.tau2.get('tasks', 0)} tasks judged, {flat.get('tau2_not_judged', 0)} episodes not judged "
            f"(a reward component needing a judge model), {r.summary.identity.trials if r.summary.identity else '?'} "
            f"trials, run {r.summary.run_id}."
        )
    today = datetime.now(UTC).date().isoformat()
    created = [r.summary.identity.created_at for r in runs if r.summary.identity and r.summary.identity.created_at]
    return {
        "model_name": agent,
        "model_organization": None,
        "submitting_organization": None,
        "submission_date": today,
        "submission_type": "custom",
        "trajectories_available": True,
        "results": results,
        "methodology": {
            "evaluation_date": (min(created) if created else today)[:10],
            "tau2_bench_version": None,
            "user_simulator": user,
            "notes": " ".join(notes),
            "verification": {
                "modified_prompts": True,
                "omitted_questions": any(_omits_tasks(r) for r in runs),
                "details": "squall's user simulator and judge, not τ²'s scaffold; trajectories are squall run folders",
            },
        },
    }


def _omits_tasks(run: DomainRun) -> bool:
    """Whether the run played fewer tasks than τ² runs in its domain (a split, --limit, --task)."""
    from worlds.tau2 import listing  # the task files' counts: no database loaded

    counts = {row["name"]: row["conversations"] for row in listing()}
    domain_tasks = counts.get(f"tau2:{run.domain}") or 0
    trials = max(1, (run.summary.identity.trials if run.summary.identity else None) or 1)
    return (run.summary.planned_episodes or 0) // trials < domain_tasks


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "(not installed)"
