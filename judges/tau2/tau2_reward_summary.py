"""The run summary's τ² numbers (``tau2_reward`` judge): the average reward (pass^1) and pass^k over trials as τ²
reports them, per domain, and each reward component's pass rate. Episodes without a verdict (unscoreable: a provider
or harness failure; or a component that needs a judge model) are left out and counted apart."""

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
        self.not_judged = 0
        self.reasons: Counter[str] = Counter()

    def verdict(self, score: Score) -> Tau2Verdict | None:
        details = score.details
        if "reward_basis" not in details:  # not a τ² task, or an unscoreable episode
            return None
        components = tuple((str(k), v) for k, v in (details.get("components") or {}).items())
        return Tau2Verdict(score.value, str(details.get("domain", "")), components, tuple(score.errors))

    def add(self, verdict: Tau2Verdict, episode: EpisodeFacts) -> None:
        for name, value in verdict.components:
            tally = self.components.setdefault(name, [0, 0, 0])
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
        return [Section.of(JudgeName.TAU2_REWARD, "τ² reward by domain", header, rows)]
