"""τ²'s domains as squall worlds: the wheel's data read without importing it, listings and splits, tasks as squall
builds them, copy-on-write databases, squall's own tools on τ²'s rules, and every gold plan executing."""

from __future__ import annotations

import subprocess
import sys

import pytest

from sim.core import ToolCall, WorldContext
from worlds.gold_check import check_gold_by_execution
from worlds.registry import WorldLoadError, load_world

source = pytest.importorskip("worlds.tau2.source")
try:
    source.package_root()
except source.Tau2Error:
    pytest.skip("the inspect-evals wheel is not installed (make setup)", allow_module_level=True)

from worlds.tau2 import Tau2Pack, listing  # noqa: E402
from worlds.tau2.tasks import first_person  # noqa: E402
from worlds.tau2.world import Tau2World  # noqa: E402


def pack(spec: str) -> Tau2Pack:
    loaded = load_world(spec)
    assert isinstance(loaded, Tau2Pack)
    return loaded


def call(world: Tau2World, name: str, **arguments: object) -> object:
    result = world.execute(ToolCall(id="c", name=name, arguments=arguments))
    return result.content if result.ok else ("error", result.status, result.content)


def test_the_wheel_is_read_as_files_and_its_python_is_never_imported() -> None:
    code = (
        "import sys; from worlds.registry import load_world; load_world('tau2:retail'); load_world('tau2:airline');"
        "print(sorted(m for m in sys.modules if m.startswith(('inspect_ai', 'inspect_evals'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_listing_gives_each_domain_its_task_count_and_splits() -> None:
    rows = {row["name"]: row for row in listing()}
    assert rows["tau2:airline"]["conversations"] == 50
    assert rows["tau2:airline"]["splits"] == {"train": 30, "test": 20, "base": 50}
    assert rows["tau2:retail"]["conversations"] == 114 and rows["tau2:retail"]["splits"]["test"] == 40
    assert rows["tau2:mock"]["conversations"] == 9
    telecom = rows["tau2:telecom"]  # dual control: its user holds a phone
    assert telecom["supported"] and telecom["conversations"] == 2285
    assert telecom["splits"] == {"small": 20, "train": 74, "test": 40, "full": 2285, "base": 114}


def test_a_split_selects_its_tasks_and_a_bad_spec_says_what_is_known() -> None:
    assert len(pack("tau2:airline").tasks()) == 50 == len(pack("tau2:airline:all").tasks())
    test = pack("tau2:retail:test")
    assert len(test.tasks()) == 40 and all(t.world == "tau2:retail:test" for t in test.tasks())
    with pytest.raises(WorldLoadError, match="no split 'dev'; splits: base, test, train"):
        load_world("tau2:airline:dev")
    with pytest.raises(WorldLoadError, match="unknown τ² domain 'bank'; known: tau2:airline"):
        load_world("tau2:bank")
    with pytest.raises(WorldLoadError, match="not supported: its tools are found in a knowledge base"):
        load_world("tau2:banking_knowledge")


def test_a_task_carries_the_scenario_the_criteria_and_a_gold_that_executes() -> None:
    tasks = {t.id: t for t in pack("tau2:retail").tasks()}
    task = tasks["3"]
    assert task.user_scenario is not None and "Unknown info:" in task.user_scenario
    assert task.goals[0].user.explicit.startswith("I want to know how many tshirt options")
    assert "I am Yusuf Rossi in zipcode 19122." in task.goals[0].user.explicit
    assert task.evaluation is not None and task.evaluation["reward_basis"] == ["DB", "COMMUNICATE"]
    assert task.goals[0].gold_answer == "10" and {c.role for c in task.goals[0].gold} == {"core"}
    # τ²'s gold calls a wrong product id (it errs, τ² ignores that) and repeats lookups: squall's plan leaves them out
    assert "tau2:gold_left_out:3" in task.tags and len(task.evaluation["actions"]) == len(task.goals[0].gold) + 3  # type: ignore[arg-type]
    refusal = next(t for t in pack("tau2:airline").tasks() if t.id == "0")
    assert refusal.goals[0].outcome == "decline" and refusal.goals[0].gold == []


def test_first_person_rewrites_the_scenario_lines() -> None:
    assert (
        first_person("You are Emma Kim.\nYour user id is emma_kim_9957.")
        == "I am Emma Kim.\nMy user id is emma_kim_9957."
    )


@pytest.mark.parametrize("spec", ["tau2:airline", "tau2:retail", "tau2:mock"])
async def test_every_gold_plan_executes(spec: str) -> None:
    the_pack = pack(spec)
    assert await check_gold_by_execution(the_pack) >= len([t for t in the_pack.tasks() if t.goals[0].gold])


def test_worlds_share_the_base_and_copy_only_what_they_write() -> None:
    the_pack = pack("tau2:airline")
    one, two = the_pack.new_world(0), the_pack.new_world(1)
    before = call(two, "get_reservation_details", reservation_id="EHGLP3")
    assert isinstance(before, dict) and "status" not in before
    cancelled = call(one, "cancel_reservation", reservation_id="EHGLP3")
    assert isinstance(cancelled, dict) and cancelled["status"] == "cancelled"
    assert call(two, "get_reservation_details", reservation_id="EHGLP3") == before  # the other world: untouched
    assert the_pack.new_world(2).task_state() == {}
    state = one.task_state()
    assert state["reservations.EHGLP3.status"] == "cancelled"
    snapshot = one.snapshot()
    one.restore({})
    assert one.task_state() == {} and one.state_hash() == two.state_hash()
    one.restore(snapshot)
    assert one.task_state() == state


def test_what_a_call_answered_is_not_changed_by_a_later_write() -> None:
    """A result is what the world said then: the trace and the agent's next request must not show a later write
    through it (a lookup's answer is a copy, not the episode's own record)."""
    world = pack("tau2:airline").new_world(0)
    call(world, "cancel_reservation", reservation_id="EHGLP3")  # the episode now holds its own copy of the record
    looked = call(world, "get_reservation_details", reservation_id="EHGLP3")
    assert isinstance(looked, dict) and looked["status"] == "cancelled"
    world.db.edit("reservations", "EHGLP3")["status"] = "changed later"
    assert looked["status"] == "cancelled"


def test_airline_booking_checks_the_price_and_pays_as_tau2_does() -> None:
    world = pack("tau2:airline").new_world(0)
    user = call(world, "get_user_details", user_id="mia_li_3668")
    assert isinstance(user, dict) and "certificate_7504069" in user["payment_methods"]
    flights = call(world, "search_direct_flight", origin="JFK", destination="SEA", date="2024-05-20")
    assert isinstance(flights, list) and flights
    flight = flights[0]
    price = flight["prices"]["economy"]
    booking = {
        "user_id": "mia_li_3668",
        "origin": "JFK",
        "destination": "SEA",
        "flight_type": "one_way",
        "cabin": "economy",
        "flights": [{"flight_number": flight["flight_number"], "date": "2024-05-20"}],
        "passengers": [{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}],
        "total_baggages": 0,
        "nonfree_baggages": 0,
        "insurance": "no",
    }
    wrong = call(
        world, "book_reservation", **booking, payment_methods=[{"payment_id": "credit_card_4421486", "amount": 1}]
    )
    assert wrong[0] == "error" and "total price is" in str(wrong)  # type: ignore[index]
    paid = [
        {"payment_id": "certificate_7504069", "amount": 250},
        {"payment_id": "credit_card_4421486", "amount": price - 250},
    ]
    made = call(world, "book_reservation", **booking, payment_methods=paid)
    assert isinstance(made, dict) and made["reservation_id"] == "HATHAT" and made["created_at"] == "2024-05-15T15:00:00"
    state = world.task_state()
    assert (
        state["users.mia_li_3668.payment_methods.certificate_7504069.amount"] == "<absent>"
    )  # a certificate is used up
    seats = f"flights.{flight['flight_number']}.dates.2024-05-20.available_seats.economy"
    assert state[seats] == flight["available_seats"]["economy"] - 1
    assert call(world, "get_user_details", user_id="mia_li_3668")["reservations"][-1] == "HATHAT"  # type: ignore[index]


def test_retail_item_changes_take_the_last_variant_and_gift_cards_round_to_the_cent() -> None:
    world = pack("tau2:retail").new_world(0)
    tasks = {t.id: t for t in pack("tau2:retail").tasks()}
    for gold in tasks["0"].goals[0].gold:  # τ²'s task 0: an exchange of two items in a delivered order
        assert world.execute(ToolCall(id="g", name=gold.name, arguments=dict(gold.arguments))).ok
    assert any(path.endswith(".status") for path in world.task_state())
    assert call(world, "calculate", expression="(2 + 3) * 4 / 3") == "6.67"
    refused = call(world, "calculate", expression="__import__('os')")
    assert refused[0] == "error" and refused[1] == "invalid_arguments"  # type: ignore[index]
    assert call(world, "calculate", expression="9**9**9")[0] == "error"  # type: ignore[index]
    missing = call(
        world, "modify_pending_order_items", order_id="#no", item_ids=[], new_item_ids=[], payment_method_id="x"
    )
    assert missing[1] == "not_found"  # type: ignore[index]


async def test_a_task_with_an_initial_state_gets_a_base_of_its_own() -> None:
    mock = pack("tau2:mock")
    assert not mock.same_world_every_seed
    task = next(t for t in mock.tasks() if t.id == "update_task_with_initialization_actions")
    world = mock.new_world(0, WorldContext(task=task))
    assert call(world, "update_task_status", task_id="task_2", status="completed") == {
        "task_id": "task_2",
        "title": "Project Review",
        "description": "Review Q4 project status",
        "status": "completed",
    }
    assert call(mock.new_world(0), "update_task_status", task_id="task_2", status="completed")[1] == "not_found"  # type: ignore[index]
