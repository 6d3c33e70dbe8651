"""squall's BFCL multi-turn judge against BFCL's own checker: the same model outputs (per turn, per step, the calls)
go to BFCL's ``multi_turn_checker`` (after its inference loop's and runner's rules) and, played by a test agent
through squall's episode loop on the BFCL world with the plain scripted user, to the ``bfcl_multi_turn`` judge.
Over the gold of all 800 entries, five kinds of damage on every entry, and seeded random mutations, the verdicts
agree, and so does the reason of each failure (BFCL's error type); a disagreement must be one of
``EXPLAINED``'s, by design."""

from __future__ import annotations

import random
from collections import Counter

import pytest

pytest.importorskip("bfcl_eval")

from judges.bfcl.bfcl_multi_turn import BfclMultiTurn
from sim.agents.baselines import NullAgent, OracleAgent
from sim.core import Task
from tests.judges.bfcl_multi_turn_cases import (
    CATEGORIES,
    DAMAGE,
    Output,
    bfcl_verdict,
    explain,
    gold_output,
    mutate,
    squall_episode,
    squall_verdict,
    tasks,
)

MUTATIONS_PER_CATEGORY = 300


class Tally:
    """Verdict pairs (BFCL's, squall's) and the disagreements no rule explains."""

    def __init__(self) -> None:
        self.pairs: Counter[tuple[bool, bool]] = Counter()
        self.explained: Counter[str] = Counter()
        self.unexplained: list[tuple[str, str, str, str]] = []

    async def check(self, task: Task, output: Output, label: str = "") -> None:
        bfcl, squall = bfcl_verdict(task.id, output), await squall_verdict(task, output)
        self.pairs[(bfcl[0], squall[0])] += 1
        if bfcl == squall:
            return
        why = explain(task, output) if bfcl[0] != squall[0] else None
        if why is None:
            self.unexplained.append((task.id, label, f"bfcl {bfcl}", f"squall {squall}"))
        else:
            self.explained[why] += 1

    @property
    def agreed(self) -> int:
        return self.pairs[(True, True)] + self.pairs[(False, False)]


@pytest.mark.slow
async def test_the_gold_of_every_entry_passes_on_both_sides() -> None:
    tally = Tally()
    for task in tasks():
        await tally.check(task, gold_output(task))
    assert not tally.unexplained, tally.unexplained
    assert tally.pairs == {(True, True): 800}


async def test_an_output_without_calls_fails_every_entry_on_both_sides() -> None:
    tally = Tally()
    for task in tasks()[::8]:
        await tally.check(task, [[] for _ in task.goals])
    assert tally.pairs == {(False, False): 100} and not tally.unexplained


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(DAMAGE))
async def test_each_kind_of_damage_on_every_entry_gets_bfcls_verdict(kind: str) -> None:
    tally = Tally()
    for task in tasks():
        output = DAMAGE[kind](task, gold_output(task), random.Random(f"{kind}:{task.id}"))
        if output is not None:
            await tally.check(task, output, kind)
    assert not tally.unexplained, tally.unexplained
    assert tally.agreed >= 0.99 * sum(tally.pairs.values()) and tally.pairs[(False, False)] > 0, tally.pairs


@pytest.mark.slow
async def test_random_mutations_get_bfcls_verdict() -> None:
    tally = Tally()
    by_category = {c: [t for t in tasks() if t.id.startswith(c + "_")] for c in CATEGORIES}
    for category, pool in by_category.items():
        rng = random.Random(f"mutations:{category}")
        for _ in range(MUTATIONS_PER_CATEGORY):
            task = rng.choice(pool)
            applied, output = mutate(task, rng)
            await tally.check(task, output, "+".join(applied))
    assert not tally.unexplained, tally.unexplained
    assert sum(tally.pairs.values()) == len(CATEGORIES) * MUTATIONS_PER_CATEGORY
    assert min(tally.pairs[(True, True)], tally.pairs[(False, False)]) >= 100, tally.pairs  # both verdicts tested
    assert set(tally.explained) <= {"last turn past BFCL's step limit"}, tally.explained


@pytest.mark.parametrize("entry", ["multi_turn_long_context_38", "multi_turn_miss_func_49", "multi_turn_base_147"])
async def test_the_oracle_passes_and_the_null_agent_fails_by_bfcls_rules(entry: str) -> None:
    """The oracle makes a gold path in one response (34 calls in one turn stay within BFCL's step limit)."""
    task = next(t for t in tasks() if t.id == entry)
    oracle = await BfclMultiTurn().score(await squall_episode(task, agent=OracleAgent))
    assert oracle.value == 1.0 and max(oracle.details["call_steps"]) == 1, oracle
    null = await BfclMultiTurn().score(await squall_episode(task, agent=NullAgent))
    assert null.value == 0.0 and null.errors == ["bfcl:empty_turn"]
