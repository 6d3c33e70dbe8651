"""Smart home tasks: every path of every turn replays cleanly and ends where the primary path ends."""

from __future__ import annotations

import pytest

from sim.core import Goal, GoldCall, Task, ToolCall
from worlds.domains.smart_home import SmartHomePack, SmartHomeWorld
from worlds.domains.smart_home.pack import DATA_DIR
from worlds.domains.smart_home.specs import SPECS
from worlds.task_files import load_tasks

READ_ONLY = {spec.name for spec in SPECS if spec.read_only}
PACK = SmartHomePack()  # loaded at collection: the tasks parametrize the replay test


async def replay(world: SmartHomeWorld, calls: list[GoldCall], where: str) -> None:
    for i, gold in enumerate(calls):
        result = await world.call(ToolCall(id=f"g{i}", name=gold.name, arguments=gold.arguments))
        assert result.ok, f"{where} call {i} {gold.name}{gold.arguments}: {result.content}"


def core(path: list[GoldCall]) -> list[GoldCall]:
    return [call for call in path if call.role == "core"]


@pytest.mark.parametrize("task", PACK.tasks(), ids=lambda t: t.id)
async def test_every_path_succeeds_and_matches_the_primary_state(task: Task) -> None:
    world = PACK.new_world(seed=0)
    for t, turn in enumerate(task.goals):
        start = world.snapshot()
        hashes: list[str] = []
        for p, path in enumerate(turn.paths()):
            for label, calls in (("all", path), ("core", core(path))):
                world.restore(start)
                await replay(world, calls, f"{task.id} turn {t} path {p} ({label} calls)")
                hashes.append(world.state_hash())
        assert len(set(hashes)) == 1, f"{task.id} turn {t}: paths end in different states"
        world.restore(start)
        await replay(world, turn.gold, f"{task.id} turn {t} primary")  # next turn starts from the primary


def test_task_set_covers_the_brief() -> None:
    tasks = PACK.tasks()
    assert [t.id for t in tasks] == [f"sh-{i:03d}" for i in range(1, 11)]
    assert all(t.world == "smart_home" and 2 <= len(t.goals) <= 4 for t in tasks)
    turns = [turn for t in tasks for turn in t.goals]
    assert sum(any(turn.alternatives for turn in t.goals) for t in tasks) >= 3
    assert any(a.name != "activate_scene" for turn in turns for path in turn.alternatives for a in path)
    assert sum(turn.gold_answer is not None for turn in turns) >= 3
    assert sum(turn.reference_response is not None for turn in turns) >= 2
    assert all(turn.user.coreferential for t in tasks for turn in t.goals[1:] if turn.gold_answer is None)


@pytest.mark.parametrize("turn", [turn for t in PACK.tasks() for turn in t.goals], ids=lambda _: "")
def test_roles_follow_the_rule(turn: Goal) -> None:
    """Support calls are lookups; a core lookup exists only to answer the user."""
    for path in turn.paths():
        assert all(c.name in READ_ONLY for c in path if c.role == "support")
        if any(c.name in READ_ONLY for c in core(path)):
            assert turn.gold_answer is not None
    if not core(turn.gold):
        assert turn.gold_answer is not None  # nothing to do: the reply is the whole job


def test_a_prerequisite_power_on_is_core_gold() -> None:
    """sh-005: the user asks only for a color; switching the lamp on first is part of the gold."""
    first = next(t for t in PACK.tasks() if t.id == "sh-005").goals[0]
    assert "on" not in first.user.explicit.split()
    assert [(c.name, c.role) for c in core(first.gold)] == [("set_power", "core"), ("set_color", "core")]


def test_pack_rejects_tasks_that_do_not_fit_the_world() -> None:
    base = PACK.tasks()[0]

    def with_gold(*gold: GoldCall) -> Task:
        turn = base.goals[0].model_copy(update={"gold": list(gold)})
        return base.model_copy(update={"goals": [turn]})

    with pytest.raises(ValueError, match="no such tool"):
        SmartHomePack([with_gold(GoldCall(name="open_garage"))])
    with pytest.raises(ValueError, match="'level'"):
        SmartHomePack([with_gold(GoldCall(name="set_brightness", arguments={"device_id": "x", "level": 500}))])
    with pytest.raises(ValueError, match="not 'smart_home'"):
        SmartHomePack([base.model_copy(update={"world": "bank"})])
    with pytest.raises(ValueError, match="duplicate task id sh-001"):
        SmartHomePack([base, base])


def test_pack_serves_given_tasks_and_ships_its_own() -> None:
    only = SmartHomePack(PACK.tasks()[:2])
    assert [t.id for t in only.tasks()] == ["sh-001", "sh-002"]
    assert only.name == "smart_home"
    assert only.new_world(seed=3).state_hash() == PACK.new_world(seed=0).state_hash()
    assert load_tasks(DATA_DIR / "tasks.jsonl") == PACK.tasks()
