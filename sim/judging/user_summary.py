"""Results grouped by who played the user: accuracy per user style, retention against the explicit user, turns
per goal, whether the agent asked for withheld values, and the user simulator's own faults counted apart from the
agent's.

Retention is paired: the same (task, stressor variant, trial, goal) scored under the explicit user and under the
other one (every user plays every task with the same seeds), as the ratio of their summed goal accuracies, with a
95% interval from a bootstrap over tasks (a task's goals and trials are not independent).
``on_coreferential_goals`` restricts it to the goals whose wording a coreferential user changes (a later goal with
a coreferential rendering), where the drop lives.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from pydantic import AliasChoices, BaseModel, Field

from judges.common.stats import cluster_bootstrap
from judges.names import JudgeName
from personas.spec import parse_user_specs
from sim.core import FAILED_TERMINATIONS, EpisodeId, Score
from sim.store.run_store import RunStore, StoreError


class _Mark(BaseModel):
    kind: str
    fault: str | None = None
    code: str | None = None


class _Intent(BaseModel):
    coreferential: str | None = None


class _Goal(BaseModel):
    user: _Intent = Field(default_factory=_Intent)


class _Task(BaseModel):
    goals: list[_Goal] = Field(default_factory=list, validation_alias=AliasChoices("goals", "turns"))


class UserOutline(BaseModel):
    """The part of a stored episode this summary reads."""

    episode_id: str
    task_id: str
    trial: int
    user: str = ""
    termination: str = "completed"
    turns_played: int = 0
    goals_played: int | None = None
    events: list[_Mark] = Field(default_factory=list)
    task: _Task = Field(default_factory=_Task)


Key = tuple[str, str, int, int]  # task, stressor variant, trial, goal


def user_summary(store: RunStore, score_set: str) -> dict[str, Any] | None:
    """The per-user section of a run's summary; None when one plain user played and made no slip.

    Streams the store: per user a few running sums; per (task, trial, goal) a score only when several users
    played (retention pairs them)."""
    configured = _configured_users(store)
    several = len(configured) > 1
    tallies: dict[str, _Tally] = {}
    coref_goals: set[tuple[str, int]] = set()
    # Without several configured users episode ids do not name the user: a hand-built store may still mix them.
    user_by_id: dict[str, str] = {}
    for ep in store.iter_episodes(UserOutline):
        label = _user_of(ep.episode_id, ep.user, several)
        if not several and not configured:
            user_by_id[ep.episode_id] = label
        tally = tallies.setdefault(label, _Tally())
        tally.add_episode(ep)
        if several:
            coref_goals |= {(ep.task_id, g) for g, goal in enumerate(ep.task.goals) if g and goal.user.coreferential}
    slips = sum(t.user_faults.total() for t in tallies.values())
    if not several and slips == 0 and set(configured or tallies) <= {"", "scripted", "scripted:explicit"}:
        return None
    # A re-score appends verdicts to the same set: only the newest per (episode, judge) counts, as in the summary.
    wanted = (JudgeName.CORE_API_ACCURACY, JudgeName.CONVERSATION_SUCCESS, JudgeName.CLARIFICATION)
    left: Counter[tuple[str, str]] = Counter(
        (s.episode_id, s.judge) for s in store.iter_scores(score_set) if s.judge in wanted
    )
    for score in store.iter_scores(score_set):
        if score.judge not in wanted:
            continue
        key = (score.episode_id, score.judge)
        left[key] -= 1
        if left[key]:
            continue  # a newer verdict of this episode and judge follows
        if several:
            label = _user_of(score.episode_id, None, several)
        elif configured or len(tallies) == 1:
            label = next(iter(tallies))
        else:
            label = user_by_id.get(score.episode_id, "")
        scored = tallies.get(label)
        if scored is not None and score.value is not None:
            scored.add_score(score, several)
    labels = list(tallies)
    baseline = _baseline(labels)
    rows = [tallies[u].row(u) for u in labels]
    for row in rows:
        u = row["user"]
        if baseline is not None and u != baseline:
            base, other = tallies[baseline].goals, tallies[u].goals
            row["retention"] = _retention(base, other, None)
            row["retention_on_coreferential_goals"] = _retention(base, other, coref_goals)
    coref = next((r for r in rows if "coreferential" in _styles(r["user"]) and "retention" in r), None)
    return {
        "baseline": baseline,
        "by_user": rows,
        "explicit_to_coreferential": (
            {"user": coref["user"], **coref["retention_on_coreferential_goals"]} if coref is not None else None
        ),
    }


def _configured_users(store: RunStore) -> list[str]:
    try:
        raw = store.manifest()["config"].get("user")
    except StoreError:  # a hand-built store: the episodes say who played
        return []
    return user_labels(raw)


def user_labels(raw: object) -> list[str]:
    """A run's ``--user`` value as the labels its episode ids carry (``scripted:terse + vague`` is
    ``scripted:terse+vague`` there)."""
    if not isinstance(raw, str):
        return []
    try:
        return [spec.label for spec in parse_user_specs(raw)]
    except ValueError:  # a manifest written before a spelling changed: as given
        return [part.strip() for part in raw.split(",") if part.strip()]


def _user_of(episode_id: str, stored: str | None, several: bool) -> str:
    """The user label of an episode: its id carries it when the run has several users."""
    if several:
        return EpisodeId.parse(episode_id).user
    return stored if stored is not None else "*"


class _Tally:
    """One user's running sums."""

    def __init__(self) -> None:
        self.episodes = self.failed = self.turns = self.goals_played = self.agent_faults = 0
        self.user_faults: Counter[str] = Counter()
        self.goal_sum = 0.0
        self.goal_n = 0
        self.success: list[float] = [0.0, 0.0]
        self.clarify: list[float] = [0.0, 0.0]
        self.goals: dict[Key, float] = {}

    def add_episode(self, ep: UserOutline) -> None:
        self.episodes += 1
        for ev in ep.events:
            if ev.kind == "error" and ev.fault == "user":
                self.user_faults[ev.code or "user:?"] += 1
            elif ev.kind == "error" and ev.fault == "agent":
                self.agent_faults += 1
        if ep.termination in FAILED_TERMINATIONS:
            self.failed += 1
            return
        self.turns += ep.turns_played
        self.goals_played += ep.goals_played if ep.goals_played is not None else ep.turns_played

    def add_score(self, score: Score, keep_goals: bool) -> None:
        if score.judge == JudgeName.CORE_API_ACCURACY:
            for g, v in enumerate(score.per_goal):
                if v is not None:
                    self.goal_sum, self.goal_n = self.goal_sum + v, self.goal_n + 1
                    if keep_goals:
                        task, trial, variant, _ = EpisodeId.parse(score.episode_id)
                        self.goals[(task, variant, trial, g)] = v
        elif score.judge == JudgeName.CONVERSATION_SUCCESS and score.value is not None:
            self.success = [self.success[0] + score.value, self.success[1] + 1]
        elif score.judge == JudgeName.CLARIFICATION:
            kept = [v for v in score.per_goal if v is not None]
            self.clarify = [self.clarify[0] + sum(kept), self.clarify[1] + len(kept)]

    def row(self, user: str) -> dict[str, Any]:
        return {
            "user": user,
            "episodes": self.episodes,
            "failed": self.failed,
            "goal_accuracy": self.goal_sum / self.goal_n if self.goal_n else None,
            "goals_scored": self.goal_n,
            JudgeName.CONVERSATION_SUCCESS: self.success[0] / self.success[1] if self.success[1] else None,
            "turns_per_goal": round(self.turns / self.goals_played, 3) if self.goals_played else None,
            JudgeName.CLARIFICATION: self.clarify[0] / self.clarify[1] if self.clarify[1] else None,
            "withheld_goals": int(self.clarify[1]),
            "user_faults": self.user_faults.total(),
            "user_faults_by_code": dict(sorted(self.user_faults.items())),
            "agent_faults": self.agent_faults,
        }


def _styles(label: str) -> tuple[str, ...]:
    head = label.partition("@")[0]
    _, _, styles = head.partition(":")
    return tuple(s for s in styles.split("+") if s)


def _baseline(labels: list[str]) -> str | None:
    """The explicit user the others are compared with: explicit styles (or none), else nothing to compare."""
    plain = [u for u in labels if set(_styles(u)) <= {"explicit"}]
    return plain[0] if plain and len(labels) > 1 else None


def _retention(base: dict[Key, float], other: dict[Key, float], only: set[tuple[str, int]] | None) -> dict[str, Any]:
    keys = [k for k in base if k in other and (only is None or (k[0], k[3]) in only)]
    sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])  # task -> [other user's, explicit user's]
    for k in keys:
        sums[k[0]][0] += other[k]
        sums[k[0]][1] += base[k]
    clusters = [(sums[t][0], sums[t][1]) for t in sorted(sums)]
    after, before = sum(a for a, _ in clusters), sum(b for _, b in clusters)
    return {
        "ratio": after / before if before else None,
        "ci95": cluster_bootstrap(clusters),
        "paired_goals": len(keys),
        "tasks": len(clusters),
    }
