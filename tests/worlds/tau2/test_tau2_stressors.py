"""Stressors on τ²'s domains: each type fires on a few tasks it can touch, alone (``--stressor-mode isolated``);
the oracle keeps full core API accuracy and τ² reward where a solution remains, the null agent scores none; the
types that cannot apply to a domain (no backup path, one goal per task) leave it untouched, as the docs say."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from sim.config.run_config import RunConfig
from sim.core import GoldCall
from sim.run.runner import execute
from worlds.stressors.catalog import builtin_scenarios, select, stressor_class
from worlds.stressors.coverage import affected_goals

pytest.importorskip("worlds.tau2.source")
try:
    from worlds.tau2 import Tau2Pack
    from worlds.tau2.pack import load_pack
except ValueError as exc:  # the wheel is absent
    pytest.skip(str(exc), allow_module_level=True)

from worlds.tau2.backups import backup_paths, domain_backups, with_backups

SOLVABLE = ("drift", "expand", "perturb")
"""Types under which a solution remains: the oracle keeps τ² reward 1.0 too."""
DECLINES = ("outage.impossible", "missing.removed")
"""Rows that make the task a decline goal: the oracle declines (core API accuracy over the baseline's goals)."""
CASES = [
    *((d, t) for d in ("airline", "retail", "telecom:small") for t in (*SOLVABLE, *DECLINES, "failure")),
    ("mock", "failure"),
]
"""Telecom on ``tasks_small``: every task is a dual-control one, and the agent acts the types touch are few."""
OVERRIDES = {"expand": ":ranker=lexical"}
"""BM25-ranked neighbours: no embedding model to load or catalog to build in a test."""


@cache
def pack(domain: str) -> Tau2Pack:
    return load_pack(f"tau2:{domain}")


def touched(domain: str, item: str, n: int = 2) -> list[str]:
    """The first ``n`` tasks with a goal that one of the item's rows always touches (a '*' row only if no other)."""
    rows = [s for s, _ in select([item], [t.name for t in pack(domain).tool_specs()])]
    rows = [s for s in rows if "*" not in s.tools or s.probability >= 1] or rows
    return [t.id for t in pack(domain).tasks() if any(affected_goals(t, s) for s in rows)][:n]


@pytest.mark.parametrize(("domain", "item"), CASES)
async def test_the_type_fires_the_oracle_keeps_what_remains_and_the_null_agent_scores_nothing(
    domain: str, item: str, tmp_path: Path
) -> None:
    ids = touched(domain, item)
    assert ids, f"{item} touches no task of tau2:{domain}"
    stressors = [item + OVERRIDES.get(item, "")]
    config = {"out": tmp_path, "world": f"tau2:{domain}", "stressors": stressors, "stressor_mode": "isolated"}
    store, oracle = await execute(RunConfig.model_validate({**config, "tasks": ids, "run_id": "o", "agent": "oracle"}))
    episodes = list(store.episodes())
    stressed = [ep for ep in episodes if ep.variant]
    fired = {s for ep in stressed for ev in ep.events for s in ev.scenarios}
    if item == "expand":  # it changes what the agent is offered, no event: the stressed toolkits differ
        fired = {len(ep.tools) for ep in stressed} - {len(ep.tools) for ep in episodes if not ep.variant}
    if item in DECLINES:  # the task became a decline goal: the oracle calls nothing where the baseline acted
        fired = {ep.episode_id for ep in stressed if not any(ev.kind == "tool_call" for ev in ep.events)}
    assert stressed and fired, f"{item} never fired on tau2:{domain} tasks {ids}"
    assert oracle["failed_episodes"] == 0
    if item != "failure":  # a failure no retry gets past leaves the gold replay no path (docs/worlds.md)
        assert oracle["core_api_accuracy"] == 1.0
    if item in (*SOLVABLE, *DECLINES):  # on a decline row, declining leaves the database as the gold does
        assert oracle["tau2_reward"] == 1.0
    _, null = await execute(RunConfig.model_validate({**config, "tasks": ids, "run_id": "n", "agent": "null"}))
    assert null["core_api_accuracy"] == 0.0
    if item in SOLVABLE and domain.startswith("telecom"):  # elsewhere τ² credits doing nothing where the gold
        assert null["tau2_reward"] == 0.0  # changes nothing and says nothing (docs/worlds.md): telecom's must act


@pytest.mark.parametrize("domain", ["airline", "retail", "mock"])
def test_no_shipped_task_has_a_backup_path_so_a_backup_outage_touches_none(domain: str) -> None:
    """τ²'s users know one way to be found (email, or name and zip), and no other lookup or action has a twin."""
    rules = domain_backups(domain)
    assert rules.rules or rules.none_because
    (outage,) = [s for s in builtin_scenarios() if s.name == "outage.backup"]
    assert not any(t.goals[0].alternatives or affected_goals(t, outage) for t in pack(domain).tasks())
    (until_later,) = [s for s in builtin_scenarios() if s.name == "missing.until_later"]
    assert not any(affected_goals(t, until_later) for t in pack(domain).tasks())  # one goal: no later turn


async def test_a_user_who_can_give_both_gets_a_backup_path_the_outage_cuts_and_the_oracle_takes(
    tmp_path: Path,
) -> None:
    """Retail task 0 with the user's email added to what they know: the lookup by name and zip has its twin by
    email, which returns the same user and leaves the same database."""
    retail = pack("retail")
    task = next(t for t in retail.tasks() if t.id == "0")
    told = task.model_copy(
        update={"user_scenario": f"{task.user_scenario}\nYour email is yusuf.rossi7301@example.com."}
    )
    (path,) = backup_paths(told, "retail", retail.toolkit, retail._base)
    assert path[0] == GoldCall(name="find_user_id_by_email", arguments={"email": "yusuf.rossi7301@example.com"})
    assert path[1:] == task.goals[0].gold[1:]
    stressed = with_backups(told, "retail", retail.toolkit, retail._base)
    (outage,) = [s for s in builtin_scenarios() if s.name == "outage.backup"]
    assert affected_goals(stressed, outage) == [0]
    assert stressor_class("outage")(outage, 0).on_task(stressed) == stressed  # nothing rewritten: a path remains


async def test_drift_renames_the_gold_actions_telecoms_action_check_reads(tmp_path: Path) -> None:
    """Telecom's reward basis holds ACTION: under a renamed endpoint or parameter the oracle's call, made in the new
    schema, must meet τ²'s gold action rewritten the same way (``SchemaDrift._criteria_to_new``)."""
    config = {"out": tmp_path, "world": "tau2:telecom:small", "stressors": ["drift"], "stressor_mode": "isolated"}
    store, oracle = await execute(RunConfig.model_validate({**config, "run_id": "o", "agent": "oracle"}))
    assert oracle["failed_episodes"] == 0 and oracle["tau2_reward"] == 1.0
    base = {t.id: t.evaluation for t in pack("telecom:small").tasks()}
    renamed = [ep for ep in store.episodes() if ep.variant and ep.task.evaluation != base[ep.task_id]]
    assert any("ACTION" in (ep.task.evaluation or {}).get("reward_basis", []) for ep in renamed)  # type: ignore[operator]
