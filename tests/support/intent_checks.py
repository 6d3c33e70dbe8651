"""Executing intent primitives in tests, the way the composer does, with every check asserted.

One helper for every domain's test: an intent's alternatives and its primary chain run from one snapshot,
every call succeeds, every path ends in the same state, an action changes something, the renderings are sound
(the focus is named in the explicit text, never in the coreferential one) and a question's answer is built.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from sim.core import GoldCall, ToolCall
from worlds.domains.multidomain import MultiDomainPack
from worlds.domains.multidomain.intents import Focus, Intent, Primitive
from worlds.domains.multidomain.world import MultiDomainWorld


async def run_gold(world: MultiDomainWorld, calls: Sequence[GoldCall], label: str = "") -> list[Any]:
    """The calls' result contents; every call must succeed."""
    contents = []
    for i, gold in enumerate(calls):
        result = await world.call(ToolCall(id=f"g{i}", name=gold.name, arguments=dict(gold.arguments)))
        assert result.ok, (label, gold.name, gold.arguments, result.content)
        contents.append(result.content)
    return contents


async def check_intent(world: MultiDomainWorld, intent: Intent) -> list[Any]:
    """Run the intent (the world ends after its primary chain) and return the primary chain's contents."""
    start, start_hash = world.snapshot(), world.state_hash()
    ends = []
    for path in intent.alternatives:
        world.restore(start)
        await run_gold(world, path, f"{intent.primitive} alternative")
        ends.append(world.state_hash())
    world.restore(start)
    contents = await run_gold(world, intent.calls, intent.primitive)
    assert all(end == world.state_hash() for end in ends), intent.primitive
    assert any(c.role == "core" for c in intent.calls), intent.primitive
    assert intent.paraphrases, intent.primitive
    if intent.focus is not None:
        assert intent.focus.name in intent.explicit
        assert intent.coreferential is None or intent.focus.name.lower() not in intent.coreferential.lower()
    if intent.answer is not None:
        assert intent.answer(contents).strip()
    else:
        assert world.state_hash() != start_hash, f"{intent.primitive} changed nothing"
    return contents


async def propose_and_check(
    world: MultiDomainWorld, primitive: Primitive, rng: random.Random, focus: Focus | None
) -> Intent | None:
    """The primitive's intent for this state (it must not change the state), executed and checked."""
    before = world.snapshot()
    intent = primitive(world.state, rng, focus)
    assert world.snapshot() == before, f"{primitive.__name__} changed the state"
    if intent is not None:
        await check_intent(world, intent)
    return intent


async def exercise(pack: MultiDomainPack, primitives: Sequence[Primitive], seeds: int = 40) -> dict[str, int]:
    """Each primitive on fresh worlds, after a random warm-up of 0-3 intents (ids known, rows created, a focus
    to follow up on); returns how many intents each produced."""
    produced = {p.__name__: 0 for p in primitives}
    for primitive in primitives:
        for seed in range(seeds):
            rng = random.Random(f"{primitive.__name__}:{seed}")
            world = pack.new_world(0)
            focus: Focus | None = None
            for _ in range(rng.randint(0, 3)):
                warm = await propose_and_check(world, rng.choice(list(primitives)), rng, None)
                focus = warm.focus if warm is not None else focus
            if await propose_and_check(world, primitive, rng, focus) is not None:
                produced[primitive.__name__] += 1
    return produced
