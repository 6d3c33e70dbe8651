"""Food: recipes whose ingredients are shopping products (so a recipe fills the cart), restaurants with their
menus, delivery orders paid with shopping's payment methods; table bookings live in ``food_bookings`` (the
same domain). Tables: ``recipes``, ``restaurants``, ``delivery_orders``, ``reservations`` (data/food.json); reads
shopping's ``products``, ``cart`` and ``payment_methods``."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sim.core.frozen import thaw
from worlds.common.errors import ToolError
from worlds.common.tables import Row
from worlds.common.toolbook import action, array, boolean, integer, lookup, optional, string
from worlds.domains.multidomain.domains.shopping import ADDRESS, add_lines, payment_method, pence, pounds
from worlds.domains.multidomain.state import WorldState

DOMAIN = "food"
TABLES = ("recipes", "restaurants", "delivery_orders", "reservations")
POLICY = """Food: recipe ids come from search_recipes, restaurant ids from search_restaurants, delivery ids
from list_delivery_orders, reservation ids from list_reservations. A delivery order needs the restaurant's
menu (get_restaurant_menu) for item ids, a payment method from list_payment_methods, an open restaurant that
delivers and its minimum order; only orders still being prepared can be cancelled. Tables are booked on the
hour or half hour, at least an hour before closing, for up to the restaurant's maximum party size."""

CUISINES = (
    "italian", "indian", "thai", "chinese", "japanese", "mexican", "british", "french", "lebanese", "vietnamese",
    "cafe", "middle_eastern", "american",
)  # fmt: skip
AREAS = (
    "islington", "covent_garden", "soho", "shoreditch", "camden", "kings_cross", "brixton", "southwark",
    "marylebone", "hackney",
)  # fmt: skip
COURIER_MINUTES = 20
RECIPES = "search_recipes"
RESTAURANTS = "search_restaurants"

RECIPE_ID = string("Recipe id from search_recipes, e.g. 'mushroom_risotto'.")
RESTAURANT_ID = string("Restaurant id from search_restaurants, e.g. 'luccas_trattoria'.")
DELIVERY_ID = string("Delivery order id from list_delivery_orders or place_delivery_order.")


def recipe(state: WorldState, recipe_id: str) -> Row:
    return state.require("recipes", recipe_id, "recipe", RECIPES)


def restaurant(state: WorldState, restaurant_id: str) -> Row:
    return state.require("restaurants", restaurant_id, "restaurant", RESTAURANTS)


def is_open(row: Row, hhmm: str) -> bool:
    return bool(row["opens"] <= hhmm < row["closes"])


@lookup(
    "Search recipes by words in the name, cuisine, vegetarian only, or time; returns recipe ids. Leave every "
    "filter out to list all recipes.",
    query=optional(string("Words in the recipe name, e.g. 'risotto'.")),
    cuisine=optional(string("Cuisine.", enum=CUISINES)),
    vegetarian=optional(boolean("True for vegetarian recipes only.")),
    max_minutes=optional(integer("Longest total time in minutes.", 5, 240)),
)
def search_recipes(
    state: WorldState,
    query: str | None = None,
    cuisine: str | None = None,
    vegetarian: bool | None = None,
    max_minutes: int | None = None,
) -> dict[str, Any]:
    words = (query or "").lower().split()
    found = [
        {
            "recipe_id": key,
            "name": row["name"],
            "cuisine": row["cuisine"],
            "minutes": row["minutes"],
            "servings": row["servings"],
            "vegetarian": row["vegetarian"],
        }
        for key, row in state.rows("recipes")
        if all(w in row["name"].lower() for w in words)
        and cuisine in (None, row["cuisine"])
        and (not vegetarian or row["vegetarian"])
        and (max_minutes is None or row["minutes"] <= max_minutes)
    ]
    state.reveal("recipe", *(r["recipe_id"] for r in found))
    result: dict[str, Any] = {"recipes": found}
    if not found:
        result["hint"] = "No recipe matched: try fewer words or drop a filter."
    return result


@lookup(
    "A recipe's ingredients (each with the shop's product id, pack price and stock, ready for add_to_cart), "
    "its steps, servings and time.",
    requires=(RECIPES,),
    recipe_id=RECIPE_ID,
)
def get_recipe_details(state: WorldState, recipe_id: str) -> dict[str, Any]:
    row = recipe(state, recipe_id)
    ingredients = []
    for ingredient in row["ingredients"]:
        stocked = state.get("products", ingredient["product_id"])
        assert stocked is not None
        ingredients.append(
            {
                **ingredient,
                "name": stocked["name"],
                "unit_price": stocked["price"],
                "in_stock": stocked["stock"] > 0,
            }
        )
    state.reveal("product", *(i["product_id"] for i in ingredients))
    return {"recipe_id": recipe_id, **{k: thaw(row[k]) for k in row if k != "ingredients"}, "ingredients": ingredients}


