"""Run folders written straight through RunStore (no episode is run): a manifest, a summary and core API accuracy
verdicts, cheap enough to make a hundred runs of mixed worlds for the leaderboard and the viewer's scale tests."""

from __future__ import annotations

import json
from pathlib import Path

from sim.core import Score
from sim.store.run_store import SUMMARY, RunStore

SET = "set1"
LONG_AGENT = "openai-chat:qwen3-8b@http://127.0.0.1:8000/v1"
LONG_STRESSORS = ["outage", "failure:rate=0.3", "latency:ms=2500", "truncate", "schema_drift", "rename_fields"]


def write_run(
    root: Path,
    agent: str,
    world: str,
    verdicts: dict[str, float | None],
    label: str = "",
    limit: int | None = None,
    stressors: tuple[str, ...] = (),
    minute: int = 0,
) -> Path:
    """A finished run of ``agent`` on ``world``: one episode per task of ``verdicts`` (its one verdict, None: no
    verdict), planned with ``--limit limit``; created at 2026-01-01 plus ``minute`` minutes."""
    config = {"agent": agent, "world": world, "seed": 0, "trials": 1, "stressors": list(stressors), "user": "scripted"}
    if limit is not None:
        config["limit"] = limit
    created = f"2026-01-01T{minute // 60:02d}:{minute % 60:02d}:00+00:00"
    manifest = {"config_hash": "h", "config": config, "created_at": created}
    if label:
        manifest["label"] = label
    store = RunStore.create(root, manifest)
    store.add_score_set(SET, {"version": "test"}, "test")
    scores = [
        Score(
            episode_id=f"{task}#0",
            task_id=task,
            trial=0,
            judge="core_api_accuracy",
            value=value,
            per_goal=[value],
            judge_config=SET,
        )
        for task, value in verdicts.items()
    ]
    store.append_scores(scores)
    store.close()
    known = [v for v in verdicts.values() if v is not None]
    summary = {
        "episodes": len(verdicts),
        "failed_episodes": 0,
        "core_api_accuracy": sum(known) / len(known) if known else None,
    }
    (root / SUMMARY).write_text(json.dumps(summary), encoding="utf-8")
    return root
