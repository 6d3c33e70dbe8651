"""squall's bfcl_ast judge agrees with BFCL's own AST checker (imported from the bfcl-eval wheel, in tests only).

The same model outputs go to both, over every single-turn entry: (a) the gold, (b) the gold systematically damaged
(a call dropped, added or renamed, order swapped, a value changed, retyped, int <-> float, string case and
punctuation variants that standardisation accepts or not, a parameter dropped or added), (c) seeded random
mutations across categories. The verdicts must be equal, and so must the reason (BFCL's error type); a case where
they differ is listed in ``KNOWN`` with why, and nothing else may differ.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

pytest.importorskip("bfcl_eval")

from tests.judges.bfcl_ast_cases import (
    AST_CATEGORIES,
    RELEVANCE_CATEGORIES,
    Calls,
    Entry,
    bfcl_verdict,
    entries,
    squall_verdict,
)
from tests.judges.bfcl_ast_damage import damaged, mutate

CATEGORIES = AST_CATEGORIES + RELEVANCE_CATEGORIES
RANDOM_CASES = 2400
SEED = 20
KNOWN: dict[tuple[str, str], str] = {}
"""(entry id, damage kind) -> why squall's verdict differs from BFCL's there."""
UNPASSABLE = {
    "live_simple_106-63-0": "required parameters whose accepted list is empty: no value, and no omission, passes",
    "live_simple_112-68-0": "the same: five required parameters accept nothing",
    "live_multiple_862-181-3": "the answer requires journey_start_time, which the function does not declare",
    "live_multiple_964-207-0": "the answer gives question, the function requires statement instead",
}
"""Entries whose gold BFCL's own checker rejects, and no output can pass: the oracle's ceiling there is BFCL's."""


async def _compare(entry: Entry, kind: str, calls: Calls, tally: Counter[str], differ: list[str]) -> None:
    bfcl = bfcl_verdict(entry, calls)
    if bfcl is None:  # BFCL's checker raised: no verdict of its to agree with
        tally["bfcl_raised"] += 1
        return
    squall = await squall_verdict(entry, calls)
    tally["cases"] += 1
    tally["pass" if bfcl[0] else "fail"] += 1
    if kind == "gold" and not bfcl[0]:
        tally[f"gold_fails:{entry.task.id}"] += 1
    if squall != bfcl and (entry.task.id, kind) not in KNOWN:
        differ.append(f"{entry.task.id} {kind}: BFCL {bfcl} squall {squall} on {calls!r:.300}")


@pytest.mark.parametrize("category", CATEGORIES)
async def test_gold_verdicts_agree(category: str) -> None:
    tally: Counter[str] = Counter()
    differ: list[str] = []
    for entry in entries(category):
        await _compare(entry, "gold", entry.gold(), tally, differ)
    assert not differ, "\n".join(differ[:20])
    assert tally["cases"] == len(entries(category))
    failed = {k.removeprefix("gold_fails:") for k in tally if k.startswith("gold_fails:")}
    assert failed == {e.task.id for e in entries(category)} & UNPASSABLE.keys()
    print(f"{category}: gold {dict(tally)}")


@pytest.mark.parametrize("category", CATEGORIES)
async def test_damaged_gold_verdicts_agree(category: str) -> None:
    tally: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    differ: list[str] = []
    for entry in entries(category):
        for kind, calls in damaged(entry):
            kinds[kind] += 1
            await _compare(entry, kind, calls, tally, differ)
    assert not differ, f"{len(differ)} differ:\n" + "\n".join(differ[:20])
    assert tally["fail"] > 0
    print(f"{category}: damaged {dict(tally)} kinds {dict(kinds)}")


async def test_random_mutations_agree() -> None:
    rng = random.Random(SEED)
    tally: Counter[str] = Counter()
    differ: list[str] = []
    for _ in range(RANDOM_CASES):
        category = rng.choice(CATEGORIES)
        entry = rng.choice(entries(category))
        await _compare(entry, "random", mutate(entry, rng), tally, differ)
    assert not differ, f"{len(differ)} differ:\n" + "\n".join(differ[:20])
    assert tally["cases"] >= 2000 and tally["pass"] > 200 and tally["fail"] > 200
    print(f"random: {dict(tally)}")
