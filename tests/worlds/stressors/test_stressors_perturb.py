"""Query perturbations: every row over every shipped multidomain conversation keeps every value, changes the
wording, is deterministic per seed, leaves gold and the shared tasks alone; the oracle still scores 1.0."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest

from sim.config.run_config import RunConfig
from sim.core import CallContext, Task, ToolCall
from sim.episode.runtime import chain
from sim.run.runner import execute
from worlds.domains.multidomain.pack import MultiDomainPack
from worlds.stressors.catalog import builtin_scenarios, select, stressor_class
from worlds.stressors.coverage import affected_goals
from worlds.stressors.scenario import Scenario
from worlds.stressors.types.perturb import OPERATORS, Perturb, protected_mask

ROWS = [s for s in builtin_scenarios() if s.type == "perturb"]
REWRITING = [s for s in ROWS if s.params["op"] != "paraphrase_written"]
"""Rows that rewrite every rendering; ``paraphrase_written`` picks a wording written beforehand (tests of its own)."""
PARAMS = [pytest.param(s, id=s.name) for s in REWRITING]


@cache
def tasks() -> tuple[Task, ...]:
    return tuple(MultiDomainPack().tasks())


def build(s: Scenario, seed: int = 0) -> Perturb:
    stressor = stressor_class(s.type)(s, seed)
    assert isinstance(stressor, Perturb)
    return stressor


def strings(value: Any) -> list[str]:
    """Gold values as the text may spell them (case-sensitive)."""
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, int | float):
        out = [str(value)]
        return [*out, str(int(value))] if isinstance(value, float) and value.is_integer() else out
    if isinstance(value, dict):
        return [v for item in value.values() for v in strings(item)]
    if isinstance(value, list | tuple):
        return [v for item in value for v in strings(item)]
    return []


def renderings(task: Task) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for t, turn in enumerate(task.goals):
        u = turn.user
        out += [(t, u.explicit)] + ([(t, u.coreferential)] if u.coreferential else []) + [(t, p) for p in u.paraphrases]
    return out


def test_table_covers_every_operator_twice() -> None:
    ops = [s.params["op"] for s in REWRITING]
    assert len(REWRITING) >= 8
    assert all(ops.count(op) >= 2 for op in OPERATORS)
    assert all(s.tools == ["*"] and s.level == "user" for s in ROWS)


def test_star_applies_to_every_world_and_turn() -> None:
    assert [s.name if s else None for s, _ in select(["perturb"], ["some_tool"])] == [s.name for s in ROWS]
    task = tasks()[0]
    assert affected_goals(task, ROWS[0]) == list(range(len(task.goals)))


def test_unknown_operator_is_refused() -> None:
    with pytest.raises(ValueError, match="op must be one of"):
        Perturb(ROWS[0], 0, {"op": "shout"})


def test_protected_mask_covers_values_and_names() -> None:
    text = "Set a Train alarm for 08:30. Also, call Ben Walsh."
    mask = protected_mask(text, ["Train", "08:30"])
    covered = "".join(c if m else "_" for c, m in zip(text, mask, strict=True))
    assert "Train" in covered and "08:30" in covered and "Ben Walsh" in covered
    assert not any(mask[: len("Set a ")])


@pytest.mark.parametrize("scenario", PARAMS)
def test_values_kept_text_changed_gold_untouched(scenario: Scenario) -> None:
    before = [t.model_dump_json() for t in tasks()]
    stressor = build(scenario)
    changed = total = 0
    for task in tasks():
        out = stressor.on_task(task)
        assert out.id == task.id and len(out.goals) == len(task.goals)
        for turn, new in zip(task.goals, out.goals, strict=True):
            assert new.gold == turn.gold and new.alternatives == turn.alternatives
            assert new.gold_answer == turn.gold_answer and new.reference_response == turn.reference_response
            assert new.user.refers_to == turn.user.refers_to
        old_r, new_r = renderings(task), renderings(out)
        assert [t for t, _ in old_r] == [t for t, _ in new_r]
        for (t, old), (_, new_text) in zip(old_r, new_r, strict=True):
            turn = task.goals[t]
            values = [v for path in turn.paths() for call in path for v in strings(call.arguments)]
            values += [turn.user.refers_to] if turn.user.refers_to else []
            for value in values:
                if value in old:
                    assert value in new_text, (scenario.name, task.id, t, value, old, new_text)
            total += 1
            changed += new_text != old
    assert changed >= 0.9 * total, (changed, total)
    assert [t.model_dump_json() for t in tasks()] == before  # the shared tasks are not mutated


@pytest.mark.parametrize("scenario", PARAMS)
def test_deterministic_per_seed_and_different_across_seeds(scenario: Scenario) -> None:
    sample = tasks()[:40]
    a = [build(scenario, 1).on_task(t) for t in sample]
    again = [build(scenario, 1).on_task(t) for t in sample]
    other = [build(scenario, 2).on_task(t) for t in sample]
    assert a == again
    one = build(scenario, 1)
    assert [one.on_task(t) for t in sample] == [one.on_task(t) for t in sample]  # a pure function of the task
    differing = sum(x != y for x, y in zip(a, other, strict=True))
    assert differing >= len(sample) // 2


@pytest.mark.parametrize("scenario", PARAMS)
async def test_calls_pass_through_unchanged(scenario: Scenario) -> None:
    world = MultiDomainPack(tasks=[]).new_world(0)
    direct = await MultiDomainPack(tasks=[]).new_world(0).call(ToolCall(id="c0", name="list_timers", arguments={}))
    ctx = CallContext(turn=0, call_index=0)
    outcome = await chain([build(scenario)], world)(ToolCall(id="c0", name="list_timers", arguments={}), ctx)
    assert outcome.result == direct and outcome.fired == ()


async def test_oracle_scores_full_marks_and_the_user_says_the_perturbed_text(tmp_path: Path) -> None:
    cfg = RunConfig.model_validate(
        {
            "out": tmp_path,
            "run_id": "r",
            "agent": "oracle",
            "world": "multidomain",
            "stressors": ["perturb"],
            "limit": 20,
        }
    )
    store, summary = await execute(cfg)
    assert summary["episodes"] == 20 and summary["failed_episodes"] == 0
    assert summary["core_api_accuracy"] == 1.0
    originals = {t.id: t for t in tasks()}
    said = perturbed = 0
    for ep in store.episodes():
        assert ep.task is not None
        original = originals[ep.task_id]
        for e in ep.events:
            if e.kind != "user_message" or e.turn >= len(original.goals):
                continue
            said += 1
            assert e.content == ep.task.goals[e.turn].user.explicit
            perturbed += e.content != original.goals[e.turn].user.explicit
    assert said and perturbed == said
