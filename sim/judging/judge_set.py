"""The run's judges, the hash of their configuration (a score set), and judging one episode."""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from judges.answers.answer_semantic import AnswerMatch
from judges.calls.arg_match import ArgMatcher
from judges.common.episode_memo import judging
from judges.common.llm_ask import JudgeModel, judge_usage, usage_of
from judges.errors.error_handling import BANDS, EmbeddingRater, ErrorHandlingJudge
from judges.errors.error_handling_llm import LLMRater
from judges.registry import JudgeEntry, judge_entries
from judges.run.run_identity import RunIdentity
from judges.run.run_summary import RunSummary
from sim.config.run_config import RunConfig
from sim.core import EpisodeResult, Judge, Score
from sim.core.embedding import embedding_available
from sim.store.run_store import RunStore, StoreError

JUDGES_VERSION = 8
"""Bump when a judge's verdict on the same trace may change: old and new scores then form different sets.
2: failure_stage; 3: decline (conversation success needs decline turns declined); 4: completion, call_f1;
5: a path's own support lookups never count as core calls; 6: a bare scalar reply is text to completion;
7: judged per goal (a goal may span turns), calls on a value the user took back are superseded; clarification and
answer_facts (the facts of a question's gold answer in the reply); 8: state_match (the world after the agent's calls
vs the gold's), error_handling (replies after a failure, 1-5), ast (every error of every call), answer_match (answers
by meaning, when asked for), llm argument matching."""


def judge_config(config: RunConfig) -> dict[str, Any]:
    """What determines the verdicts on a stored trace; its hash names the score set."""
    settings: dict[str, Any] = {"version": JUDGES_VERSION, "judges": judge_names(config)}
    settings["arg_match"] = config.arg_match
    if config.arg_match_params:
        settings["arg_match_params"] = dict(sorted(config.arg_match_params.items()))
    if _match_modes(config) & {"embedding"}:
        settings["embedding_threshold"] = config.embedding_threshold
    settings["error_judge"] = error_judge_mode(config)
    if settings["error_judge"] == "embedding":
        settings["error_bands"] = list(BANDS)
    if config.answer_judge != "off":
        settings["answer_judge"] = config.answer_judge
        if config.answer_judge == "embedding":
            settings["answer_threshold"] = config.answer_threshold
    if uses_judge_model(config):
        settings["judge_model"] = config.judge_model
    return settings


def settings_overrides(settings: dict[str, Any]) -> dict[str, Any]:
    """The run settings that give a recorded score set's configuration back (``judge_config`` the other way, for
    ``squall score --resume``); the caller checks that their hash is the set's (a judge version may differ)."""
    return {
        "arg_match": settings.get("arg_match", "exact"),
        "arg_match_params": settings.get("arg_match_params", {}),
        "error_judge": settings.get("error_judge", "off"),
        "answer_judge": settings.get("answer_judge", "off"),
        **{k: settings[k] for k in ("embedding_threshold", "answer_threshold", "judge_model") if k in settings},
    }


def error_judge_mode(config: RunConfig) -> str:
    """The error-handling judge this run gets: embedding falls back to off where the embed extra is missing
    (the score set says so: its hash differs from a set that had it)."""
    if config.error_judge == "embedding" and embedding_available() is not None:
        return "off"
    return config.error_judge


def uses_judge_model(config: RunConfig) -> bool:
    """Whether any judge asks a model: errors, answers or argument values (``--judge-model``, which makes the error
    judge ``llm`` unless another rater is chosen). τ²'s natural-language assertions are judged where it is open."""
    return "llm" in (error_judge_mode(config), config.answer_judge, *_match_modes(config))


def judge_config_hash(settings: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:12]


def judge_names(config: RunConfig | None = None) -> list[str]:
    """Every judge of a run (of the default config when none is given), in the order they score."""
    config = config or RunConfig()
    return [entry.name for entry in judge_entries() if _runs(entry, config)]


def _runs(entry: JudgeEntry, config: RunConfig) -> bool:
    """Whether the run has this judge: a configured one only where its setting turns it on."""
    if entry.build != "configured":
        return True
    if entry.name == ErrorHandlingJudge.name:
        return error_judge_mode(config) != "off"
    if entry.name == AnswerMatch.name:
        return config.answer_judge != "off"
    raise ValueError(f"judge {entry.name!r}: no run setting builds it")


