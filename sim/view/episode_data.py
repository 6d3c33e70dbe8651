"""One episode as ``squall view`` shows it: the report's projection (events, gold, verdicts) plus what the model was
shown (instructions, tool schemas), every model request with its tokens and latency, and per goal the world state
against the gold's.

Instructions and tool lists repeat across a run's episodes, so an episode names them by a short hash and the chunk
it travels in carries each distinct one once."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from judges.calls.state import judge_goal_state
from sim.core import EpisodeResult, GoalState, ToolSpec
from sim.core.task_state import AS_AT_BASE, at, same
from sim.report.episodes import project


def content_key(value: Any) -> str:
    """A short, stable name for a value that many episodes share."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


BASE = "(as at base)"
"""How a path the state does not list (its value is the world's base data) is shown."""


def _shown(value: Any) -> Any:
    return BASE if value is AS_AT_BASE else value


def _state_rows(state: GoalState) -> dict[str, Any]:
    """The paths that matter for one goal (what the gold or the agent changed), each with its value before, after the
    agent and after the gold, and how it differs (missing, wrong, collateral; '' = matches)."""
    verdict = judge_goal_state(state)
    if verdict is None:
        return {"goal": state.goal, "gold": False, "rows": []}
    kinds = {p: k for k, paths in (("missing", verdict.missing), ("wrong", verdict.wrong)) for p in paths}
    kinds.update({p: "collateral" for p in verdict.collateral})
    gold_after = state.gold_after or {}
    paths = sorted(set(state.after) | set(gold_after) | set(state.before))
    rows = []
    for path in paths:
        before, agent, gold = at(state.before, path), at(state.after, path), at(gold_after, path)
        if path in kinds or not same(before, agent) or not same(at(state.gold_before or {}, path), gold):
            shown = {"before": _shown(before), "agent": _shown(agent), "gold": _shown(gold)}
            rows.append({"path": path, **shown, "diff": kinds.get(path, "")})
    return {"goal": state.goal, "gold": True, "at_stake": verdict.applicable, "rows": rows}


class ViewProjector:
    """Projects episodes for the viewer (the report's projection and the viewer's own fields), keeping each distinct
    instructions text and tool list once in ``shared``: a run of 1,000 episodes with 100 tools each would otherwise
    hold 1,000 copies of the same schemas. Episodes read from one store share their toolkit's spec objects
    (``sim.store.toolkits``): a tool list is projected once per distinct set of objects, not once per episode (a SEL
    world's 2,896 specs took ~0.4 s an episode)."""

    def __init__(self) -> None:
        self.shared: dict[str, Any] = {}
        self._tool_keys: dict[tuple[int, ...], tuple[list[ToolSpec], str]] = {}
        """ids of a tool list's specs -> (the specs, held so that the ids stay theirs; its key in ``shared``)."""

    def _intern(self, value: Any) -> str:
        key = content_key(value)
        self.shared.setdefault(key, value)
        return key

    def _tools(self, tools: list[ToolSpec]) -> str:
        ids = tuple(map(id, tools))
        kept = self._tool_keys.get(ids)
        if kept is None:
            kept = (list(tools), self._intern([t.model_dump(mode="json") for t in tools]))
            self._tool_keys[ids] = kept
        return kept[1]

    def __call__(self, result: EpisodeResult) -> dict[str, Any]:
        out = project(result)
        out["instructions"] = self._intern(result.instructions)
        out["tools"] = self._tools(result.tools)
        out["goal_tools"] = {str(k): v for k, v in result.goal_tools.items()}
        out["calls"] = [c.model_dump(mode="json", exclude_defaults=True) for c in result.model_calls]
        out["steps"] = [ev.step for ev in result.events]
        out["times"] = [ev.t for ev in result.events]
        out["states"] = [_state_rows(s) for s in result.goal_states]
        out["stressors"] = list(result.stressors)
        out["seed"] = result.seed
        usage = result.usage
        out["usage"] = {"requests": usage.requests, "in": usage.input_tokens, "out": usage.output_tokens}
        return out


def _code(error: str) -> str:
    """A verdict's error as its area:reason ('goal1:core:missing:set_power' -> 'core:missing')."""
    parts = error.split(":")
    if parts[0].startswith("goal") and parts[0][4:].isdigit():
        parts = parts[1:]
    return ":".join(parts[:2])


def _units(score: dict[str, Any]) -> tuple[float, int] | None:
    """(verdicts summed, units) as the run's headline counts them: a judge with a verdict per goal counts its goals
    with a verdict, any other its one value per episode."""
    goals = [v for v in score.get("per_goal") or () if v is not None]
    if goals:
        return float(sum(goals)), len(goals)
    return None if score["value"] is None else (float(score["value"]), 1)


def index_row(ep: dict[str, Any], chunk: int) -> dict[str, Any]:
    """The light row the episode list, its filters and the task × trial grid read (no events)."""
    fired = sorted({s for ev in ep["events"] for s in ev.get("scenarios", ())})
    codes = {ev["code"] for ev in ep["events"] if ev.get("code")}
    codes |= {_code(e) for s in ep["scores"].values() for e in s["errors"]}
    return {
        "id": ep["id"],
        "task": ep["task"],
        "trial": ep["trial"],
        "variant": ep["variant"],
        "user": ep["user"],
        "outcome": ep["outcome"],
        "rank": ep["rank"],
        "termination": ep["termination"],
        "fired": fired,
        "codes": sorted(codes),
        "judges": {name: s["value"] for name, s in ep["scores"].items()},
        "units": {name: units for name, s in ep["scores"].items() if (units := _units(s)) is not None},
        "tokens": ep["usage"]["in"] + ep["usage"]["out"],
        "duration_s": ep["duration_s"],
        "chunk": chunk,
    }


def chunk_document(episodes: list[dict[str, Any]], shared: dict[str, Any]) -> dict[str, Any]:
    """A chunk of full episodes with the instructions and tool lists they name (``ViewProjector.shared``)."""
    keys = {ep[field] for ep in episodes for field in ("instructions", "tools")}
    return {"episodes": episodes, "shared": {k: shared[k] for k in keys}}
