"""The conversation composer: chains intent primitives into multi-turn conversations across domains.

Each conversation runs live in a fresh world while it is composed: a primitive proposes an intent from the
state the earlier turns left, the composer executes its primary chain (every call must succeed) and each
alternative from the same starting state (each must end in the same state), and only then keeps the turn.
So every shipped gold call executes, and question turns carry answers built from the real results.

A turn may follow up on the previous turn's entity; then its coreferential rendering ("dim it to 30%")
is kept, because the earlier turn named what "it" is. Seeded and reproducible: the same seed and count give
the same file, byte for byte.

    python -m worlds.domains.multidomain.compose --count 320 --seed 7   # writes data/conversations.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sim.core import Goal, GoldCall, Task, ToolCall, UserIntent
from worlds.domains.multidomain.domains import DOMAIN_MODULES
from worlds.domains.multidomain.intents import Focus, Intent, Primitive, combine
from worlds.domains.multidomain.pack import CONVERSATIONS, DATA_DIR, MultiDomainPack
from worlds.domains.multidomain.world import WORLD_NAME, MultiDomainWorld

FOLLOW_UP = 0.45
"""Chance that a turn stays on the previous turn's domain and offers its entity for a follow-up."""
COMPOUND = 0.5
"""Chance that a turn also asks for something from another of the conversation's domains."""
TURN_COUNTS = (4, 5, 5, 6)
ATTEMPTS_PER_TURN = 40


def primitives_by_domain() -> dict[str, tuple[Primitive, ...]]:
    found: dict[str, tuple[Primitive, ...]] = {}
    for name in DOMAIN_MODULES:
        module = importlib.import_module(f"worlds.domains.multidomain.domains.{name}_intents")
        found[name] = tuple(module.PRIMITIVES)
    return found


async def _execute(world: MultiDomainWorld, calls: Sequence[GoldCall]) -> list[Any] | None:
    """The calls' result contents, or None at the first failure."""
    contents = []
    for i, gold in enumerate(calls):
        result = await world.call(ToolCall(id=f"compose_{i}", name=gold.name, arguments=dict(gold.arguments)))
        if not result.ok:
            return None
        contents.append(result.content)
    return contents


async def _try_intent(world: MultiDomainWorld, intent: Intent) -> list[Any] | None:
    """Execute the alternatives then the primary chain from the same state; the world ends after the primary.
    None (and the world as it was) when a call fails, an alternative ends elsewhere, or an action changes
    nothing (a request the world already satisfies is not a turn worth scoring)."""
    start, start_hash = world.snapshot(), world.state_hash()
    ends = []
    for path in intent.alternatives:
        world.restore(start)
        if await _execute(world, path) is None:
            world.restore(start)
            return None
        ends.append(world.state_hash())
    world.restore(start)
    contents = await _execute(world, intent.calls)
    unchanged = intent.answer is None and world.state_hash() == start_hash
    if contents is None or unchanged or any(h != world.state_hash() for h in ends):
        world.restore(start)
        return None
    return contents


def _goal(intent: Intent, contents: list[Any], previous: Focus | None) -> Goal:
    refers_back = previous is not None and intent.focus is not None and intent.focus.key == previous.key
    return Goal(
        user=UserIntent(
            explicit=intent.explicit,
            coreferential=intent.coreferential if refers_back else None,
            paraphrases=list(intent.paraphrases),
            refers_to=intent.focus.name if refers_back and intent.focus is not None else None,
        ),
        gold=list(intent.calls),
        alternatives=[list(path) for path in intent.alternatives],
        gold_answer=intent.answer(contents) if intent.answer is not None else None,
    )


async def compose_one(
    pack: MultiDomainPack, index: int, seed: int, primitives: dict[str, tuple[Primitive, ...]]
) -> Task:
    rng = random.Random(f"{seed}:{index}")
    world = pack.new_world(0)
    domains = rng.sample(sorted(primitives), k=min(len(primitives), rng.choice((2, 3, 3))))
    goals: list[Goal] = []
    used: list[str] = []
    focus: Focus | None = None
    domain = rng.choice(domains)
    for _ in range(rng.choice(TURN_COUNTS)):
        follow = focus is not None and rng.random() < FOLLOW_UP
        if not follow:
            domain = rng.choice(domains)
        for attempt in range(ATTEMPTS_PER_TURN):
            primitive = rng.choice(primitives[domain])
            intent = primitive(world.state, rng, focus if follow else None)
            if intent is None or intent.primitive in used[-1:]:
                continue
            if follow and attempt < ATTEMPTS_PER_TURN // 2 and (intent.focus is None or intent.focus != focus):
                continue  # a follow-up first looks for a primitive that can act on the same entity
            contents = None
            others = [d for d in domains if d != domain]
            if others and rng.random() < COMPOUND:
                second = rng.choice(primitives[rng.choice(others)])(world.state, rng, None)
                both = combine(intent, second) if second is not None else None
                if both is not None and (contents := await _try_intent(world, both)) is not None:
                    intent = both
            if contents is None and (contents := await _try_intent(world, intent)) is None:
                continue
            goals.append(_goal(intent, contents, focus if follow else None))
            used.append(intent.primitive)
            focus = intent.focus
            break
    tags = ["multi-turn", *sorted({p.split(".")[0] for u in used for p in u.split("+")})]
    if any("+" in u for u in used):
        tags.append("compound")
    if any(t.user.coreferential for t in goals):
        tags.append("coreference")
    if any(t.gold_answer for t in goals):
        tags.append("question")
    if any(t.alternatives for t in goals):
        tags.append("alt-path")
    return Task(
        id=f"md-{index:03d}",
        world=WORLD_NAME,
        description="Intents: " + ", ".join(used),
        tags=tags,
        goals=goals,
    )


async def compose(count: int, seed: int, pack: MultiDomainPack | None = None) -> list[Task]:
    pack = pack or MultiDomainPack(tasks=[])
    primitives = primitives_by_domain()
    return [await compose_one(pack, i, seed, primitives) for i in range(count)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m worlds.domains.multidomain.compose", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--count", type=int, default=320)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=DATA_DIR / CONVERSATIONS)
    args = parser.parse_args(argv)
    tasks = asyncio.run(compose(args.count, args.seed))
    text = "".join(task.model_dump_json(exclude_defaults=True) + "\n" for task in tasks)
    tmp = args.out.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(args.out)  # never a half-written dataset
    goals = sum(len(t.goals) for t in tasks)
    calls = sum(len(goal.gold) for t in tasks for goal in t.goals)
    shape = f"{goals / len(tasks):.2f} goals each, {calls / goals:.2f} calls per goal"
    print(f"{len(tasks)} conversations, {shape} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
