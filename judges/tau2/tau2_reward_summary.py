"""The run summary's τ² numbers (``tau2_reward`` judge): the average reward (pass^1) and pass^k over trials as τ²
reports them, per domain, and each reward component's pass rate, over the run and per task. Episodes without a
verdict (unscoreable: a provider or harness failure; or a component that needs a judge model) are left out of the
reward and counted apart."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any, NamedTuple

from judges.common.reduction import EpisodeFacts, Reduction, RunFacts
from judges.common.stats import pass_hat_k, rate
from judges.common.summary_view import Section, pct
from judges.names import JudgeName
from sim.core import Score

TAU2_NOTE = (
    "τ² reward is τ²-bench's own number (the product of the task's reward basis: DB, COMMUNICATE, ACTION...), "
    "computed by squall's judge from the trace; pass^k as τ² reports it, over the trials of each task."
)


class Tau2Verdict(NamedTuple):
    reward: float | None
    domain: str
    components: tuple[tuple[str, float | None], ...]
    reasons: tuple[str, ...]


class Tau2RewardSummary(Reduction[Tau2Verdict]):
    judge = JudgeName.TAU2_REWARD
    label = "τ² reward"

    def __init__(self) -> None:
        self.by_task: dict[str, list[float]] = {}
        self.by_domain: dict[str, dict[str, list[float]]] = {}
        self.components: dict[str, list[int]] = {}  # component -> [passed, judged, not judged]
        self.task_components: dict[str, dict[str, list[int]]] = {}  # task -> the same tallies, its own
        self.not_judged = 0
        self.reasons: Counter[str] = Counter()

    def verdict(self, score: Score) -> Tau2Verdict | None:
        details = score.details
        if "reward_basis" not in details:  # not a τ² task, or an unscoreable episode
            return None
        components = tuple((str(k), v) for k, v in (details.get("components") or {}).items())
        return Tau2Verdict(score.value, str(details.get("domain", "")), components, tuple(score.errors))

    def add(self, verdict: Tau2Verdict, episode: EpisodeFacts) -> None:
        own = self.task_components.setdefault(episode.task_id, {})
        for name, value in verdict.components:
            for tally in (self.components.setdefault(name, [0, 0, 0]), own.setdefault(name, [0, 0, 0])):
                if value is None:
                    tally[2] += 1
                else:
                    tally[0] += int(value == 1.0)
                    tally[1] += 1
        self.reasons.update(verdict.reasons)
        if verdict.reward is None:
            self.not_judged += 1
            return
        self.by_task.setdefault(episode.task_id, []).append(verdict.reward)
        self.by_domain.setdefault(verdict.domain, {}).setdefault(episode.task_id, []).append(verdict.reward)

    def result(self, run: RunFacts) -> dict[str, Any]:
        if not self.by_task and not self.not_judged:
            return {}
        episodes = sum(len(v) for v in self.by_task.values())
        total = sum(sum(v) for v in self.by_task.values())
        return {
            JudgeName.TAU2_REWARD: rate(total, episodes),
            "tau2_episodes": episodes,
            "tau2_tasks": len(self.by_task),
            "tau2_not_judged": self.not_judged,
            "tau2_pass_hat_k": {str(k): pass_hat_k(self.by_task, k) for k in range(1, run.trials + 1)},
            "tau2_by_domain": {
                domain: {
                    "reward": rate(sum(sum(v) for v in tasks.values()), sum(len(v) for v in tasks.values())),
                    "tasks": len(tasks),
                    "pass_hat_k": {str(k): pass_hat_k(tasks, k) for k in range(1, run.trials + 1)},
                }
                for domain, tasks in sorted(self.by_domain.items())
            },
            "tau2_components": {
                name: {"pass_rate": rate(p, n), "judged": n, "not_judged": nj}
                for name, (p, n, nj) in sorted(self.components.items())
            },
            "tau2_failures": dict(self.reasons.most_common()),
            "tau2_per_task": {
                task: {
                    "reward": rate(sum(self.by_task.get(task, [])), len(self.by_task.get(task, []))),
                    "trials": len(self.by_task.get(task, [])),
                    "components": {name: rate(p, n) for name, (p, n, _) in sorted(tallies.items())},
                }
                for task, tallies in sorted(self.task_components.items())
            },
        }

    @staticmethod
    def rows(summary: Mapping[str, Any]) -> list[list[str]]:
        s = summary
        if not s.get("tau2_episodes") and not s.get("tau2_not_judged"):
            return []
        rows = [
            ["τ² reward (pass^1, τ²'s)", pct(s.get(JudgeName.TAU2_REWARD)), "", f"{s.get('tau2_episodes', 0)} episodes"]
        ]
        rows += [[f"τ² pass^{k}", pct(v), "", "tasks"] for k, v in (s.get("tau2_pass_hat_k") or {}).items() if k != "1"]
        for name, c in (s.get("tau2_components") or {}).items():
            rows.append([f"τ² {name}", pct(c.get("pass_rate")), "", f"{c.get('judged', 0)} judged"])
        if s.get("tau2_not_judged"):
            rows.append(["τ² not judged (needs a judge model)", str(s["tau2_not_judged"]), "", "episodes"])
        return rows

    @staticmethod
    def notes(summary: Mapping[str, Any]) -> list[str]:
        if not summary.get("tau2_episodes") and not summary.get("tau2_not_judged"):
            return []
        failures = summary.get("tau2_failures") or {}
        failed = ["τ² failures: " + ", ".join(f"{k} {v}" for k, v in failures.items())] if failures else []
        return [TAU2_NOTE, *failed]

    @staticmethod
    def sections(summary: Mapping[str, Any]) -> list[Section]:
        domains = summary.get("tau2_by_domain") or {}
        if not domains:
            return []
        ks = sorted({k for d in domains.values() for k in (d.get("pass_hat_k") or {})}, key=int)
        rows = [
            (name, pct(d.get("reward")), *(pct((d.get("pass_hat_k") or {}).get(k)) for k in ks), str(d.get("tasks")))
            for name, d in domains.items()
        ]
        header = ("domain", "reward", *(f"pass^{k}" for k in ks), "tasks")
        return [Section.of(JudgeName.TAU2_REWARD, "τ² reward by domain", header, rows), *_per_task(summary)]


TASK_SECTION = "tau2_tasks"
NOT_IN_BASIS = "–"


def _per_task(summary: Mapping[str, Any]) -> list[Section]:
    """Each task's reward and its components' pass rates over its trials ('–': not in the task's reward basis;
    'not judged': in it, but nothing judged it, e.g. NL_ASSERTION without a judge model)."""
    tasks = summary.get("tau2_per_task") or {}
    if not tasks:
        return []
    names = sorted({c for t in tasks.values() for c in t.get("components") or {}})

    def cell(components: Mapping[str, Any], name: str) -> str:
        if name not in components:
            return NOT_IN_BASIS
        return "not judged" if components[name] is None else pct(components[name])

    rows = [
        (task, str(t.get("trials")), pct(t.get("reward")), *(cell(t.get("components") or {}, n) for n in names))
        for task, t in tasks.items()
    ]
    note = f"Each component's pass rate over the task's trials; {NOT_IN_BASIS}: not in the task's reward basis."
    return [Section.of(TASK_SECTION, "τ² reward per task", ("task", "trials", "reward", *names), rows, [note])]


def component_rows(details: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """One episode's τ² verdict as the viewer's episode page shows it: each component of the task's reward basis,
    its verdict (pass, FAIL, not judged) and what failed it (the actions missing, the assertions failed, the facts
    unsaid, the database paths that differ); [] for a score that is not a τ² verdict."""
    nl_failed = [f"{a['assertion']}: {a['reason']}" for a in details.get("nl_assertions") or () if not a.get("met")]
    paths = [str(p) for p in details.get("db_paths") or ()]
    if int(details.get("db_differing_paths") or 0) > len(paths):
        paths.append(f"… {details['db_differing_paths']} paths in all")
    why = {
        "ACTION": details.get("missing_actions") or [],
        "COMMUNICATE": details.get("missing_info") or [],
        "ENV_ASSERTION": details.get("failed_assertions") or [],
        "DB": paths,
        "NL_ASSERTION": nl_failed,
    }
    return [
        (name, "not judged" if v is None else "pass" if v == 1.0 else "FAIL", "; ".join(map(str, why.get(name, []))))
        for name, v in (details.get("components") or {}).items()
    ]
