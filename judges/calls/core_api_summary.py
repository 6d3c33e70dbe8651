"""The run summary's headline numbers: core API accuracy and conversation success, summed in one pass.

- core API accuracy (``core_api_accuracy`` judge): right goals over scored goals, Wilson and task-cluster bootstrap
  intervals, per trial; recovery: goals in which the agent saw a failed tool result, and were still right;
- conversation success (``conversation_success`` judge): successful episodes, Wilson and task-cluster intervals,
  per task, pass^k, per trial; the solvable pass rate: success over episodes whose task (as run) has no decline
  goal.
Per episode only a few numbers are kept: goal sets are bit masks.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, NamedTuple

from judges.common.reduction import EpisodeFacts, Reduction, RunFacts
from judges.common.stats import cluster_bootstrap, rate, wilson
from judges.common.summary_view import Section, ci_text, pct
from judges.common.trace_view import NO_EXECUTABLE_GOLD, NO_WORLD_CALLS
from judges.names import JudgeName
from sim.core import Score

CLUSTERED_NOTE = (
    "bootstrap over tasks (a task's goals and trials are not independent) for core API accuracy, conversation "
    "success, state match and error handling; Wilson for the others"
)


NO_GOLD_KEY = "tasks_without_executable_gold"
NO_GOLD_SUFFIX = f":{NO_EXECUTABLE_GOLD}"
NO_WORLD_CALLS_KEY = "episodes_without_world_calls"
NO_WORLD_CALLS_TEXT = "n/a: the agent writes SQL (sql:), it calls no world function"


def no_gold_text(tasks: int) -> str:
    if tasks == 1:
        return "1 task has no executable gold: its gold calls lack required arguments"
    return f"{tasks} tasks have no executable gold: their gold calls lack required arguments"


class CoreVerdict(NamedTuple):
    """What the summary keeps of a ``core_api_accuracy`` score."""

    total: float  # sum of the per-goal values
    goals: int  # goals with a value
    scored: int  # bit g: goal g has a value
    right: int  # bit g: goal g is right
    no_gold: bool = False  # a goal's gold lacks the arguments its tools require: n/a, not wrong
    no_world_calls: bool = False  # the agent calls no world function (it writes SQL): n/a, not wrong


def goal_masks(per_goal: list[float | None]) -> tuple[int, int]:
    """(scored, right) goal sets of a per-goal score as bit masks (bit g = goal g)."""
    scored = right = 0
    for g, v in enumerate(per_goal):
        if v is not None:
            scored |= 1 << g
            if v >= 1.0:
                right |= 1 << g
    return scored, right


class CoreApiAccuracySummary(Reduction[CoreVerdict]):
    judge = JudgeName.CORE_API_ACCURACY
    label = "core API accuracy"

    def __init__(self) -> None:
        self.total, self.goals = 0.0, 0
        self.by_task: dict[str, list[float]] = {}  # task -> [right goals, scored goals]
        self.by_trial: dict[int, list[float]] = {}  # trial -> [right goals, scored goals]
        self.recovery = [0, 0]  # right goals after a failure, scored goals that saw a failure
        self.no_gold: set[str] = set()  # tasks with a goal whose gold cannot be executed
        self.no_world_calls = 0  # episodes whose agent calls no world function

    def verdict(self, score: Score) -> CoreVerdict:
        values = [v for v in score.per_goal if v is not None]
        no_gold = any(e.endswith(NO_GOLD_SUFFIX) for e in score.errors)
        return CoreVerdict(
            sum(values), len(values), *goal_masks(score.per_goal), no_gold, NO_WORLD_CALLS in score.errors
        )

    def add(self, verdict: CoreVerdict, episode: EpisodeFacts) -> None:
        self.total, self.goals = self.total + verdict.total, self.goals + verdict.goals
        if verdict.no_gold:
            self.no_gold.add(episode.task_id)
        self.no_world_calls += verdict.no_world_calls
        if verdict.goals:
            acc = self.by_task.setdefault(episode.task_id, [0.0, 0.0])
            acc[0], acc[1] = acc[0] + verdict.total, acc[1] + verdict.goals
        row = self.by_trial.setdefault(episode.trial, [0.0, 0.0])
        row[0] += verdict.total
        row[1] += verdict.goals
        saw_failure = episode.failed_goals & verdict.scored
        self.recovery[0] += (saw_failure & verdict.right).bit_count()
        self.recovery[1] += saw_failure.bit_count()

    def per_trial(self, trial: int) -> float | None:
        right, goals = self.by_trial.get(trial, (0.0, 0.0))
        return rate(right, int(goals))

    def result(self, run: RunFacts) -> dict[str, Any]:
        recovered, after_failure = self.recovery
        return {
            JudgeName.CORE_API_ACCURACY: rate(self.total, self.goals),
            "core_api_accuracy_ci95": wilson(self.total, self.goals),
            "scored_turns": self.goals,
            # Intervals that respect clustering: tasks resampled whole (their goals and trials are not
            # independent). Sorted by task: the store's episode order differs between executors, the interval must
            # not.
            "core_api_accuracy_ci95_clustered": cluster_bootstrap(
                [(self.by_task[t][0], self.by_task[t][1]) for t in sorted(self.by_task)]
            ),
            "tasks_scored": len(self.by_task),
            "recovery": {
                "rate": rate(recovered, after_failure),
                "ci95": wilson(recovered, after_failure),
                "turns_after_failure": after_failure,
            },
            **({NO_GOLD_KEY: len(self.no_gold)} if self.no_gold else {}),  # a summary without any keeps its keys
            **({NO_WORLD_CALLS_KEY: self.no_world_calls} if self.no_world_calls else {}),
        }

    @staticmethod
    def rows(summary: Mapping[str, Any]) -> list[list[str]]:
        s = summary
        ci = s.get("core_api_accuracy_ci95_clustered") or s.get("core_api_accuracy_ci95")
        over = f"{s.get('scored_turns', 0)} goals"
        if not s.get("scored_turns") and s.get(NO_GOLD_KEY):
            over = no_gold_text(s[NO_GOLD_KEY])
        if not s.get("scored_turns") and s.get(NO_WORLD_CALLS_KEY):
            over = NO_WORLD_CALLS_TEXT
        rows = [["core API accuracy", pct(s.get(JudgeName.CORE_API_ACCURACY)), ci_text(ci), over]]
        recovery = s.get("recovery") or {}
        if recovery.get("turns_after_failure"):
            rows.append(["recovery after a failed call", pct(recovery["rate"]), ci_text(recovery.get("ci95")),
                         f"{recovery['turns_after_failure']} turns"])  # fmt: skip
        return rows

    @staticmethod
    def notes(summary: Mapping[str, Any]) -> list[str]:
        notes = []
        if summary.get(NO_GOLD_KEY):
            notes.append(
                f"{no_gold_text(summary[NO_GOLD_KEY])}: core API accuracy, conversation success and slot numbers are "
                "n/a for their goals (intents and answers are still scored)."
            )
        if summary.get("core_api_accuracy_ci95_clustered"):
            notes.append(f"95% intervals over {summary.get('tasks_scored')} tasks: {CLUSTERED_NOTE}.")
        return notes


class ConversationSuccessSummary(Reduction[float]):
    judge = JudgeName.CONVERSATION_SUCCESS
    label = "conversation success"

    def __init__(self) -> None:
        self.by_task: dict[str, list[float]] = {}  # task -> [trials with a verdict, successes]
        self.by_trial: dict[int, list[float]] = {}  # trial -> [successes, verdicts]
        self.solvable = [0.0, 0]  # successes, episodes with a verdict and no decline goal

    def verdict(self, score: Score) -> float | None:
        return score.value

    def add(self, verdict: float, episode: EpisodeFacts) -> None:
        tally = self.by_task.setdefault(episode.task_id, [0, 0.0])
        tally[0] += 1
        tally[1] += verdict
        row = self.by_trial.setdefault(episode.trial, [0.0, 0.0])
        row[0] += verdict
        row[1] += 1
        if not episode.has_decline_goal:
            self.solvable[0] += verdict
            self.solvable[1] += 1

    def per_trial(self, trial: int) -> float | None:
        successes, n = self.by_trial.get(trial, (0.0, 0.0))
        return rate(successes, int(n))

    def result(self, run: RunFacts) -> dict[str, Any]:
        n = sum(int(n) for n, _ in self.by_task.values())
        successes = sum(c for _, c in self.by_task.values())
        solved, solvable = self.solvable
        return {
            JudgeName.CONVERSATION_SUCCESS: rate(successes, n),
            "conversation_success_ci95": wilson(successes, n),
            "pass_hat_k": {str(k): _pass_hat_k(self.by_task, k) for k in range(1, run.trials + 1)},
            "per_task": {
                task: {"trials": int(n), JudgeName.CONVERSATION_SUCCESS: rate(c, int(n))}
                for task, (n, c) in sorted(self.by_task.items())
            },
            "conversation_success_ci95_clustered": cluster_bootstrap(
                [(self.by_task[t][1], self.by_task[t][0]) for t in sorted(self.by_task)]
            ),
            "solvable_pass_rate": rate(solved, int(solvable)),
            "solvable_pass_rate_ci95": wilson(solved, int(solvable)),
            "solvable_episodes": int(solvable),
        }

    @staticmethod
    def rows(summary: Mapping[str, Any]) -> list[list[str]]:
        s = summary
        ci = s.get("conversation_success_ci95_clustered") or s.get("conversation_success_ci95")
        over = s.get("scored_episodes", 0)
        if s.get("judged_episodes") is not None:  # an incomplete score set: the episodes it has verdicts for
            over = sum(t["trials"] for t in (s.get("per_task") or {}).values())
        rows = [["conversation success", pct(s.get(JudgeName.CONVERSATION_SUCCESS)), ci_text(ci), f"{over} episodes"]]
        rows += [[f"pass^{k}", pct(v), "", "tasks"] for k, v in (s.get("pass_hat_k") or {}).items() if k != "1"]
        # A run where no episode could be judged by its gold (ToolBench: no gold arguments) shows the judged
        # solvable pass rate instead (``solvable_pass``), not an empty row of the same name.
        if "solvable_pass_rate" in s and (s.get("solvable_episodes") or not s.get(NO_GOLD_KEY)):
            rows.append(["solvable pass rate", pct(s["solvable_pass_rate"]), ci_text(s.get("solvable_pass_rate_ci95")),
                         f"{s.get('solvable_episodes', 0)} episodes w/o decline turn"])  # fmt: skip
        return rows

    @staticmethod
    def sections(summary: Mapping[str, Any]) -> list[Section]:
        per_task = summary.get("per_task") or {}
        if not per_task:
            return []
        rows = [(t, str(r.get("trials")), pct(r.get(JudgeName.CONVERSATION_SUCCESS))) for t, r in per_task.items()]
        return [Section.of("tasks", "per task", ("task", "trials", "success"), rows)]


def _pass_hat_k(tallies: dict[str, list[float]], k: int) -> float | None:
    """``pass_hat_k`` over (trials, successes) counts per task."""
    values = [math.comb(int(c), k) / math.comb(int(n), k) for n, c in tallies.values() if n >= k]
    return round(sum(values) / len(values), 4) if values else None
