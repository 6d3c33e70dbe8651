"""``--sample stratified:N[:TAG_PREFIX]`` (``sim.config.task_sample``): N tasks with each stratum in proportion,
chosen by the seed, the same every time; bad input refused naming the field, before anything is written."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from sim.config.run_config import RunConfig
from sim.config.task_sample import UNTAGGED, allocate, parse_sample, stratified
from sim.run.plan import make_plan
from tests.support.cli import squall
from worlds.registry import load_world


@dataclass(frozen=True)
class T:
    id: str
    tags: list[str] = field(default_factory=list)


TASKS = (
    [T(f"e{i}", ["x", "difficulty:easy"]) for i in range(10)]
    + [T(f"m{i}", ["difficulty:medium"]) for i in range(6)]
    + [T(f"h{i}", ["difficulty:hard"]) for i in range(3)]
    + [T("u0")]
)


def test_parse() -> None:
    assert parse_sample(" stratified:7 ").text == "stratified:7"
    assert parse_sample("stratified:7:level:").prefix == "level:"
    for bad in ("random:3", "stratified", "stratified:x", "stratified:0", "stratified:3:"):
        with pytest.raises(ValueError):
            parse_sample(bad)


def test_each_stratum_in_proportion_and_never_over_its_size() -> None:
    assert allocate({"easy": 10, "medium": 6, "hard": 3, UNTAGGED: 1}, 10) == {
        "easy": 5, "medium": 3, "hard": 2, UNTAGGED: 0,
    }  # fmt: skip
    assert allocate({"a": 2, "b": 1}, 3) == {"a": 2, "b": 1}
    chosen, kept = stratified(TASKS, parse_sample("stratified:10"), seed=0)
    assert len(chosen) == 10 and chosen == sorted(chosen)
    assert kept == {
        "difficulty:easy": [5, 10],
        "difficulty:hard": [2, 3],
        "difficulty:medium": [3, 6],
        UNTAGGED: [0, 1],
    }
    picked = [TASKS[i].id[0] for i in chosen]
    assert (picked.count("e"), picked.count("m"), picked.count("h")) == (5, 3, 2)


def test_the_seed_decides_and_the_same_seed_gives_the_same_tasks() -> None:
    sample = parse_sample("stratified:10")
    assert stratified(TASKS, sample, 3) == stratified(TASKS, sample, 3)
    assert {tuple(stratified(TASKS, sample, s)[0]) for s in range(5)} != {tuple(stratified(TASKS, sample, 0)[0])}


def test_a_named_prefix_and_the_errors() -> None:
    _, kept = stratified(TASKS, parse_sample("stratified:4:x"), 0)
    assert kept == {"x": [2, 10], UNTAGGED: [2, 10]}
    with pytest.raises(ValueError, match="no task has a tag starting with 'level:'"):
        stratified(TASKS, parse_sample("stratified:4:level:"), 0)
    with pytest.raises(ValueError, match="no difficulty:/category:/complexity: tag"):
        stratified([T("a", ["x"])], parse_sample("stratified:1"), 0)
    with pytest.raises(ValueError, match="asks for 21 tasks of the 20 there are"):
        stratified(TASKS, parse_sample("stratified:21"), 0)


def test_a_run_plans_the_sample() -> None:
    pack = load_world("multidomain")
    plan = make_plan(RunConfig(world="multidomain", sample="stratified:20:shop", seed=1), pack)
    tasks = [unit.task for unit in plan.units]
    assert len(tasks) == 20
    share = sum("shopping" in t.tags for t in pack.tasks()) / len(pack.tasks())
    assert sum("shopping" in t.tags for t in tasks) == round(20 * share)
    assert plan.strata is not None and sum(kept for kept, _ in plan.strata.values()) == 20


def test_bad_samples_are_refused_naming_the_field(tmp_path: Path) -> None:
    for extra in (("--sample", "stratified:5"), ("--sample", "stratified:2:multi", "--limit", "2")):
        code, _, err = squall("run", "--world", "multidomain", "--out", str(tmp_path), "--run-id", "r", *extra)
        assert code == 2 and "--sample" in err, err
    assert not (tmp_path / "r").exists()
