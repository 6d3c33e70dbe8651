"""Shopping intent primitives (see ``intents.py`` for the contract)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Any

from sim.core import GoldCall
from worlds.domains.multidomain.domains.shopping import cart_quantity, cart_summary, pence, today
from worlds.domains.multidomain.gold_calls import core, lookup_if_unknown, support
from worlds.domains.multidomain.intents import Answer, Focus, Intent, Primitive, pick_focus
from worlds.domains.multidomain.state import WorldState
from worlds.domains.multidomain.wording import EntityIntents, said

REASONS = {
    "damaged": "it arrived damaged",
    "wrong_item": "they sent the wrong item",
    "not_as_described": "it isn't as described",
    "no_longer_needed": "I no longer need it",
    "changed_mind": "I changed my mind",
}
COUNT = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}


def _product(state: WorldState, product_id: str) -> Any:
    return state.row("products", product_id)


def _search(state: WorldState, product_id: str) -> list[GoldCall]:
    query = str(_product(state, product_id)["name"]).lower()
    return lookup_if_unknown(state, "product", product_id, support("search_products", query=query))


def _product_focus(state: WorldState, product_id: str) -> Focus:
    return Focus(key=f"product:{product_id}", name=str(_product(state, product_id)["name"]))


def day_phrase(state: WorldState, iso: str) -> str:
    """'today', '6 March' or '15 January': how a user names a past day."""
    day = date.fromisoformat(iso[:10])
    return "today" if day == today(state) else f"{day.day} {day:%B}"


def _order_focus(state: WorldState, order_id: str) -> Focus:
    row = state.row("orders", order_id)
    return Focus(key=f"order:{order_id}", name=f"order from {day_phrase(state, row['placed_at'])}")


def add_product(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    room = {k: r["stock"] - cart_quantity(state, k) for k, r in state.rows("products")}
    candidates = [k for k, free in room.items() if free >= 1]
    if not candidates:
        return None
    product_id = pick_focus(state, focus, "product", candidates, rng)
    quantity = rng.randint(1, min(3, room[product_id]))
    name = _product(state, product_id)["name"]
    what = f"the {name}" if quantity == 1 else f"{COUNT[quantity]} of the {name}"
    again = "Add it to my cart." if quantity == 1 else f"Put {COUNT[quantity]} of those in my cart."
    calls = (*_search(state, product_id), core("add_to_cart", product_id=product_id, quantity=quantity))
    return said("shopping.add_product", calls, _product_focus(state, product_id), what=what, again=again)


def _price_answer(name: str) -> Answer:
    def answer(results: Sequence[Any]) -> str:
        last = results[-1]
        row = last if "price" in last else next(p for p in last["products"] if p["name"] == name)
        stock = f"{row['stock']} in stock" if row["stock"] else "out of stock"
        return f"The {name} costs £{row['price']:.2f} and is {stock}."

    return answer


def product_price(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    product_id = pick_focus(state, focus, "product", [k for k, _ in state.rows("products")], rng)
    name = _product(state, product_id)["name"]
    calls = (*_search(state, product_id), core("get_product_details", product_id=product_id))
    paths = ((core("search_products", query=str(name).lower()),),)
    return said(
        "shopping.product_price",
        calls,
        _product_focus(state, product_id),
        _price_answer(str(name)),
        alternatives=paths,
        name=name,
    )


def _cart_lookup(state: WorldState, product_id: str) -> list[GoldCall]:
    return lookup_if_unknown(state, "product", product_id, support("view_cart"))


_in_cart = EntityIntents("shopping", _cart_lookup, _product_focus)


def remove_product(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    in_cart = [k for k, _ in state.rows("cart")]
    if not in_cart:
        return None
    product_id = pick_focus(state, focus, "product", in_cart, rng)
    name = _product(state, product_id)["name"]
    return _in_cart(state, product_id, "remove_product", core("remove_from_cart", product_id=product_id), name=name)


def change_quantity(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    in_cart = [k for k, _ in state.rows("cart")]
    if not in_cart:
        return None
    product_id = pick_focus(state, focus, "product", in_cart, rng)
    row = _product(state, product_id)
    options = [q for q in range(1, 6) if q != cart_quantity(state, product_id) and q <= row["stock"]]
    if not options:
        return None
    quantity = rng.choice(options)
    name = row["name"]
    act = core("update_cart_quantity", product_id=product_id, quantity=quantity)
    return _in_cart(state, product_id, "change_quantity", act, name=name, count=COUNT[quantity], quantity=quantity)


def _cart_answer(results: Sequence[Any]) -> str:
    cart = results[-1]
    items = ", ".join(f"{line['quantity']} × {line['name']}" for line in cart["items"])
    return f"Your cart holds {items}; the total is £{cart['total']:.2f} (shipping £{cart['shipping']:.2f})."


def cart_total(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    if not cart_summary(state)["items"]:
        return None
    return said("shopping.cart_total", (core("view_cart"),), answer=_cart_answer)


def _usable_methods(state: WorldState) -> list[str]:
    return [k for k, r in state.rows("payment_methods") if r["expires"] is None or r["expires"] >= state.now[:7]]


def checkout(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    summary = cart_summary(state)
    if not summary["items"] or any(x["quantity"] > _product(state, x["product_id"])["stock"] for x in summary["items"]):
        return None
    method_id = rng.choice(_usable_methods(state))
    label = _label(state, method_id)
    lookup = lookup_if_unknown(state, "payment_method", method_id, support("list_payment_methods"))
    return said("shopping.checkout", (*lookup, core("checkout", payment_method_id=method_id)), label=label)


def _label(state: WorldState, method_id: str) -> str:
    row = state.row("payment_methods", method_id)
    return str(row["label"])


def _order_lookup(state: WorldState, order_id: str) -> list[GoldCall]:
    return lookup_if_unknown(state, "order", order_id, support("list_orders"))


def _status_answer(results: Sequence[Any]) -> str:
    order = results[-1]
    status = str(order["status"]).replace("_", " ")
    if order["delivered_at"]:
        return f"It is {status}: it arrived on {order['delivered_at'][:10]}."
    if order["eta"]:
        return f"It is {status}, expected on {order['eta']}."
    return f"It is {status}."


def order_status(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    orders = [k for k, r in state.rows("orders") if r["status"] != "cancelled"]
    order_id = pick_focus(state, focus, "order", orders, rng)
    row = state.row("orders", order_id)
    order = _order_focus(state, order_id)
    first = row["items"][0]["name"]
    lookup = _order_lookup(state, order_id)
    calls = (*lookup, core("track_order", order_id=order_id))
    paths = ((*lookup, core("get_order_details", order_id=order_id)),)
    return said(
        "shopping.order_status", calls, order, _status_answer, alternatives=paths, order=order.name, first=first
    )


def cancel_order(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    pending = [k for k, r in state.rows("orders") if r["status"] == "processing"]
    if not pending:
        return None
    order_id = pick_focus(state, focus, "order", pending, rng)
    row = state.row("orders", order_id)
    order = _order_focus(state, order_id)
    first = row["items"][0]["name"]
    calls = (*_order_lookup(state, order_id), core("cancel_order", order_id=order_id))
    return said("shopping.cancel_order", calls, order, order=order.name, first=first)


def _returnable(state: WorldState, order_id: str, row: Any) -> list[str]:
    if row["status"] != "delivered":
        return []
    delivered = datetime.fromisoformat(row["delivered_at"]).date()
    if today(state) > delivered + timedelta(days=30):
        return []
    return [
        i["product_id"] for i in row["items"] if not i["returned"] and _product(state, i["product_id"])["returnable"]
    ]


def return_item(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    eligible = {k: items for k, r in state.rows("orders") if (items := _returnable(state, k, r))}
    if not eligible:
        return None
    order_id = pick_focus(state, focus, "order", list(eligible), rng)
    product_id = rng.choice(eligible[order_id])
    reason = rng.choice(sorted(REASONS))
    order = _order_focus(state, order_id)
    name = _product(state, product_id)["name"]
    calls = (
        *_order_lookup(state, order_id),
        core("return_item", order_id=order_id, product_id=product_id, reason=reason),
    )
    return said("shopping.return_item", calls, order, name=name, order=order.name, why=REASONS[reason])


def apply_promo(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    subtotal = pence(cart_summary(state)["subtotal"])
    codes = [
        code
        for code, r in state.rows("promo_codes")
        if subtotal > 0 and not r["used"] and not r["applied"] and r["expires"] >= state.now[:10]
        if subtotal >= pence(r["min_subtotal"])
    ]
    if not codes:
        return None
    code = rng.choice(codes)
    return said("shopping.apply_promo", (core("apply_promo_code", code=code),), code=code)


PRIMITIVES: tuple[Primitive, ...] = (
    add_product,
    product_price,
    remove_product,
    change_quantity,
    cart_total,
    checkout,
    order_status,
    cancel_order,
    return_item,
    apply_promo,
)
