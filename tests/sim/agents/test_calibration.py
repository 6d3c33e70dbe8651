"""Calibration on every world, under every judge: the oracle scores 1.0 wherever a judge scores it, and the null agent
(which always declines) scores 0.0 under every judge that has an oracle — unless ``CREDIT_RULES`` documents why a
judge may credit it, and that rule explains each goal it credited.

Worlds: every built-in world (``worlds.registry.BUILTIN_WORLDS``: a new one is covered without a line here), the
shared Spider sample imported with the quality filters off (all 493 dev questions, the 44 whose answer is empty
included: a refusal must not pass for "nothing matches") and the hr_1 train queries shipped beside it. The Spider
cases skip when the sample is absent.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from judges.registry import judge_entries
from sim.config.run_config import RunConfig
from sim.core import EpisodeResult, Score
from sim.core.task_state import moved
from sim.run.runner import execute
from tests.support.paths import SPIDER
from tests.support.world_cache import load_worlds_once
from worlds.registry import BUILTIN_WORLDS
from worlds.sql.ingest.folder import write_world
from worlds.sql.ingest.importer import ImportOptions, import_world


def undone_earlier_goal(episode: EpisodeResult, score: Score) -> list[int]:
    """The credited goals that are not ones whose gold puts back what an earlier goal changed (the null agent's
    untouched world is then right): states are changes from the base data, so a path put back is absent."""
    states = {s.goal: s for s in episode.goal_states}
    unexplained = []
    for goal, value in enumerate(score.per_goal):
        state = states.get(goal)
        if not value or state is None or state.gold_before is None or state.gold_after is None:
            continue
        if any(path in state.gold_after for path in moved(state.gold_before, state.gold_after)):
            unexplained.append(goal)
    return unexplained


def not_a_decline_goal(episode: EpisodeResult, score: Score) -> list[int]:
    """The credited goals that are not decline goals (the null agent always declines: on a goal where declining is
    right, as on BFCL's missing-function turns, it is right)."""
    return [g for g, value in enumerate(score.per_goal) if value and episode.task.goals[g].outcome != "decline"]


CREDIT_RULES: dict[str, tuple[str, Callable[[EpisodeResult, Score], list[int]]]] = {
    "state_match": (
        "docs/judges.md: state matches goals that undo an earlier one the null agent never did (smart home 12%, "
        "multidomain 2.6% of the goals at stake)",
        undone_earlier_goal,
    ),
    "decline": (
        "BFCL's own rule: a turn whose ground truth is empty passes when nothing is called (miss_func's held-out "
        "turns); squall's decline judge agrees",
        not_a_decline_goal,
    ),
    "conversation_success": (
        "README, τ²: a τ² conversation without a gold call (a refusal the policy asks for, an answer with nothing to "
        "look up, or a gold action that errs in τ² too) has no call to get wrong; τ²'s reward judges the rest",
        lambda episode, score: [] if not any(g.gold for g in episode.task.goals) else [0],
    ),
    "tau2_reward": (
        "README, τ²: τ²'s own reward credits doing nothing where the gold leaves the database as it was and no "
        "information must be said (airline 19 of 50 tasks, retail 7 of 114)",
        lambda episode, score: [] if tau2_nothing_to_do(episode) else [0],
    ),
}
"""Judge -> (where the rule is documented, which of its credited goals the rule does not explain)."""


def tau2_nothing_to_do(episode: EpisodeResult) -> bool:
    """A τ² task whose gold changes nothing and that asks for no information (nor an action check): what the null
    agent does is what τ²'s reward asks for."""
    criteria = episode.task.evaluation or {}
    states = episode.goal_states
    unchanged = not criteria.get("has_actions") or (bool(states) and not states[-1].gold_after)
    basis = criteria.get("reward_basis") or []
    return unchanged and not criteria.get("communicate_info") and "ACTION" not in basis  # type: ignore[operator]


@pytest.fixture(autouse=True)
def worlds_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The oracle's and the null agent's runs of a world load it once."""
    load_worlds_once(monkeypatch)


async def run(
    tmp_path: Path, world: str, agent: str, tasks: list[str] | None = None
) -> tuple[list[EpisodeResult], list[Score]]:
    settings = {"out": tmp_path, "run_id": agent, "world": world, "agent": agent, "tasks": tasks or []}
    config = RunConfig.model_validate(settings)
    store, summary = await execute(config)
    assert summary["failed_episodes"] == 0 and summary["judge_faults"] == 0
    return store.episodes(), store.scores()


async def check_calibration(tmp_path: Path, world: str, tasks: list[str] | None = None) -> dict[str, int]:
    """Asserts the oracle and null bars on ``world`` (``tasks``: only these); returns how many episodes each judge
    with an oracle scored."""
    _, oracle = await run(tmp_path, world, "oracle", tasks)
    episodes, null = await run(tmp_path, world, "null", tasks)
    judged = {s.judge for s in oracle + null}
    assert judged <= {e.name for e in judge_entries()}
    with_oracle: dict[str, int] = {}
    for judge in sorted(judged):
        oracle_values = [s.value for s in oracle if s.judge == judge and s.value is not None]
        assert all(v == 1.0 for v in oracle_values), (judge, sorted(set(oracle_values)))
        if not oracle_values:
            continue  # nothing to score here (no decline goals, no failures): no oracle, no bar
        with_oracle[judge] = len(oracle_values)
        credited = [s for s in null if s.judge == judge and s.value]
        if not credited:
            continue
        assert judge in CREDIT_RULES, f"{judge} credits the null agent on {len(credited)} episode(s), no rule says why"
        explain = CREDIT_RULES[judge][1]
        by_id = {e.episode_id: e for e in episodes}
        unexplained = {s.episode_id: goals for s in credited if (goals := explain(by_id[s.episode_id], s))}
        assert not unexplained, (judge, CREDIT_RULES[judge][0], unexplained)
    return with_oracle


@pytest.mark.slow
@pytest.mark.parametrize("world", sorted(BUILTIN_WORLDS))
async def test_every_built_in_world_is_calibrated_under_every_judge(tmp_path: Path, world: str) -> None:
    with_oracle = await check_calibration(tmp_path, world)
    assert {"core_api_accuracy", "conversation_success", "ast"} <= set(with_oracle), with_oracle


@pytest.mark.slow
@pytest.mark.parametrize("world", ["tau2:airline", "tau2:retail", "tau2:mock", "tau2:telecom:small"])
async def test_tau2_worlds_are_calibrated_under_every_judge(tmp_path: Path, world: str) -> None:
    pytest.importorskip("worlds.tau2.source").package_root()  # the inspect-evals wheel (make setup)
    with_oracle = await check_calibration(tmp_path, world)
    assert "tau2_reward" in with_oracle and "state_match" in with_oracle, with_oracle


spider = [
    pytest.mark.spider,
    pytest.mark.slow,
    pytest.mark.skipif(not (SPIDER / "dev.json").is_file(), reason=f"Spider sample not found at {SPIDER}"),
]
UNFILTERED = ImportOptions(world="spider", drop_empty=False, max_rows=None)


def hr_1_train(tmp_path: Path) -> Path:
    """The hr_1 train queries (train_gold_hr_1.sql: SQL, tab, db_id a line) as a Spider question file."""
    lines = (SPIDER / "train_gold_hr_1.sql").read_text().splitlines()
    items = [
        {"db_id": db, "question": f"hr_1 train query {i}", "query": sql}
        for i, (sql, db) in enumerate(line.split("\t") for line in lines)
    ]
    path = tmp_path / "hr_1_train.json"
    path.write_text(json.dumps(items))
    return path


@pytest.mark.parametrize("questions", [pytest.param(q, marks=spider) for q in ("dev", "hr_1_train")])
async def test_the_imported_spider_sample_is_calibrated_on_every_question(tmp_path: Path, questions: str) -> None:
    file = SPIDER / "dev.json" if questions == "dev" else hr_1_train(tmp_path)
    imported = import_world("spider", SPIDER / "database", file, UNFILTERED)
    assert imported.report.rejected == 0, imported.report.rejected_by_reason  # every question of every database
    if questions == "dev":
        assert sum(1 for t in imported.tasks if not t.goals[0].answer) == 44  # empty answers are in the set
    folder = write_world(imported, tmp_path / "world")
    with_oracle = await check_calibration(tmp_path / "runs", str(folder))
    assert with_oracle["completion"] == len(imported.tasks) == imported.report.questions
    assert {"core_api_accuracy", "conversation_success", "ast", "answer_facts"} <= set(with_oracle)


BFCL_SAMPLE = [
    *(f"multi_turn_{category}_{i}" for category in ("base", "miss_func", "miss_param", "long_context") for i in (0, 7)),
    "multi_turn_base_147",  # a backend that keeps the caller's argument list (post_tweet's mentions)
    "multi_turn_base_180",  # two turns with empty ground truth
    "multi_turn_miss_func_49",  # BFCL's gold calls a held-out function a turn early
    "multi_turn_miss_param_180",
    "multi_turn_long_context_38",  # 34 gold calls in one turn
]
"""A few entries of each BFCL multi-turn category, and the odd ones; all 800 run by ``squall run`` (docs/bfcl.md)."""


@pytest.mark.slow
async def test_bfcl_multi_turn_is_calibrated_under_every_judge(tmp_path: Path) -> None:
    pytest.importorskip("bfcl_eval")
    with_oracle = await check_calibration(tmp_path, "bfcl:multi_turn", BFCL_SAMPLE)
    assert {"core_api_accuracy", "state_match", "call_f1", "decline", "clarification"} <= set(with_oracle)
