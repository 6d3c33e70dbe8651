"""Food domain of the multidomain world: every tool's success and refusal paths (recipes filling the shopping
cart, restaurant delivery paid with shopping's payment methods, table bookings), and its intent primitives
executed live."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.support import tool_coverage
from tests.support.intent_checks import exercise
from tests.support.tool_coverage import ToolCoverage
from worlds.domains.multidomain import MultiDomainPack
from worlds.domains.multidomain.domains.food_intents import PRIMITIVES
from worlds.domains.multidomain.world import MultiDomainWorld

PACK = MultiDomainPack(tasks=[])


def fresh() -> MultiDomainWorld:
    return PACK.new_world(0)


call = tool_coverage.call
coverage = ToolCoverage(PACK, "food")
ok, refused, covers = coverage.ok, coverage.refused, coverage.covers
DOMAIN_TOOLS, SUCCESS_TESTED, FAILURE_TESTED = coverage.tools, coverage.success, coverage.failure


def row(world: MultiDomainWorld, table: str, key: str) -> Any:
    return world.state.get(table, key)


@covers(success=("get_recipe_details", "search_recipes"), failure=("get_recipe_details", "search_recipes"))
async def test_recipes_search_and_details() -> None:
    world = fresh()
    quick = (await ok(world, "search_recipes", vegetarian=True, max_minutes=20))["recipes"]
    assert {r["recipe_id"] for r in quick} == {"tomato_basil_pasta", "pancakes", "mushroom_omelette"}
    assert [r["recipe_id"] for r in (await ok(world, "search_recipes", query="risotto"))["recipes"]] == [
        "mushroom_risotto"
    ]
    assert "hint" in await ok(world, "search_recipes", query="haggis")
    await refused(world, "invalid_arguments", "invalid_value", "search_recipes", cuisine="martian")
    details = await ok(world, "get_recipe_details", recipe_id="mushroom_risotto")
    assert details["ingredients"][0]["product_id"] == "prod_arborio_rice" and details["minutes"] == 45
    assert world.state.is_known("product", "prod_arborio_rice")
    await refused(world, "failed", "not_looked_up", "get_recipe_details", recipe_id="spaghetti_bolognese")
    await refused(world, "not_found", "unknown_recipe", "get_recipe_details", recipe_id="haggis")


@covers(success=("add_recipe_ingredients_to_cart", "search_recipes"), failure=("add_recipe_ingredients_to_cart",))
async def test_recipe_ingredients_fill_the_cart() -> None:
    world = fresh()
    await refused(world, "failed", "not_looked_up", "add_recipe_ingredients_to_cart", recipe_id="spaghetti_carbonara")
    await ok(world, "search_recipes", cuisine="italian")
    added = await ok(
        world, "add_recipe_ingredients_to_cart", recipe_id="spaghetti_carbonara", exclude_product_ids=["prod_eggs"]
    )
    assert {a["product_id"] for a in added["added"]} == {"prod_spaghetti", "prod_pancetta", "prod_parmesan"}
    assert row(world, "cart", "prod_pancetta") == {"quantity": 1} and row(world, "cart", "prod_eggs") is None
    # the products are now known to shopping: the cart tools take them
    await ok(world, "update_cart_quantity", product_id="prod_pancetta", quantity=2)
    await ok(world, "search_recipes", query="fried rice")
    await refused(world, "failed", "out_of_stock", "add_recipe_ingredients_to_cart", recipe_id="chicken_fried_rice")
    await refused(
        world, "invalid_arguments", "not_an_ingredient", "add_recipe_ingredients_to_cart",
        recipe_id="chicken_fried_rice", exclude_product_ids=["prod_kindle"],
    )  # fmt: skip
    await ok(
        world,
        "add_recipe_ingredients_to_cart",
        recipe_id="chicken_fried_rice",
        exclude_product_ids=["prod_frozen_peas"],
    )
    assert row(world, "cart", "prod_eggs") == {"quantity": 1}


@covers(
    success=("get_restaurant_details", "get_restaurant_menu", "search_restaurants"),
    failure=("get_restaurant_details", "get_restaurant_menu", "search_restaurants"),
)
async def test_restaurants_search_details_menu() -> None:
    world = fresh()
    found = (await ok(world, "search_restaurants", delivers=True, open_now=True))["restaurants"]
    assert {r["restaurant_id"] for r in found} == {"bombay_canteen", "caravan_kitchen", "breakfast_club"}
    assert [r["restaurant_id"] for r in (await ok(world, "search_restaurants", cuisine="thai"))["restaurants"]] == [
        "baan_thai"
    ]
    assert "hint" in await ok(world, "search_restaurants", cuisine="thai", area="soho")
    await refused(world, "invalid_arguments", "invalid_value", "search_restaurants", area="paris")
    details = await ok(world, "get_restaurant_details", restaurant_id="baan_thai")
    assert details["min_order"] == 15.0 and details["open_now"] is False and "menu" not in details
    menu = await ok(world, "get_restaurant_menu", restaurant_id="baan_thai")
    assert menu["menu"][0]["item_id"] == "pad_thai"
    await refused(world, "failed", "not_looked_up", "get_restaurant_menu", restaurant_id="golden_wok")
    await refused(world, "failed", "not_looked_up", "get_restaurant_details", restaurant_id="golden_wok")
    await refused(world, "not_found", "unknown_restaurant", "get_restaurant_menu", restaurant_id="nandos")


@covers(
    success=("cancel_delivery", "get_restaurant_menu", "place_delivery_order", "search_restaurants", "track_delivery"),
    failure=("cancel_delivery", "place_delivery_order"),
)
async def test_place_track_cancel_delivery() -> None:
    world = fresh()
    order = {"restaurant_id": "bombay_canteen", "payment_method_id": "pm_visa_4821"}
    items = [{"item_id": "egg_naan", "quantity": 2}, {"item_id": "chai", "quantity": 2}]
    await ok(world, "search_restaurants", cuisine="indian")
    await refused(world, "failed", "not_looked_up", "place_delivery_order", items=items, **order)
    await ok(world, "get_restaurant_menu", restaurant_id="bombay_canteen")
    await refused(world, "failed", "not_looked_up", "place_delivery_order", items=items, **order)
    await ok(world, "list_payment_methods")
    await refused(world, "failed", "below_minimum", "place_delivery_order", items=items[:1], **order)
    await refused(
        world, "not_found", "unknown_menu_item", "place_delivery_order", items=[{"item_id": "pizza"}], **order
    )
    await refused(world, "invalid_arguments", "invalid_value", "place_delivery_order", items=[], **order)
    expired = {**order, "payment_method_id": "pm_mastercard_5590"}
    await refused(world, "failed", "card_expired", "place_delivery_order", items=items, **expired)
    placed = await ok(world, "place_delivery_order", items=items, **order)
    assert placed["delivery_id"] == "delivery-0001" and placed["total"] == round(2 * 6.9 + 2 * 3.5 + 2.99, 2)
    assert (
        placed["eta"] == "2026-03-14T09:50:00"
        and row(world, "delivery_orders", "delivery-0001")["status"] == "preparing"
    )
    assert (await ok(world, "track_delivery", delivery_id="delivery-0001"))["status"] == "preparing"
    assert (await ok(world, "cancel_delivery", delivery_id="delivery-0001"))["refund"] == placed["total"]
    assert row(world, "delivery_orders", "delivery-0001")["status"] == "cancelled"
    await refused(world, "failed", "cannot_cancel", "cancel_delivery", delivery_id="delivery-0001")

    for restaurant, code, status in (
        ("the_anchor", "no_delivery", "failed"),
        ("golden_wok", "restaurant_closed", "unavailable"),
    ):
        await ok(world, "search_restaurants")
        await ok(world, "get_restaurant_menu", restaurant_id=restaurant)
        dish = row(world, "restaurants", restaurant)["menu"][0]["item_id"]
        await refused(
            world,
            status,
            code,
            "place_delivery_order",
            restaurant_id=restaurant,
            items=[{"item_id": dish, "quantity": 3}],
            payment_method_id="pm_visa_4821",
        )


@covers(
    success=("list_delivery_orders", "track_delivery"),
    failure=("cancel_delivery", "list_delivery_orders", "track_delivery"),
)
async def test_list_and_track_seeded_deliveries() -> None:
    world = fresh()
    await refused(world, "failed", "not_looked_up", "track_delivery", delivery_id="delivery-0902")
    listed = (await ok(world, "list_delivery_orders"))["delivery_orders"]
    assert [d["delivery_id"] for d in listed] == ["delivery-0903", "delivery-0902", "delivery-0901"]
    assert (await ok(world, "track_delivery", delivery_id="delivery-0902"))["courier"] == "Tom on a scooter"
    await refused(world, "failed", "cannot_cancel", "cancel_delivery", delivery_id="delivery-0902")
    await refused(world, "not_found", "unknown_delivery", "track_delivery", delivery_id="delivery-7777")
    await refused(world, "invalid_arguments", "unexpected_argument", "list_delivery_orders", status="preparing")


@covers(
    success=("book_table", "check_table_availability", "search_restaurants"),
    failure=("book_table", "check_table_availability"),
)
async def test_availability_and_booking() -> None:
    world = fresh()
    table = {"restaurant_id": "maison_bleu", "party_size": 2}
    await refused(world, "failed", "not_looked_up", "book_table", date="2026-03-21", time="19:00", **table)
    await ok(world, "search_restaurants", cuisine="french")
    free = (await ok(world, "check_table_availability", date="2026-03-14", **table))["free_times"]
    assert free[0] == "12:00" and "19:00" not in free and "21:00" in free and "21:30" not in free
    await refused(world, "unavailable", "slot_full", "book_table", date="2026-03-21", time="20:00", **table)
    await refused(world, "invalid_arguments", "outside_hours", "book_table", date="2026-03-21", time="21:30", **table)
    await refused(world, "invalid_arguments", "outside_hours", "book_table", date="2026-03-21", time="19:15", **table)
    await refused(world, "invalid_arguments", "date_in_past", "book_table", date="2026-03-01", time="19:00", **table)
    await refused(world, "failed", "too_far_ahead", "book_table", date="2026-06-01", time="19:00", **table)
    await refused(world, "invalid_arguments", "bad_date", "check_table_availability", date="2026-02-30", **table)
    await refused(
        world,
        "failed",
        "party_too_large",
        "book_table",
        restaurant_id="maison_bleu",
        date="2026-03-21",
        time="19:00",
        party_size=8,
    )
    await refused(world, "invalid_arguments", "invalid_value", "book_table", date="21/03/2026", time="19:00", **table)
    booked = await ok(world, "book_table", date="2026-03-21", time="19:00", special_request="anniversary", **table)
    assert booked["reservation_id"] == "reservation-0001" and booked["name"] == "Sam Rivera"
    assert row(world, "reservations", "reservation-0001")["status"] == "confirmed"
    await ok(world, "book_table", date="2026-03-21", time="19:00", **table)  # two tables per slot
    await refused(world, "unavailable", "slot_full", "book_table", date="2026-03-21", time="19:00", **table)
    await ok(world, "search_restaurants", area="shoreditch")
    await refused(
        world,
        "failed",
        "no_reservations",
        "check_table_availability",
        restaurant_id="sakura_ramen",
        date="2026-03-21",
        party_size=2,
    )


@covers(success=("cancel_reservation", "list_reservations"), failure=("cancel_reservation", "list_reservations"))
async def test_list_and_cancel_reservations() -> None:
    world = fresh()
    await refused(world, "failed", "not_looked_up", "cancel_reservation", reservation_id="reservation-0502")
    listed = (await ok(world, "list_reservations"))["reservations"]
    assert [r["reservation_id"] for r in listed] == ["reservation-0503", "reservation-0502", "reservation-0501"]
    cancelled = await ok(world, "cancel_reservation", reservation_id="reservation-0502")
    assert cancelled["restaurant_name"] == "The Anchor"
    assert row(world, "reservations", "reservation-0502")["status"] == "cancelled"
    await refused(world, "failed", "cannot_cancel", "cancel_reservation", reservation_id="reservation-0502")
    await refused(world, "failed", "cannot_cancel", "cancel_reservation", reservation_id="reservation-0503")
    await refused(world, "not_found", "unknown_reservation", "cancel_reservation", reservation_id="reservation-9")
    await refused(world, "invalid_arguments", "unexpected_argument", "list_reservations", restaurant_id="the_anchor")


def test_every_food_tool_has_both_paths_tested() -> None:
    food = {name for name, tool in MultiDomainPack(tasks=[]).toolkit.tools.items() if tool.domain == "food"}
    assert food == SUCCESS_TESTED
    assert food == FAILURE_TESTED


async def test_primitives_execute() -> None:
    produced = await exercise(PACK, PRIMITIVES)
    assert len(PRIMITIVES) >= 6
    assert all(n > 0 for n in produced.values()), produced
    questions = [p for p in PRIMITIVES if (i := p(fresh().state, random.Random(1), None)) and i.answer is not None]
    assert len(questions) >= 2


@pytest.mark.parametrize("seed", range(3))
async def test_primitives_are_deterministic(seed: int) -> None:
    for primitive in PRIMITIVES:
        a = primitive(fresh().state, random.Random(seed), None)
        b = primitive(fresh().state, random.Random(seed), None)
        assert (a is None) == (b is None)
        if a is not None and b is not None:
            assert (a.explicit, a.calls, a.alternatives) == (b.explicit, b.calls, b.alternatives)