def _match_modes(config: RunConfig) -> set[str]:
    return {config.arg_match, *config.arg_match_params.values()}


def build_judges(config: RunConfig, judge_model: JudgeModel | None = None) -> list[Judge]:
    """The run's judges. ``judge_model`` is what the judges that ask a model ask (``open_judges`` opens it); the
    embedding judges share one embedder."""
    from judges.answers.answer_semantic import EmbeddingAnswers, LLMAnswers
    from judges.calls.arg_match_llm import LLMValues

    if uses_judge_model(config) and judge_model is None:
        raise ValueError("a judge that asks a model needs it opened: use open_judges")
    errors, modes = error_judge_mode(config), _match_modes(config)
    embedder = None
    if "embedding" in (errors, config.answer_judge, *modes):
        from sim.core.embedding import Embedder

        embedder = Embedder()
    matcher = ArgMatcher(
        mode=config.arg_match,
        threshold=config.embedding_threshold,
        embedder=embedder if "embedding" in modes else None,
        overrides=tuple(sorted(config.arg_match_params.items())),
        llm_values=LLMValues(judge_model) if "llm" in modes and judge_model is not None else None,
    )
    judges: list[Judge] = []
    for entry in judge_entries():  # the registry's order is the scoring order (part of the score set's hash)
        if entry.build == "matching":
            judges.append(entry.judge(matcher))
        elif entry.build == "plain":
            judges.append(entry.judge())
        elif entry.build == "model":  # asks the judge model where the run has one, and does without it otherwise
            judges.append(entry.judge(judge_model))
        elif entry.name == ErrorHandlingJudge.name and errors == "embedding" and embedder is not None:
            judges.append(ErrorHandlingJudge(EmbeddingRater(embedder)))
        elif entry.name == ErrorHandlingJudge.name and errors == "llm" and judge_model is not None:
            judges.append(ErrorHandlingJudge(LLMRater(judge_model)))
        elif entry.name == AnswerMatch.name and config.answer_judge == "embedding" and embedder is not None:
            judges.append(AnswerMatch(EmbeddingAnswers(embedder, config.answer_threshold)))
        elif entry.name == AnswerMatch.name and config.answer_judge == "llm" and judge_model is not None:
            judges.append(AnswerMatch(LLMAnswers(judge_model)))
    return judges


@asynccontextmanager
async def open_judges(config: RunConfig) -> AsyncIterator[list[Judge]]:
    """The run's judges, with the judge model open while the block runs (``--judge-model``, where any judge asks
    a model)."""
    if not uses_judge_model(config):
        yield build_judges(config)
        return
    async with open_judge_model(config) as judge_model:
        yield build_judges(config, judge_model)


@asynccontextmanager
async def open_judge_model(config: RunConfig) -> AsyncIterator[JudgeModel]:
    """``config.judge_model``, through a gateway of its own: judges run in this process whatever the backend, so
    their model calls go from here (role ``judge``, the run's limits, retries and cache)."""
    from sim.config.gateway import build_gateway
    from sim.llm.model_access import ModelUnavailable, open_model

    async with AsyncExitStack() as stack:
        gateway = build_gateway(config)
        stack.push_async_callback(gateway.aclose)
        try:  # only the opening: a ModelUnavailable from the caller's block is not the judge model's
            model = await stack.enter_async_context(open_model(gateway, config.judge_model))
        except ModelUnavailable as exc:
            raise config.problem("judge_model", str(exc)) from exc
        yield JudgeModel(gateway.complete, model, seed=config.seed)  # judging keeps no usage account


async def judge(result: EpisodeResult, judges: list[Judge], score_set: str) -> list[Score]:
    """Every judge's score, labelled with the score set; a judge that crashes yields a judge fault
    (a Score with no value and a ``judge:`` error), not a lost episode.

    The judges share what they derive from the trace (``judges.common.episode_memo``), and a Score built with
    ``judges.common.trace_view.score_for`` comes labelled already: a copy only for one that is not."""
    scores = []
    with judging(result, score_set):
        for j in judges:
            with judge_usage() as asked:
                try:
                    score = await j.score(result)
                except Exception as exc:
                    score = Score(
                        episode_id=result.episode_id,
                        task_id=result.task_id,
                        trial=result.trial,
                        judge=j.name,
                        value=None,
                        errors=[f"judge:{type(exc).__name__}"],
                        details={"error": str(exc)[:500]},
                    )
            if asked:  # the judge model's requests (a fault's too), kept with the verdict they bought
                score = score.model_copy(update={"details": {**score.details, "judge_usage": usage_of(asked)}})
            labelled = score.judge_config == score_set and "judge_config" in score.model_fields_set
            scores.append(score if labelled else score.model_copy(update={"judge_config": score_set}))
    return scores


