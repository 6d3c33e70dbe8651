"""Shopping domain of the multidomain world: every tool's success and refusal paths, and its intent primitives
executed live (every gold call succeeds, alternatives reach the same state)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.support import tool_coverage
from tests.support.intent_checks import exercise
from tests.support.tool_coverage import ToolCoverage
from worlds.domains.multidomain import MultiDomainPack
from worlds.domains.multidomain.domains.shopping_intents import PRIMITIVES
from worlds.domains.multidomain.world import MultiDomainWorld

PACK = MultiDomainPack(tasks=[])


def fresh() -> MultiDomainWorld:
    return PACK.new_world(0)


call = tool_coverage.call
coverage = ToolCoverage(PACK, "shopping")
ok, refused, covers = coverage.ok, coverage.refused, coverage.covers
DOMAIN_TOOLS, SUCCESS_TESTED, FAILURE_TESTED = coverage.tools, coverage.success, coverage.failure


def row(world: MultiDomainWorld, table: str, key: str) -> Any:
    return world.state.get(table, key)


@covers(success=("get_product_details", "search_products"), failure=("get_product_details", "search_products"))
async def test_search_and_details() -> None:
    world = fresh()
    found = await ok(world, "search_products", query="olive oil")
    assert [p["product_id"] for p in found["products"]] == ["prod_olive_oil"]
    cheap = await ok(world, "search_products", query="rice", max_price=2.7)
    assert [p["product_id"] for p in cheap["products"]] == ["prod_arborio_rice"]
    assert (await ok(world, "search_products", query="zebra"))["products"] == []
    await refused(world, "invalid_arguments", "empty_query", "search_products", query="  ")
    await refused(world, "invalid_arguments", "invalid_value", "search_products", query="x", category="toys")
    details = await ok(world, "get_product_details", product_id="prod_olive_oil")
    assert details["price"] == 6.5 and details["returnable"] is False
    await refused(world, "failed", "not_looked_up", "get_product_details", product_id="prod_kindle")
    await refused(world, "not_found", "unknown_product", "get_product_details", product_id="prod_nope")


@covers(
    success=("add_to_cart", "remove_from_cart", "search_products", "update_cart_quantity", "view_cart"),
    failure=("add_to_cart", "remove_from_cart", "update_cart_quantity", "view_cart"),
)
async def test_cart_add_update_remove_view() -> None:
    world = fresh()
    await refused(world, "failed", "not_looked_up", "add_to_cart", product_id="prod_kindle")
    await ok(world, "search_products", query="kindle")
    added = await ok(world, "add_to_cart", product_id="prod_kindle", quantity=2)
    assert added["line"]["quantity"] == 2 and row(world, "cart", "prod_kindle") == {"quantity": 2}
    await ok(world, "add_to_cart", product_id="prod_kindle")
    assert row(world, "cart", "prod_kindle") == {"quantity": 3}
    await refused(world, "failed", "insufficient_stock", "add_to_cart", product_id="prod_kindle", quantity=6)
    await ok(world, "search_products", query="casserole")
    await refused(world, "failed", "out_of_stock", "add_to_cart", product_id="prod_casserole_dish")
    await refused(world, "invalid_arguments", "out_of_range", "add_to_cart", product_id="prod_kindle", quantity=0)

    cart = await ok(world, "view_cart")
    assert {line["product_id"] for line in cart["items"]} == {"prod_coffee_beans", "prod_kindle"}
    assert cart["total"] == round(24.0 + 3 * 159.99, 2) and cart["shipping"] == 0
    await refused(world, "invalid_arguments", "unexpected_argument", "view_cart", product_id="prod_kindle")

    await ok(world, "update_cart_quantity", product_id="prod_coffee_beans", quantity=4)
    assert row(world, "cart", "prod_coffee_beans") == {"quantity": 4}
    await refused(world, "failed", "insufficient_stock", "update_cart_quantity", product_id="prod_kindle", quantity=9)
    await refused(
        world, "not_found", "not_in_cart", "update_cart_quantity", product_id="prod_casserole_dish", quantity=1
    )
    await ok(world, "remove_from_cart", product_id="prod_kindle")
    assert row(world, "cart", "prod_kindle") is None
    await refused(world, "not_found", "not_in_cart", "remove_from_cart", product_id="prod_kindle")


@covers(success=("apply_promo_code", "remove_from_cart", "view_cart"), failure=("apply_promo_code",))
async def test_promo_codes() -> None:
    world = fresh()
    await refused(world, "not_found", "unknown_promo_code", "apply_promo_code", code="FREEBIE")
    await refused(world, "failed", "promo_expired", "apply_promo_code", code="WINTER15")
    await refused(world, "failed", "promo_used", "apply_promo_code", code="FIRSTORDER")
    await refused(world, "failed", "below_minimum", "apply_promo_code", code="WELCOME5")
    applied = await ok(world, "apply_promo_code", code="spring10")
    assert applied["discount"] == 2.4 and applied["total"] == round(24.0 - 2.4 + 3.99, 2)
    assert row(world, "promo_codes", "SPRING10")["applied"] is True
    await ok(world, "view_cart")
    await ok(world, "remove_from_cart", product_id="prod_coffee_beans")
    await refused(world, "failed", "empty_cart", "apply_promo_code", code="SPRING10")


@covers(
    success=("add_to_cart", "apply_promo_code", "checkout", "list_payment_methods", "search_products", "track_order"),
    failure=("checkout", "list_payment_methods"),
)
async def test_payment_methods_and_checkout() -> None:
    world = fresh()
    await refused(world, "failed", "not_looked_up", "checkout", payment_method_id="pm_visa_4821")
    methods = (await ok(world, "list_payment_methods"))["payment_methods"]
    assert [m["payment_method_id"] for m in methods if m["expired"]] == ["pm_mastercard_5590"]
    await refused(world, "invalid_arguments", "unexpected_argument", "list_payment_methods", expired=False)
    await refused(world, "failed", "card_expired", "checkout", payment_method_id="pm_mastercard_5590")
    await refused(world, "not_found", "unknown_payment_method", "checkout", payment_method_id="pm_bitcoin")
    await ok(world, "search_products", query="yoga mat")
    await ok(world, "add_to_cart", product_id="prod_yoga_mat")
    await ok(world, "apply_promo_code", code="WELCOME5")
    order = await ok(world, "checkout", payment_method_id="pm_visa_4821")
    assert order["order_id"] == "order-0001" and order["status"] == "processing"
    assert order["discount"] == 5.0 and order["total"] == 24.0 + 89.0 - 5.0
    assert order["eta"] == "2026-03-17"
    assert list(world.state.rows("cart")) == []
    assert row(world, "products", "prod_yoga_mat")["stock"] == 6
    assert row(world, "promo_codes", "WELCOME5")["used"] is True
    assert row(world, "orders", "order-0001")["items"][0]["product_id"] == "prod_coffee_beans"
    await refused(world, "failed", "empty_cart", "checkout", payment_method_id="pm_visa_4821")
    assert (await ok(world, "track_order", order_id="order-0001"))["status"] == "processing"


@covers(
    success=("get_order_details", "list_orders", "track_order"),
    failure=("get_order_details", "list_orders", "track_order"),
)
async def test_orders_list_details_track() -> None:
    world = fresh()
    await refused(world, "failed", "not_looked_up", "track_order", order_id="order-7003")
    listed = (await ok(world, "list_orders"))["orders"]
    assert listed[0]["order_id"] == "order-7004" and len(listed) == 8
    delivered = (await ok(world, "list_orders", status="delivered"))["orders"]
    assert {o["order_id"] for o in delivered} == {"order-7001", "order-7002", "order-7005", "order-7007"}
    tracked = await ok(world, "track_order", order_id="order-7003")
    assert tracked["carrier"] == "Evri" and tracked["eta"] == "2026-03-16"
    details = await ok(world, "get_order_details", order_id="order-7007")
    assert details["total"] == 41.25 and "events" not in details
    await refused(world, "not_found", "unknown_order", "get_order_details", order_id="order-9999")
    await refused(world, "invalid_arguments", "invalid_value", "list_orders", status="lost")


@covers(success=("cancel_order", "list_orders"), failure=("cancel_order",))
async def test_cancel_order() -> None:
    world = fresh()
    await ok(world, "list_orders")
    stock = row(world, "products", "prod_hue_bulb")["stock"]
    cancelled = await ok(world, "cancel_order", order_id="order-7004")
    assert cancelled["refund"] == round(2 * 17.99 + 35.99, 2)
    assert row(world, "orders", "order-7004")["status"] == "cancelled"
    assert row(world, "products", "prod_hue_bulb")["stock"] == stock + 2
    await refused(world, "failed", "cannot_cancel", "cancel_order", order_id="order-7004")
    await refused(world, "failed", "cannot_cancel", "cancel_order", order_id="order-7003")


@covers(success=("list_orders", "return_item"), failure=("return_item",))
async def test_return_item() -> None:
    world = fresh()
    await refused(
        world,
        "failed",
        "not_looked_up",
        "return_item",
        order_id="order-7001",
        product_id="prod_kindle",
        reason="damaged",
    )
    await ok(world, "list_orders")
    returned = await ok(world, "return_item", order_id="order-7005", product_id="prod_yoga_mat", reason="changed_mind")
    assert returned["return_id"] == "return-0001" and returned["refund"] == 89.0
    assert returned["drop_off_by"] == "2026-03-28"
    order = row(world, "orders", "order-7005")
    assert [i["returned"] for i in order["items"]] == [False, True] and len(order["returns"]) == 1
    args = {"reason": "damaged"}
    await refused(
        world, "failed", "already_returned", "return_item", order_id="order-7005", product_id="prod_yoga_mat", **args
    )
    await refused(
        world,
        "failed",
        "return_window_closed",
        "return_item",
        order_id="order-7002",
        product_id="prod_headphones",
        **args,
    )
    await refused(
        world, "failed", "not_returnable", "return_item", order_id="order-7007", product_id="prod_parmesan", **args
    )
    await refused(
        world, "failed", "not_delivered", "return_item", order_id="order-7003", product_id="prod_water_jug", **args
    )
    await refused(
        world, "not_found", "not_in_order", "return_item", order_id="order-7001", product_id="prod_yoga_mat", **args
    )
    await refused(
        world,
        "invalid_arguments",
        "invalid_value",
        "return_item",
        order_id="order-7001",
        product_id="prod_kindle",
        reason="meh",
    )


def test_every_shopping_tool_has_both_paths_tested() -> None:
    shopping = {name for name, tool in MultiDomainPack(tasks=[]).toolkit.tools.items() if tool.domain == "shopping"}
    assert shopping == SUCCESS_TESTED
    assert shopping == FAILURE_TESTED


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
