"""Re-judging a stored run (``squall score``) and summarising one of its score sets (``squall report``).

Re-judging never rewrites: it appends a new score set labelled by its judge configuration's hash, and
says how the verdicts compare with an earlier computation of the same set, if there was one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sim.config import ConfigError, RunConfig, option_name
from sim.judging import build_judges, judge, judge_config, judge_config_hash, run_summary
from sim.store import RunStore, StoreError


def _config(store: RunStore, overrides: dict[str, Any]) -> RunConfig:
    stored = store.manifest()["config"]
    try:
        base = RunConfig.model_validate(stored)
    except ValidationError as exc:
        raise StoreError(f"{store.root}/manifest.json: config is not valid: {exc.errors()[0]['msg']}") from exc
    try:
        return RunConfig.model_validate({**base.model_dump(), **overrides})
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        raise ConfigError(f"{option_name(str(err['loc'][0]))}: {err['msg']}") from exc


async def rescore(
    run_dir: Path, arg_match: str | None, embedding_threshold: float | None
) -> tuple[dict[str, Any], str]:
    """Judge every stored episode again under the run's judge settings with these overrides."""
    store = RunStore.open_existing(run_dir)
    given = {"arg_match": arg_match, "embedding_threshold": embedding_threshold}
    overrides = {k: v for k, v in given.items() if v is not None}
    cfg = _config(store, overrides)
    settings = judge_config(cfg)
    score_set = judge_config_hash(settings)
    earlier = {(s.episode_id, s.judge): s for s in store.scores(score_set)}
    judges = build_judges(cfg)
    store.add_score_set(score_set, settings, "score")
    episodes = compared = identical = 0
    for result in store.iter_episodes():
        scores = await judge(result, judges, score_set)
        store.append_scores(scores)
        episodes += 1
        for new in scores:
            old = earlier.get((new.episode_id, new.judge))
            if old is not None and not old.judge_fault:
                compared += 1
                identical += (old.value, old.per_turn, old.errors) == (new.value, new.per_turn, new.errors)
    summary = run_summary(store, score_set, store.manifest().get("planned_episodes"))
    store.write_summary(summary)
    described = ", ".join(f"{k}={v}" for k, v in settings.items() if k not in ("judges", "version"))
    note = f"score set {score_set} ({described}): re-judged {episodes} episode(s)"
    if compared:
        note += f"; {identical} of {compared} scores identical to this set's earlier verdicts"
    return summary, note


def summary_of(run_dir: Path, score_set: str | None) -> dict[str, Any]:
    store = RunStore.open_existing(run_dir)
    chosen = store.find_score_set(score_set) if score_set else store.newest_score_set()
    return run_summary(store, chosen, store.manifest().get("planned_episodes"))
