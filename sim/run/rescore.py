"""Re-judging a stored run (``squall score``) and summarising one of its score sets (``squall report``).

Re-judging never rewrites: it appends a new score set labelled by its judge configuration's hash, and
says how the verdicts compare with an earlier computation of the same set, if there was one. With ``resume`` it
completes a set an interruption left short instead (``sim.run.score_resume``).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from judges.run.run_summary import RunSummary
from sim.config.run_config import ConfigError, RunConfig, option_name
from sim.core import EpisodeResult, Judge, Score
from sim.core.files import write_text_atomic
from sim.judging.judge_set import judge_config, judge_config_hash, judges_in_thread, run_summary
from sim.judging.queue import JudgeQueue
from sim.report.markdown import markdown_summary
from sim.run.runner import open_stored_run
from sim.run.score_resume import complete_set, set_to_complete
from sim.store.run_store import RunStore, StoreError
from sim.store.writer import StoreWriter


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


def _verdict(s: Score) -> int | None:
    """What comparing verdicts looks at, as a fingerprint (None for a judge fault: nothing to compare)."""
    return None if s.judge_fault else hash((s.value, tuple(s.per_goal), tuple(s.errors)))


async def rescore(run_dir: Path, settings_given: dict[str, Any], resume: bool = False) -> tuple[RunSummary, str]:
    """Judge every stored episode again under the run's judge settings with these overrides; with ``resume``,
    judge only what the named set (or the newest incomplete one) lacks.

    Streams: episodes are read and judged one at a time (the judge queue bounds how many are held), the
    scores go through the store writer; only a fingerprint of each earlier verdict of this set is kept."""
    overrides = {k: v for k, v in settings_given.items() if v is not None}
    existing = RunStore.open_existing(run_dir)
    wanted: str | None = None
    if resume:
        named = judge_config_hash(judge_config(_config(existing, overrides))) if overrides else None
        target = set_to_complete(existing, named)
        if target is None:
            which = f"score set {named}" if named else "every score set"
            return summary_of(run_dir, named), f"{which} is complete: nothing to judge"
        wanted, overrides = target.score_set, {**target.overrides, **overrides}
    cfg = _config(existing, overrides)
    settings = judge_config(cfg)
    score_set = judge_config_hash(settings)
    if wanted is not None and score_set != wanted:
        raise StoreError(
            f"{run_dir}: score set {wanted} cannot be completed here: its judges rebuild as set {score_set} (another "
            "judges version); `squall score` computes a fresh set"
        )
    store = RunStore.open_to_write(run_dir)  # after the settings check: a bad option locks nothing
    try:
        async with open_stored_run(cfg) as judges:
            if wanted is None:
                earlier = {(s.episode_id, s.judge): _verdict(s) for s in store.iter_scores(score_set)}
                store.add_score_set(score_set, settings, "score")
                summary, note = await _rejudge(store, cfg, judges, score_set, earlier)
            else:
                if store.newest_score_set() != score_set:  # completed, it is the set the report shows
                    store.add_score_set(score_set, settings, "score --resume")
                summary, note = await _complete(store, cfg, judges, score_set)
    finally:
        store.close()
    described = ", ".join(f"{k}={v}" for k, v in settings.items() if k not in ("judges", "version"))
    return summary, f"score set {score_set} ({described}): {note}"


async def _rejudge(
    store: RunStore, cfg: RunConfig, judges: list[Judge], score_set: str, earlier: dict[tuple[str, str], int | None]
) -> tuple[RunSummary, str]:
    compared = identical = 0

    async def on_scored(result: EpisodeResult, scores: list[Score], fresh: bool) -> None:
        nonlocal compared, identical
        await writer.append_scores(scores)
        for new in scores:
            old = earlier.get((new.episode_id, new.judge))
            if old is not None:
                compared += 1
                identical += old == _verdict(new)

    async with (
        StoreWriter(store) as writer,
        JudgeQueue(judges, score_set, on_scored, in_thread=judges_in_thread(cfg)) as queue,
    ):
        for result in store.iter_episodes():
            await queue.put(result)
    note = f"re-judged {queue.judged} episode(s)"
    if compared:
        note += f"; {identical} of {compared} scores identical to this set's earlier verdicts"
    return await _summarise(store, score_set), note


async def _complete(store: RunStore, cfg: RunConfig, judges: list[Judge], score_set: str) -> tuple[RunSummary, str]:
    async def on_scored(result: EpisodeResult, scores: list[Score], fresh: bool) -> None:
        await writer.append_scores(scores)

    async with (
        StoreWriter(store) as writer,
        JudgeQueue(judges, score_set, on_scored, in_thread=judges_in_thread(cfg)) as queue,
    ):
        await complete_set(store, judges, score_set, queue)
    summary = await _summarise(store, score_set)
    judged = summary.judged_episodes if summary.incomplete else summary.episodes
    return summary, f"judged the {queue.judged} episode(s) it lacked: {judged} of {summary.episodes} episodes judged"


async def _summarise(store: RunStore, score_set: str) -> RunSummary:
    summary = await asyncio.to_thread(run_summary, store, score_set, store.manifest().get("planned_episodes"))
    store.write_summary(summary.as_dict())
    write_text_atomic(store.root / "summary.md", markdown_summary(summary))
    return summary


def summary_of(run_dir: Path, score_set: str | None) -> RunSummary:
    store = RunStore.open_existing(run_dir)
    chosen = store.find_score_set(score_set) if score_set else store.newest_score_set()
    return run_summary(store, chosen, store.manifest().get("planned_episodes"))
