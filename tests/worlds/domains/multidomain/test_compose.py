"""The conversation composer and the shipped multi-domain conversations."""

from __future__ import annotations

import asyncio

import pytest

from sim.core import Task
from worlds.domains.multidomain import MultiDomainPack
from worlds.domains.multidomain.compose import compose
from worlds.gold_check import check_gold_by_execution


@pytest.fixture(scope="module")
def composed() -> list[Task]:
    return asyncio.run(compose(30, seed=11))


async def test_same_seed_same_conversations(composed: list) -> None:
    again = await compose(30, seed=11)
    assert [t.model_dump_json() for t in again] == [t.model_dump_json() for t in composed]
    other = await compose(30, seed=12)
    assert [t.model_dump_json() for t in other] != [t.model_dump_json() for t in composed]


async def test_every_path_of_every_turn_executes(composed: list) -> None:
    pack = MultiDomainPack(tasks=composed)
    assert await check_gold_by_execution(pack) > 0


async def test_coreferential_renderings_leave_out_what_an_earlier_turn_named(composed: list) -> None:
    checked = 0
    for task in composed:
        for t, turn in enumerate(task.goals):
            if turn.user.coreferential is None:
                continue
            entity = turn.user.refers_to
            assert entity, f"{task.id} turn {t}: a coreferential rendering must say what it refers to"
            assert entity.lower() not in turn.user.coreferential.lower()
            assert any(entity in earlier.user.explicit for earlier in task.goals[:t])
            assert entity in turn.user.explicit
            checked += 1
    assert checked >= 5


def test_shipped_conversations_meet_the_dataset_targets() -> None:
    tasks = MultiDomainPack().tasks()
    assert len(tasks) >= 300
    turns = [len(t.goals) for t in tasks]
    calls = [len(turn.gold) for t in tasks for turn in t.goals]
    assert 4 <= sum(turns) / len(turns) <= 5.5
    assert 2 <= sum(calls) / len(calls) <= 3
    assert (
        len(
            {tag for t in tasks for tag in t.tags}
            & {"home", "information", "media", "shopping", "food", "communication", "time"}
        )
        == 7
    )
