"""A UsageTally reads as the sum ``+`` gives, float for float; the gateway's sums are the ones it always kept."""

from __future__ import annotations

import random

from sim.core import MODEL_ROLES, Usage
from sim.llm.gateway import EpisodeLLM, Gateway
from sim.llm.usage_tally import UsageTally


def _usage(rng: random.Random) -> Usage:
    return Usage(
        requests=rng.randint(0, 1),
        input_tokens=rng.randint(0, 9000),
        output_tokens=rng.randint(0, 700),
        cost=rng.random() / 37,
        retries=rng.randint(0, 3),
        cached=rng.randint(0, 1),
        working_s=rng.random() * 2.3,
        waiting_s=rng.random() / 3,
    )


def test_a_tally_reads_as_the_sum_of_its_usages_bit_for_bit() -> None:
    rng = random.Random(5)
    for _ in range(50):
        usages = [_usage(rng) for _ in range(rng.randint(0, 40))]
        summed, tally = Usage(), UsageTally()
        for usage in usages:
            summed += usage
            tally.add(usage)
        assert tally.value() == summed
        assert tally.value().model_dump_json() == summed.model_dump_json()
        if usages:  # a sum that opens with its first usage (a role's)
            opened, started = usages[0], UsageTally(usages[0])
            for usage in usages[1:]:
                opened += usage
                started.add(usage)
            assert started.value().model_dump_json() == opened.model_dump_json()


def test_an_empty_tally_reads_as_no_usage() -> None:
    assert UsageTally().value() == Usage()
    assert UsageTally().value().model_dump_json() == Usage().model_dump_json()


def test_an_episode_handle_sums_what_it_is_charged_as_values_added_in_order() -> None:
    rng = random.Random(9)
    gateway = Gateway()
    handles = [EpisodeLLM(gateway, 10, lambda _event: None, lambda: 0.0) for _ in range(3)]
    total, per_handle = Usage(), [Usage() for _ in handles]
    by_role: list[dict[str, Usage]] = [{} for _ in handles]
    turn = [Usage() for _ in handles]
    for _ in range(300):
        index = rng.randrange(len(handles))
        handle, role, usage = handles[index], rng.choice(["agent", "user", "world", "judge"]), _usage(rng)
        if rng.random() < 0.1:
            handle.start_turn(handle.turn + 1)
            turn[index] = Usage()
        handle.charge_role(role, usage)
        total += usage
        per_handle[index] += usage
        spent = by_role[index].get(role)
        by_role[index][role] = usage if spent is None else spent + usage
        if role == "agent":
            turn[index] += usage
        assert handle.turn_usage.model_dump_json() == turn[index].model_dump_json()
    assert gateway.totals.model_dump_json() == total.model_dump_json()
    for index, handle in enumerate(handles):
        assert handle.usage.model_dump_json() == per_handle[index].model_dump_json()
        assert {r: u.model_dump_json() for r, u in handle.by_role.items()} == {
            r: u.model_dump_json() for r, u in by_role[index].items()
        }
        assert list(handle.usage_by_role()) == [r for r in MODEL_ROLES if r in by_role[index]]
