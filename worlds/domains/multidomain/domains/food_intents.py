"""Food intent primitives (see ``intents.py`` for the contract)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any

from sim.core import GoldCall
from worlds.domains.multidomain.domains.food import is_open
from worlds.domains.multidomain.domains.food_bookings import is_full, slots
from worlds.domains.multidomain.domains.shopping import cart_quantity, pence, today
from worlds.domains.multidomain.gold_calls import core, lookup_if_unknown, support
from worlds.domains.multidomain.intents import Answer, Focus, Intent, Primitive, pick_focus
from worlds.domains.multidomain.state import WorldState
from worlds.domains.multidomain.wording import EntityIntents, said

TIMES = ("12:30", "13:00", "18:30", "19:00", "19:30", "20:00", "20:30")


def _find_recipe(state: WorldState, recipe_id: str) -> list[GoldCall]:
    query = str(state.row("recipes", recipe_id)["name"]).lower()
    return lookup_if_unknown(state, "recipe", recipe_id, support("search_recipes", query=query))


def _recipe_focus(state: WorldState, recipe_id: str) -> Focus:
    return Focus(key=f"recipe:{recipe_id}", name=str(state.row("recipes", recipe_id)["name"]))


_on_recipe = EntityIntents("food", _find_recipe, _recipe_focus)


def _short(state: WorldState, product_id: str) -> str:
    return str(state.row("products", product_id)["name"])


def recipe_to_cart(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    """The bundle tool or one add_to_cart per ingredient: two paths to the same cart."""
    recipe_id = pick_focus(state, focus, "recipe", [k for k, _ in state.rows("recipes")], rng)
    recipe = state.row("recipes", recipe_id)
    ingredients = [(i["product_id"], int(i["packs"])) for i in recipe["ingredients"]]
    skip = {p for p, _ in ingredients if state.row("products", p)["stock"] == 0}
    if rng.random() < 0.4:
        skip.add(rng.choice(ingredients)[0])
    lines = [(p, n) for p, n in ingredients if p not in skip]
    if not lines or any(cart_quantity(state, p) + n > state.row("products", p)["stock"] for p, n in lines):
        return None
    excluded = sorted(skip)
    args: dict[str, Any] = {"recipe_id": recipe_id, **({"exclude_product_ids": excluded} if excluded else {})}
    name = recipe["name"]
    but = f", except the {' and the '.join(_short(state, p) for p in excluded)}: I have that already" if skip else ""
    lookup = _find_recipe(state, recipe_id)
    details = (
        []
        if all(state.is_known("product", p) for p, _ in lines)
        else [support("get_recipe_details", recipe_id=recipe_id)]
    )
    separate = tuple(core("add_to_cart", product_id=p, quantity=n) for p, n in lines)
    calls = (*lookup, core("add_recipe_ingredients_to_cart", **args))
    paths = ((*lookup, *details, *separate),)
    return said("food.recipe_to_cart", calls, _recipe_focus(state, recipe_id), alternatives=paths, name=name, but=but)


def _recipe_answer(results: Sequence[Any]) -> str:
    recipe = results[-1]
    needs = ", ".join(f"{i['name']} ({i['amount']})" for i in recipe["ingredients"])
    return f"{recipe['name']} takes {recipe['minutes']} minutes and serves {recipe['servings']}. You need: {needs}."


def _ask_about(
    state: WorldState, rng: random.Random, focus: Focus | None, listed: tuple[str, str], asked: tuple[Any, ...]
) -> Intent:
    """A question about one entity of a table (``listed``: table, kind), answered by one call (``asked``: the
    domain's EntityIntents, primitive, tool, answer)."""
    (table, kind), (about, primitive, tool, answer) = listed, asked
    key = pick_focus(state, focus, kind, [k for k, _ in state.rows(table)], rng)
    name = state.row(table, key)["name"]
    return about(state, key, primitive, core(tool, **{f"{kind}_id": key}), answer=answer, name=name)


def recipe_info(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    asked = (_on_recipe, "recipe_info", "get_recipe_details", _recipe_answer)
    return _ask_about(state, rng, focus, ("recipes", "recipe"), asked)


def _names_answer(results: Sequence[Any]) -> str:
    found = results[-1]["recipes"]
    return "Recipes that fit: " + ", ".join(f"{r['name']} ({r['minutes']} min)" for r in found) + "."


def quick_vegetarian(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    minutes = rng.choice((20, 30, 45))
    if not any(r["vegetarian"] and r["minutes"] <= minutes for _, r in state.rows("recipes")):
        return None
    calls = (core("search_recipes", vegetarian=True, max_minutes=minutes),)
    return said("food.quick_vegetarian", calls, answer=_names_answer, minutes=minutes)


def _find_restaurant(state: WorldState, restaurant_id: str) -> list[GoldCall]:
    row = state.row("restaurants", restaurant_id)
    lookup = support("search_restaurants", cuisine=row["cuisine"], area=row["area"])
    return lookup_if_unknown(state, "restaurant", restaurant_id, lookup)


def _restaurant_focus(state: WorldState, restaurant_id: str) -> Focus:
    return Focus(key=f"restaurant:{restaurant_id}", name=str(state.row("restaurants", restaurant_id)["name"]))


_at_restaurant = EntityIntents("food", _find_restaurant, _restaurant_focus)


def _menu_answer(results: Sequence[Any]) -> str:
    menu = results[-1]
    dishes = ", ".join(f"{d['name']} (£{d['price']:.2f})" for d in menu["menu"] if d["vegetarian"])
    return f"Vegetarian dishes at {menu['name']}: {dishes}."


def vegetarian_menu(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    asked = (_at_restaurant, "vegetarian_menu", "get_restaurant_menu", _menu_answer)
    return _ask_about(state, rng, focus, ("restaurants", "restaurant"), asked)


def _usable_method(state: WorldState, rng: random.Random) -> str:
    usable = [k for k, r in state.rows("payment_methods") if r["expires"] is None or r["expires"] >= state.now[:7]]
    return rng.choice(usable)


def order_delivery(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    open_now = [k for k, r in state.rows("restaurants") if r["delivery"] and is_open(r, state.now[11:16])]
    if not open_now:
        return None
    restaurant_id = pick_focus(state, focus, "restaurant", open_now, rng)
    row = state.row("restaurants", restaurant_id)
    dishes = rng.sample(list(row["menu"]), k=min(2, len(row["menu"])))
    quantities = [rng.randint(1, 2) for _ in dishes]
    while sum(pence(d["price"]) * q for d, q in zip(dishes, quantities, strict=True)) < pence(row["min_order"]):
        quantities[0] += 1
    method_id = _usable_method(state, rng)
    label = state.row("payment_methods", method_id)["label"]
    items = [{"item_id": d["item_id"], "quantity": q} for d, q in zip(dishes, quantities, strict=True)]
    food = " and ".join(f"{q} × {d['name']}" for d, q in zip(dishes, quantities, strict=True))
    menu = (
        [] if state.is_known("menu", restaurant_id) else [support("get_restaurant_menu", restaurant_id=restaurant_id)]
    )
    pay = lookup_if_unknown(state, "payment_method", method_id, support("list_payment_methods"))
    name = row["name"]
    act = core("place_delivery_order", restaurant_id=restaurant_id, items=items, payment_method_id=method_id)
    return _at_restaurant(state, restaurant_id, "order_delivery", *menu, *pay, act, food=food, name=name, label=label)


def _deliveries(state: WorldState, *statuses: str) -> list[str]:
    """Deliveries in these statuses whose restaurant has no other delivery: the user can name them."""
    rows = list(state.rows("delivery_orders"))
    names = [r["restaurant_name"] for _, r in rows]
    return [k for k, r in rows if r["status"] in statuses and names.count(r["restaurant_name"]) == 1]


def _delivery_focus(state: WorldState, delivery_id: str) -> Focus:
    restaurant = str(state.row("delivery_orders", delivery_id)["restaurant_name"]).removeprefix("The ")
    return Focus(key=f"delivery:{delivery_id}", name=f"{restaurant} order")


def _eta_answer(delivery_id: str) -> Answer:
    def answer(results: Sequence[Any]) -> str:
        last = results[-1]
        row = last if "status" in last else next(d for d in last["delivery_orders"] if d["delivery_id"] == delivery_id)
        status = str(row["status"]).replace("_", " ")
        return f"The order is {status}" + (f", due at {row['eta'][11:16]}." if row["eta"] else ".")

    return answer


def track_delivery(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    active = _deliveries(state, "preparing", "out_for_delivery")
    if not active:
        return None
    delivery_id = pick_focus(state, focus, "delivery", active, rng)
    order = _delivery_focus(state, delivery_id)
    lookup = lookup_if_unknown(state, "delivery", delivery_id, support("list_delivery_orders"))
    calls = (*lookup, core("track_delivery", delivery_id=delivery_id))
    paths = ((core("list_delivery_orders"),),)
    return said("food.track_delivery", calls, order, _eta_answer(delivery_id), alternatives=paths, order=order.name)


def cancel_delivery(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    preparing = _deliveries(state, "preparing")
    if not preparing:
        return None
    delivery_id = pick_focus(state, focus, "delivery", preparing, rng)
    order = _delivery_focus(state, delivery_id)
    calls = (
        *lookup_if_unknown(state, "delivery", delivery_id, support("list_delivery_orders")),
        core("cancel_delivery", delivery_id=delivery_id),
    )
    return said("food.cancel_delivery", calls, order, order=order.name)


def _day(day: date) -> str:
    return f"{day:%A} {day.day} {day:%B}"


def book_table(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    bookable = [k for k, r in state.rows("restaurants") if r["reservations"]]
    restaurant_id = pick_focus(state, focus, "restaurant", bookable, rng)
    row = state.row("restaurants", restaurant_id)
    day = today(state) + timedelta(days=rng.randint(1, 14))
    times = [t for t in TIMES if t in slots(row) and not is_full(state, restaurant_id, row, day.isoformat(), t)]
    if not times:
        return None
    time = rng.choice(times)
    party = rng.randint(2, min(6, row["max_party"]))
    name = row["name"]
    when = f"on {_day(day)} at {time}"
    act = core("book_table", restaurant_id=restaurant_id, date=day.isoformat(), time=time, party_size=party)
    return _at_restaurant(state, restaurant_id, "book_table", act, party=party, name=name, when=when)


def cancel_reservation(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    upcoming = [k for k, r in state.rows("reservations") if r["status"] == "confirmed" and r["date"] >= state.now[:10]]
    if not upcoming:
        return None
    reservation_id = pick_focus(state, focus, "reservation", upcoming, rng)
    row = state.row("reservations", reservation_id)
    booking = Focus(key=f"reservation:{reservation_id}", name=f"booking at {row['restaurant_name']}")
    when = _day(date.fromisoformat(row["date"]))
    calls = (
        *lookup_if_unknown(state, "reservation", reservation_id, support("list_reservations")),
        core("cancel_reservation", reservation_id=reservation_id),
    )
    return said(
        "food.cancel_reservation", calls, booking, booking=booking.name, when=when, restaurant=row["restaurant_name"]
    )


PRIMITIVES: tuple[Primitive, ...] = (
    recipe_to_cart,
    recipe_info,
    quick_vegetarian,
    vegetarian_menu,
    order_delivery,
    track_delivery,
    cancel_delivery,
    book_table,
    cancel_reservation,
)