def judges_in_thread(config: RunConfig) -> bool:
    """Whether the run's judges go to a judge thread (see ``sim.judging.queue``): the embedding matcher runs MiniLM
    in numpy (≥3.6 ms per episode, far more for new texts); the exact judges cost ~1.2-1.8 ms and stay on the loop.
    The embedding error-handling judge needs no thread: it embeds in ``asyncio.to_thread``, and only on goals where
    a call failed (the answer judge likewise). A judge that asks a model awaits the gateway, on the loop it was
    opened on: then every judge stays there."""
    return "embedding" in _match_modes(config) and not uses_judge_model(config)


def _setup(store: RunStore) -> str | None:
    """The run's setup (cumulative | isolated); runs stored before setups existed were cumulative."""
    try:
        return str(store.manifest()["config"].get("setup", "cumulative"))
    except StoreError:
        return None  # not a run's manifest (hand-built stores)


def _guarded(view: Callable[[RunStore, str], dict[str, Any] | None], store: RunStore, score_set: str) -> Any:
    """A view that loads the run's world: None (no table) when the world no longer loads from here."""
    try:
        return view(store, score_set)
    except ValueError:
        return None


def run_name(store: RunStore) -> str:
    """The run folder's real name: ``runs/latest`` is a link, and a report of it names the run it points to."""
    return store.root.resolve().name or store.root.name


def run_identity(store: RunStore, score_set: str | None) -> RunIdentity | None:
    """What the run ran, from its manifest; None for a hand-built store without one."""
    try:
        manifest = store.manifest()
    except StoreError:
        return None
    return RunIdentity.from_manifest(manifest, score_set, run_name(store))


def run_summary(store: RunStore, score_set: str, planned: int | None) -> RunSummary:
    """The summary of one score set of a run (what summary.json and the report show).

    Streams the store: episodes are read as light outlines one at a time, scores reduced as they are read."""
    from judges.run.metrics import EpisodeOutline, summarize
    from sim.judging.backup_paths import backup_path_summary
    from sim.judging.complexity_by_user import complexity_by_user
    from sim.judging.incremental_summary import incremental_summary
    from sim.judging.stacking_summary import stacking_summary
    from sim.judging.stressor_summary import stressor_summary
    from sim.judging.user_summary import user_summary

    sets = store.score_sets()
    try:
        stressors = stressor_summary(store, score_set)
    except StoreError:
        stressors = None  # not a run's manifest (hand-built stores)
    except ValueError as error:  # the run's world no longer loads from here (moved, or a relative path)
        stressors = {"mode": "isolated", "unavailable": f"cannot load the run's world: {error}"}
    run = {
        "run_id": run_name(store),
        **({"identity": identity} if (identity := run_identity(store, score_set)) else {}),
        "setup": _setup(store),
        "score_set": score_set,
        "score_set_config": next((s["config"] for s in sets if s["judge_config"] == score_set), None),
        "score_sets": [s["judge_config"] for s in sets],
        # Sections a run did not have stay unset: summary.json leaves them out rather than writing null.
        **({"stressors": stressors} if stressors else {}),
        **({"users": users} if (users := user_summary(store, score_set)) else {}),
        **({"stacking": stacking} if (stacking := stacking_summary(store, score_set)) else {}),
        **({"incremental": steps} if (steps := incremental_summary(store, score_set)) else {}),
        **({"complexity_by_user": grid} if (grid := _guarded(complexity_by_user, store, score_set)) else {}),
        **({"backup_paths": paths} if (paths := _guarded(backup_path_summary, store, score_set)) else {}),
    }
    summary = summarize(store.iter_episodes(EpisodeOutline), store.iter_scores(score_set), planned)
    return summary.model_copy(update=run)