@action(
    "Add a recipe's ingredients to the shopping cart, one line per ingredient with its number of packs (the same "
    "as add_to_cart for each). Leave out ingredients the user already has with exclude_product_ids; an "
    "out-of-stock ingredient fails the whole call unless excluded.",
    requires=(RECIPES,),
    recipe_id=RECIPE_ID,
    exclude_product_ids=optional(array("Product ids to skip, from get_recipe_details.", string("Product id."))),
)
def add_recipe_ingredients_to_cart(
    state: WorldState, recipe_id: str, exclude_product_ids: list[str] | None = None
) -> dict[str, Any]:
    row = recipe(state, recipe_id)
    skip = set(exclude_product_ids or [])
    ids = {i["product_id"] for i in row["ingredients"]}
    strangers = sorted(skip - ids)
    if strangers:
        raise ToolError(
            "invalid_arguments",
            "not_an_ingredient",
            f"{', '.join(strangers)} not in {row['name']}; its ingredients are {', '.join(sorted(ids))}.",
        )
    lines = [(i["product_id"], int(i["packs"])) for i in row["ingredients"] if i["product_id"] not in skip]
    if not lines:
        raise ToolError("invalid_arguments", "nothing_to_add", "Every ingredient was excluded; nothing to add.")
    added = add_lines(state, lines)
    state.reveal("product", *(i["product_id"] for i in row["ingredients"]))
    return {"recipe_id": recipe_id, "added": added, "skipped": sorted(skip)}


def _listing(state: WorldState, key: str, row: Row) -> dict[str, Any]:
    return {
        "restaurant_id": key,
        "name": row["name"],
        "cuisine": row["cuisine"],
        "area": row["area"],
        "rating": row["rating"],
        "price_level": row["price_level"],
        "hours": f"{row['opens']}-{row['closes']}",
        "open_now": is_open(row, state.now[11:16]),
        "delivery": row["delivery"],
        "reservations": row["reservations"],
    }


@lookup(
    "Search restaurants by cuisine and/or area of London, optionally only those that deliver or are open now; "
    "returns restaurant ids, ratings, hours and whether they deliver or take bookings.",
    cuisine=optional(string("Cuisine.", enum=CUISINES)),
    area=optional(string("Area of London.", enum=AREAS)),
    delivers=optional(boolean("True for restaurants that deliver only.")),
    open_now=optional(boolean("True for restaurants open right now only.")),
)
def search_restaurants(
    state: WorldState,
    cuisine: str | None = None,
    area: str | None = None,
    delivers: bool | None = None,
    open_now: bool | None = None,
) -> dict[str, Any]:
    found = [
        listing
        for key, row in state.rows("restaurants")
        if cuisine in (None, row["cuisine"]) and area in (None, row["area"])
        for listing in [_listing(state, key, row)]
        if (not delivers or listing["delivery"]) and (not open_now or listing["open_now"])
    ]
    state.reveal("restaurant", *(r["restaurant_id"] for r in found))
    result: dict[str, Any] = {"restaurants": found}
    if not found:
        result["hint"] = "No restaurant matched: drop the area or another filter."
    return result


@lookup(
    "A restaurant's details: address, hours, delivery fee and minimum order, preparation time, and whether and "
    "for how many it takes table bookings.",
    requires=(RESTAURANTS,),
    restaurant_id=RESTAURANT_ID,
)
def get_restaurant_details(state: WorldState, restaurant_id: str) -> dict[str, Any]:
    row = restaurant(state, restaurant_id)
    hidden = ("menu", "full_slots", "tables_per_slot")
    return {**_listing(state, restaurant_id, row), **{k: row[k] for k in row if k not in hidden}}


@lookup(
    "A restaurant's menu: item ids, names, prices and which are vegetarian. Needed before place_delivery_order.",
    requires=(RESTAURANTS,),
    restaurant_id=RESTAURANT_ID,
)
def get_restaurant_menu(state: WorldState, restaurant_id: str) -> dict[str, Any]:
    row = restaurant(state, restaurant_id)
    state.reveal("menu", restaurant_id)
    return {"restaurant_id": restaurant_id, "name": row["name"], "menu": thaw(row["menu"])}


ITEM = {
    "type": "object",
    "properties": {
        "item_id": string("Menu item id from get_restaurant_menu."),
        "quantity": integer("How many; default 1.", 1, 20),
    },
    "additionalProperties": False,
}


