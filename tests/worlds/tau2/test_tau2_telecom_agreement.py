"""squall's telecom (both sides: the carrier's database and the user's phone) against the wheel's own classes
(``wheel_tools``): every one of τ²'s 2,285 telecom tasks, its initialization actions and then its gold actions in
order, agent and user side, run step by step in both: the same calls refused, equal databases and equal phones after
every step, and the same verdict on every environment assertion at the end.

Equal: the wheel's pydantic dumps (JSON mode: dates as text) with fields left at None dropped, numbers by value; a
bill squall opens gets the next free id where the wheel draws a random one, so new bills are compared by order."""

from __future__ import annotations

import copy
import json
from functools import lru_cache
from typing import Any

import pytest

from sim.core import ToolCall, WorldContext
from sim.core.task_state import canonical
from worlds.registry import load_world

source = pytest.importorskip("worlds.tau2.source")
try:
    source.package_root()
except source.Tau2Error:
    pytest.skip("the inspect-evals wheel is not installed (make setup)", allow_module_level=True)

from tests.worlds.tau2.wheel_tools import WheelToolError, wheel_tool_classes, without_none  # noqa: E402
from worlds.tau2 import Tau2Pack  # noqa: E402
from worlds.tau2.telecom_world import TelecomWorld  # noqa: E402

BASE_BILLS = {"B1001", "B1002", "B1003", "B1004", "B1005", "B1006"}


def keyed(tables: dict[str, list[dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    return {t: {str(r[f"{t.removesuffix('s')}_id"]): r for r in rows} for t, rows in tables.items()}


@lru_cache(maxsize=1024)
def normalized(text: str, names: tuple[tuple[str, str], ...]) -> Any:
    """A table (or the phone) given as JSON text, fields left at None dropped, the bills in ``names`` renamed, numbers
    by value. Cached by text: most steps leave most tables as they were, and the tables a task's setup leaves alone
    are the same in every task, so each is normalized once, not after every step of every task."""
    renames = dict(names)

    def rename(value: Any) -> Any:
        if isinstance(value, dict):
            return {renames.get(k, k): rename(v) for k, v in value.items()}
        if isinstance(value, list):
            return [rename(v) for v in value]
        return renames.get(value, value) if isinstance(value, str) else value

    return canonical(rename(without_none(json.loads(text))))


def new_bills_by_order(db: dict[str, dict[str, Any]], known: set[str]) -> dict[str, Any]:
    """The database with the bills a step opened (ids not known before the task) renamed ``new_<n>`` in the order
    the customers list them."""
    fresh = [b for c in db["customers"].values() for b in c["bill_ids"] if b not in known]
    names = tuple((old, f"new_{n}") for n, old in enumerate(fresh))
    return {table: normalized(json.dumps(rows), names) for table, rows in db.items()}


def differ(where: str, agent: Any, user: Any, ours: TelecomWorld, known: set[str]) -> list[str]:
    """What differs now between the wheel's two sides and squall's."""
    theirs_db = new_bills_by_order(keyed(agent.db.model_dump(mode="json")), known)
    # squall's records as they are (``whole()`` without its copies: nothing here writes to them)
    mine_db = new_bills_by_order({table: dict(ours.db.rows(table)) for table in ours.db.tables}, known)
    found = [f"{where}: database differs in {t}" for t in theirs_db if theirs_db[t] != mine_db.get(t)]
    theirs_phone, mine_phone = json.dumps(user.db.model_dump(mode="json")), json.dumps(ours.phone.data)
    if normalized(theirs_phone, ()) != normalized(mine_phone, ()):
        found.append(f"{where}: phone differs")
    return found


def disagreements(pack: Tau2Pack, classes: dict[str, Any], raw_tasks: dict[str, Any]) -> tuple[int, list[str]]:
    """(steps compared, each disagreement named by task and step); ``raw_tasks``: τ²'s tasks by id, as written."""
    steps, problems = 0, []
    for task in pack.tasks():
        assert task.evaluation is not None
        raw = raw_tasks[task.id]
        agent, user = classes["telecom"](), classes["telecom_user"]()
        agent.initialize()
        user.initialize()
        env = classes["telecom_environment"](user, agent)
        for action in (raw.get("initial_state") or {}).get("initialization_actions") or []:
            side = user if action["env_type"] == "user" else agent
            getattr(side, action["func_name"])(**copy.deepcopy(action.get("arguments") or {}))
            env.sync_tools()
        ours = pack.new_world(0, WorldContext(task=task))
        assert isinstance(ours, TelecomWorld)
        known = set(keyed(agent.db.model_dump(mode="json"))["bills"]) | BASE_BILLS

        problems += differ(f"task {task.id} after setup", agent, user, ours, known)
        actions: list[Any] = task.evaluation["actions"]  # type: ignore[assignment]
        for n, action in enumerate(actions):
            by_user = action.get("requestor") == "user"
            env.sync_tools()  # the wheel's tools sync as they are looked up
            try:
                getattr(user if by_user else agent, action["name"])(**copy.deepcopy(action["arguments"]))
                wheel_ok = True
            except WheelToolError:
                wheel_ok = False
            env.sync_tools()
            call = ToolCall(id=str(n), name=action["name"], arguments=copy.deepcopy(action["arguments"]))
            mine = ours.user_execute(call) if by_user else ours.execute(call)
            steps += 1
            if mine.ok != wheel_ok:
                problems.append(f"task {task.id} step {n} {action['name']}: wheel ok={wheel_ok}, squall {mine.status}")
            problems += differ(f"task {task.id} step {n} {action['name']}", agent, user, ours, known)
        env.sync_tools()
        wheel_checks = [
            getattr(user if a["env_type"] == "user" else agent, a["func_name"])(**a["arguments"]) == a["assert_value"]
            for a in task.evaluation["env_assertions"]  # type: ignore[union-attr]
        ]
        if [c.passed for c in ours.end_checks()] != wheel_checks:
            problems.append(f"task {task.id}: assertions wheel {wheel_checks}, squall {ours.end_checks()}")
    return steps, problems


@pytest.mark.slow
def test_squall_telecom_leaves_the_wheels_database_and_phone_after_every_gold_step() -> None:
    pack = load_world("tau2:telecom:full")  # every task, loaded before the wheel's packages are entered
    assert isinstance(pack, Tau2Pack)
    raw_tasks = {str(t["id"]): t for t in source.read_json(source.domain_file("telecom", "tasks.json.gz"))}
    with wheel_tool_classes() as classes:
        steps, problems = disagreements(pack, classes, raw_tasks)
    assert steps > 10_000 and problems == [], problems[:10]
