"""The episodes the HTML report's viewer embeds: at most ``cap`` of them, chosen while streaming the store.

A run may hold 100,000 episodes, so nothing reads them all at once: one pass over the score set ranks every
episode by a single number, one pass over the episodes keeps the ``cap`` most worth reading in a bounded heap
(unscored failures first, then the lowest-scoring, then the rest in run order), parsing an episode in full only
when it makes the cut, and a last pass over the scores attaches the kept episodes' verdicts."""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from judges.names import JudgeName
from judges.tau2.tau2_reward_summary import component_rows
from sim.core import EpisodeResult
from sim.core.trace import FAILED_TERMINATIONS, Event
from sim.store.run_store import EPISODES, RunStore, parse_line, read_lines

DEFAULT_CAP = 1000
RANK_JUDGES = (JudgeName.CONVERSATION_SUCCESS, JudgeName.CORE_API_ACCURACY)
"""The judges whose mean ranks an episode; a run without them ranks by the mean of every judge it has."""


class _EpisodeHead(BaseModel):
    """The light view ranking needs: parsing skips events, tools and the task."""

    episode_id: str
    termination: str = "completed"


@dataclass
class EpisodeSample:
    """The viewer's episodes, in the order the list shows them, and how many the run holds."""

    episodes: list[dict[str, Any]] = field(default_factory=list)
    total: int = 0


def _rank_scores(store: RunStore, score_set: str) -> dict[str, float]:
    """episode_id -> its ranking score (lower = read first). Newest line per (episode, judge) wins."""
    values: dict[str, dict[str, float]] = {}
    for s in store.iter_scores(score_set):
        if s.value is not None:
            values.setdefault(s.episode_id, {})[s.judge] = s.value
    ranks: dict[str, float] = {}
    for eid, by_judge in values.items():
        picked = [by_judge[j] for j in RANK_JUDGES if j in by_judge] or list(by_judge.values())
        ranks[eid] = sum(picked) / len(picked)
    return ranks


def _event(ev: Event) -> dict[str, Any]:
    """One event as the viewer reads it: short keys, no None fields (the page stays small)."""
    out: dict[str, Any] = {"k": ev.kind, "turn": ev.turn, "goal": ev.goal_index}
    if ev.content is not None:
        out["text"] = ev.content
    if ev.call is not None:
        out["call"] = {"name": ev.call.name, "args": ev.call.arguments}
    if ev.result is not None:
        out["result"] = {"status": ev.result.status, "content": ev.result.content, "code": ev.result.error_code}
    if ev.raw_result is not None:
        raw = ev.raw_result
        out["raw"] = {"status": raw.status, "content": raw.content, "code": raw.error_code}
    if ev.scenarios:
        out["scenarios"] = ev.scenarios
    if ev.fault:
        out["fault"] = ev.fault
    if ev.code:
        out["code"] = ev.code
    if ev.replayed:
        out["replayed"] = True
    if ev.user_act is not None:
        out["act"] = ev.user_act.kind
    return out


def project(result: EpisodeResult) -> dict[str, Any]:
    """The part of an episode the viewer shows (not the tool specs or instructions: they repeat per episode)."""
    return {
        "id": result.episode_id,
        "task": result.task_id,
        "trial": result.trial,
        "variant": result.variant,
        "user": result.user,
        "agent": result.agent,
        "termination": result.termination,
        "failed": result.failed,
        "turns": result.turns_played,
        "goals": result.goals_reached,
        "duration_s": round(result.duration_s, 3),
        "description": result.task.description,
        "gold": [[{"name": g.name, "args": g.arguments} for g in turn.gold] for turn in result.task.goals],
        "events": [_event(ev) for ev in result.events],
        "scores": {},
    }


def _outcome(ep: dict[str, Any]) -> str:
    """failed (not scored) | unscored (no verdict) | passed | wrong: what the viewer's filter offers."""
    if ep["failed"]:
        return "failed"
    if ep["rank"] is None:
        return "unscored"
    success = (ep["scores"].get(JudgeName.CONVERSATION_SUCCESS) or {}).get("value")
    return "passed" if (success if success is not None else ep["rank"]) == 1.0 else "wrong"


def collect_episodes(
    store: RunStore,
    score_set: str,
    cap: int = DEFAULT_CAP,
    projector: Callable[[EpisodeResult], dict[str, Any]] = project,
) -> EpisodeSample:
    """The viewer's sample: see the module docstring for the order. ``projector`` makes an episode's dict (``squall
    view`` keeps more of it than the report: the prompt, tools, model calls and state diffs)."""
    ranks = _rank_scores(store, score_set)
    path = store.root / EPISODES
    # Max-heap by priority via negated keys: the root is the worst kept episode, dropped when a better one comes.
    heap: list[tuple[tuple[int, float, int], int, dict[str, Any]]] = []
    total = 0
    seen: set[str] = set()
    superseded = store.superseded()  # a provider fault played again: its newer record stands
    for lineno, raw in read_lines(path):
        if lineno in superseded:
            continue
        head = parse_line(path, lineno, raw, _EpisodeHead)
        if head.episode_id in seen:  # any other duplicate line: the first one stands
            continue
        seen.add(head.episode_id)
        order = total
        total += 1
        failed = head.termination in FAILED_TERMINATIONS
        score = ranks.get(head.episode_id)
        # Failed first; then scored-below-1 by score; then the rest (passed or unscored) in run order.
        if failed:
            key = (0, 0.0, order)
        elif score is not None and score < 1.0:
            key = (1, score, order)
        else:
            key = (2, 0.0, order)
        neg = (-key[0], -key[1], -key[2])
        if len(heap) >= cap and neg <= heap[0][0]:
            continue
        item = (neg, order, projector(store.parse_episode(lineno, raw)))
        if len(heap) < cap:
            heapq.heappush(heap, item)
        else:
            heapq.heapreplace(heap, item)
    kept = [item[2] for item in sorted(heap, key=lambda it: (-it[0][0], -it[0][1], -it[0][2]))]
    by_id = {ep["id"]: ep for ep in kept}
    for s in store.iter_scores(score_set):
        ep = by_id.get(s.episode_id)
        if ep is not None:
            ep["scores"][s.judge] = {"value": s.value, "per_goal": s.per_goal, "errors": s.errors, "details": s.details}
            if s.judge == JudgeName.TAU2_REWARD and (rows := component_rows(s.details)):
                ep["tau2"] = {"basis": list(s.details.get("reward_basis") or []), "rows": rows}
    for ep in kept:
        ep["rank"] = ranks.get(ep["id"])
        ep["outcome"] = _outcome(ep)
    return EpisodeSample(kept, total)