@action(
    "Order food for delivery to the user's home from a restaurant that delivers and is open now. Needs item ids "
    "from get_restaurant_menu and a payment method id from list_payment_methods (shopping); the subtotal must "
    "reach the restaurant's minimum order.",
    requires=("get_restaurant_menu", "list_payment_methods"),
    restaurant_id=RESTAURANT_ID,
    items=array("The dishes: [{'item_id': ..., 'quantity': ...}].", ITEM, min_items=1),
    payment_method_id=string("Payment method id from list_payment_methods, e.g. 'pm_visa_4821'."),
    note=optional(string("A note for the restaurant or courier, e.g. 'no chilli'.")),
)
def place_delivery_order(
    state: WorldState, restaurant_id: str, items: list[dict[str, Any]], payment_method_id: str, note: str | None = None
) -> dict[str, Any]:
    row = restaurant(state, restaurant_id)
    if not state.is_known("menu", restaurant_id):
        raise ToolError(
            "failed", "not_looked_up", f"Look at {row['name']}'s menu with get_restaurant_menu first for item ids."
        )
    if not row["delivery"]:
        raise ToolError("failed", "no_delivery", f"{row['name']} does not deliver; suggest booking a table instead.")
    if not is_open(row, state.now[11:16]):
        raise ToolError(
            "unavailable",
            "restaurant_closed",
            f"{row['name']} is closed now (open {row['opens']}-{row['closes']}); order later or pick one open now.",
        )
    menu = {m["item_id"]: m for m in row["menu"]}
    lines = []
    for wanted in items:
        dish = menu.get(str(wanted.get("item_id")))
        if dish is None:
            raise ToolError(
                "not_found",
                "unknown_menu_item",
                f"{row['name']} has no item '{wanted.get('item_id')}'; its item ids are {', '.join(menu)}.",
            )
        quantity = int(wanted.get("quantity", 1))
        lines.append(
            {"item_id": dish["item_id"], "name": dish["name"], "quantity": quantity, "unit_price": dish["price"]}
        )
    subtotal = sum(pence(line["unit_price"]) * line["quantity"] for line in lines)
    if subtotal < pence(row["min_order"]):
        raise ToolError(
            "failed",
            "below_minimum",
            f"{row['name']} has a £{row['min_order']:.2f} minimum order; this comes to £{pounds(subtotal):.2f}.",
        )
    method = payment_method(state, payment_method_id)
    key = state.new_id("delivery")
    while state.get("delivery_orders", key) is not None:
        key = state.new_id("delivery")
    eta = datetime.fromisoformat(state.now) + timedelta(minutes=row["prep_minutes"] + COURIER_MINUTES)
    order = {
        "restaurant_id": restaurant_id,
        "restaurant_name": row["name"],
        "items": lines,
        "subtotal": pounds(subtotal),
        "delivery_fee": row["delivery_fee"],
        "total": pounds(subtotal + pence(row["delivery_fee"])),
        "payment_method_id": payment_method_id,
        "status": "preparing",
        "placed_at": state.now,
        "eta": eta.isoformat(),
        "courier": None,
        "address": ADDRESS,
        "note": note,
    }
    state.put("delivery_orders", key, order)
    state.reveal("delivery", key)
    return {"delivery_id": key, **order, "paid_with": method["label"]}


@lookup("List the user's food delivery orders (recent and active) with ids, restaurants, status and ETA.")
def list_delivery_orders(state: WorldState) -> dict[str, Any]:
    found = [
        {
            "delivery_id": key,
            "restaurant_name": row["restaurant_name"],
            "status": row["status"],
            "placed_at": row["placed_at"],
            "eta": row["eta"],
            "total": row["total"],
        }
        for key, row in state.rows("delivery_orders")
    ]
    found.sort(key=lambda d: str(d["placed_at"]), reverse=True)
    state.reveal("delivery", *(d["delivery_id"] for d in found))
    return {"delivery_orders": found}


def _delivery(state: WorldState, delivery_id: str) -> Row:
    return state.require("delivery_orders", delivery_id, "delivery", "list_delivery_orders")


@lookup(
    "Track a delivery order: status (preparing, out_for_delivery, delivered, cancelled), ETA, courier, items.",
    requires=("list_delivery_orders",),
    delivery_id=DELIVERY_ID,
)
def track_delivery(state: WorldState, delivery_id: str) -> dict[str, Any]:
    return {"delivery_id": delivery_id, **thaw(_delivery(state, delivery_id))}


@action(
    "Cancel a delivery order the restaurant is still preparing (refunded in full); once out for delivery it "
    "cannot be cancelled.",
    requires=("list_delivery_orders",),
    delivery_id=DELIVERY_ID,
)
def cancel_delivery(state: WorldState, delivery_id: str) -> dict[str, Any]:
    row = _delivery(state, delivery_id)
    if row["status"] != "preparing":
        raise ToolError(
            "failed",
            "cannot_cancel",
            f"The {row['restaurant_name']} order is {row['status'].replace('_', ' ')}; only orders still being "
            "prepared can be cancelled.",
        )
    state.update("delivery_orders", delivery_id, status="cancelled", eta=None)
    return {"delivery_id": delivery_id, "status": "cancelled", "refund": row["total"]}
