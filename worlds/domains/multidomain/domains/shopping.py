"""Online shopping: product search and details, the cart, promo codes, payment methods and checkout; order
tools live in ``shopping_orders`` (same domain). Tables: ``products``, ``cart``, ``orders``, ``payment_methods``,
``promo_codes`` (data/shopping.json). ``products`` and ``payment_methods`` are shared: food recipes list
product ids and food delivery pays with a payment method."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime, timedelta
from typing import Any

from worlds.common.errors import ToolError
from worlds.common.tables import Row
from worlds.common.toolbook import action, integer, lookup, number, optional, string
from worlds.domains.multidomain.state import WorldState

DOMAIN = "shopping"
TABLES = ("products", "cart", "orders", "payment_methods", "promo_codes")
POLICY = """Shopping: product ids come from search_products (or a recipe's details), payment method ids from
list_payment_methods, order ids from list_orders; an id not looked up in this session is refused. Checkout
needs a non-empty cart and a payment method the user chose; expired cards are refused. Only processing orders
can be cancelled; items of delivered orders can be returned within 30 days, except groceries. Prices are GBP."""

CATEGORIES = ("groceries", "electronics", "kitchen", "home", "sports")
FREE_SHIPPING_FROM = 4000
"""Pence: orders (after discount) below this pay SHIPPING."""
SHIPPING = 399
ADDRESS = "Flat 3, 41 Albion Road, London N16 9PS"
SEARCH = "search_products"
PAYMENTS = "list_payment_methods"

PRODUCT_ID = string("Product id from search_products or a recipe's details, e.g. 'prod_spaghetti'.")
PAYMENT_ID = string("Payment method id from list_payment_methods, e.g. 'pm_visa_4821'.")


def pence(pounds: float) -> int:
    return round(pounds * 100)


def pounds(amount: int) -> float:
    return round(amount / 100, 2)


def today(state: WorldState) -> date:
    return datetime.fromisoformat(state.now).date()


def later(state: WorldState, days: int) -> str:
    return (today(state) + timedelta(days=days)).isoformat()


def product(state: WorldState, product_id: str) -> Row:
    return state.require("products", product_id, "product", SEARCH)


def payment_method(state: WorldState, payment_method_id: str) -> Row:
    """A usable payment method (looked up, not expired), for shopping checkout and food delivery alike."""
    row = state.require("payment_methods", payment_method_id, "payment_method", PAYMENTS)
    expires = row["expires"]
    if expires is not None and expires < state.now[:7]:
        raise ToolError(
            "failed",
            "card_expired",
            f"The {row['label']} expired in {expires}. Ask the user for another method from list_payment_methods.",
        )
    return row


def check_stock(state: WorldState, product_id: str, wanted: int) -> Row:
    """The product row if ``wanted`` units (cart included) can be bought; refuses before anything changes."""
    row = state.get("products", product_id)
    assert row is not None
    if row["stock"] == 0:
        raise ToolError("failed", "out_of_stock", f"{row['name']} is out of stock. Suggest a similar product.")
    if wanted > row["stock"]:
        raise ToolError(
            "failed", "insufficient_stock", f"Only {row['stock']} of {row['name']} in stock; {wanted} requested."
        )
    return row


def cart_quantity(state: WorldState, product_id: str) -> int:
    line = state.get("cart", product_id)
    return 0 if line is None else int(line["quantity"])


def add_lines(state: WorldState, lines: Iterable[tuple[str, int]]) -> list[dict[str, Any]]:
    """Add (product, quantity) lines to the cart, all or none: every stock check runs before any change."""
    totals: dict[str, int] = {}
    for product_id, quantity in lines:
        totals[product_id] = totals.get(product_id, cart_quantity(state, product_id)) + quantity
    for product_id, total in totals.items():
        check_stock(state, product_id, total)
    for product_id, total in totals.items():
        state.put("cart", product_id, {"quantity": total})
    return [_line(state, product_id, total) for product_id, total in totals.items()]


def _line(state: WorldState, product_id: str, quantity: int) -> dict[str, Any]:
    row = state.get("products", product_id)
    assert row is not None
    return {
        "product_id": product_id,
        "name": row["name"],
        "quantity": quantity,
        "unit_price": row["price"],
        "line_total": pounds(pence(row["price"]) * quantity),
    }


def _promo_discount(code: str, promo: Row, subtotal: int) -> int:
    if subtotal < pence(promo["min_subtotal"]):
        return 0
    if promo["kind"] == "percent":
        return round(subtotal * promo["value"] / 100)
    return min(subtotal, int(promo["value"]) * 100)


def cart_summary(state: WorldState) -> dict[str, Any]:
    """The cart with its money: subtotal, the applied promo's discount (if still valid), shipping and total."""
    lines = [_line(state, key, int(row["quantity"])) for key, row in state.rows("cart")]
    subtotal = sum(pence(line["line_total"]) for line in lines)
    applied = next(((code, row) for code, row in state.rows("promo_codes") if row["applied"]), None)
    discount = 0 if applied is None else _promo_discount(*applied, subtotal)
    shipping = 0 if not lines or subtotal - discount >= FREE_SHIPPING_FROM else SHIPPING
    summary: dict[str, Any] = {
        "items": lines,
        "subtotal": pounds(subtotal),
        "promo_code": None if applied is None else applied[0],
        "discount": pounds(discount),
        "shipping": pounds(shipping),
        "total": pounds(subtotal - discount + shipping),
    }
    if applied is not None and discount == 0:
        summary["note"] = f"Promo {applied[0]} needs a subtotal of £{applied[1]['min_subtotal']:.2f}; not applied yet."
    return summary


@lookup(
    "Search the shop's catalog by words in the product's name, brand, category or tags; returns product ids, "
    "prices and stock. Call this before adding a product to the cart.",
    query=string("Words to match, e.g. 'olive oil' or 'headphones'."),
    category=optional(string("Only this category.", enum=CATEGORIES)),
    max_price=optional(number("Highest unit price in GBP.", minimum=0)),
)
def search_products(
    state: WorldState, query: str, category: str | None = None, max_price: float | None = None
) -> dict[str, Any]:
    words = query.lower().split()
    if not words:
        raise ToolError("invalid_arguments", "empty_query", "The query is empty: give a word such as 'pasta'.")
    found = []
    for key, row in state.rows("products"):
        text = " ".join([row["name"], row["brand"], row["category"], *row["tags"]]).lower()
        price_ok = max_price is None or row["price"] <= max_price
        if all(w in text for w in words) and category in (None, row["category"]) and price_ok:
            found.append(
                {
                    "product_id": key,
                    "name": row["name"],
                    "price": row["price"],
                    "in_stock": row["stock"] > 0,
                    "stock": row["stock"],
                    "rating": row["rating"],
                }
            )
    state.reveal("product", *(p["product_id"] for p in found))
    result: dict[str, Any] = {"products": found}
    if not found:
        result["hint"] = "Nothing matched: try fewer or more general words, or another category."
    return result


@lookup(
    "A product's full details: description, brand, price, stock, rating and whether it can be returned.",
    requires=(SEARCH,),
    product_id=PRODUCT_ID,
)
def get_product_details(state: WorldState, product_id: str) -> dict[str, Any]:
    row = product(state, product_id)
    return {"product_id": product_id, **{k: row[k] for k in row if k != "tags"}, "tags": list(row["tags"])}


@action(
    "Add a product to the cart (adds to the quantity already there). The product id must come from "
    "search_products; the total quantity cannot exceed the stock.",
    requires=(SEARCH,),
    product_id=PRODUCT_ID,
    quantity=optional(integer("How many; default 1.", 1, 20)),
)
def add_to_cart(state: WorldState, product_id: str, quantity: int = 1) -> dict[str, Any]:
    product(state, product_id)
    line = add_lines(state, [(product_id, quantity)])[0]
    return {"added": quantity, "line": line, "cart_total": cart_summary(state)["total"]}


def _in_cart(state: WorldState, product_id: str) -> Row:
    row = product(state, product_id)
    if state.get("cart", product_id) is None:
        raise ToolError("not_found", "not_in_cart", f"{row['name']} is not in the cart. Check it with view_cart.")
    return row


@action(
    "Set the quantity of a product already in the cart (use remove_from_cart to take it out).",
    requires=("view_cart",),
    product_id=string("Product id of a cart item, from view_cart."),
    quantity=integer("The new quantity.", 1, 20),
)
def update_cart_quantity(state: WorldState, product_id: str, quantity: int) -> dict[str, Any]:
    _in_cart(state, product_id)
    check_stock(state, product_id, quantity)
    state.put("cart", product_id, {"quantity": quantity})
    return {"line": _line(state, product_id, quantity), "cart_total": cart_summary(state)["total"]}


@action(
    "Remove a product from the cart entirely.",
    requires=("view_cart",),
    product_id=string("Product id of a cart item, from view_cart."),
)
def remove_from_cart(state: WorldState, product_id: str) -> dict[str, Any]:
    row = _in_cart(state, product_id)
    state.delete("cart", product_id)
    return {"removed": product_id, "name": row["name"], "cart_total": cart_summary(state)["total"]}


@lookup("Show the cart: items with product ids, quantities and prices, the applied promo code and the total.")
def view_cart(state: WorldState) -> dict[str, Any]:
    summary = cart_summary(state)
    state.reveal("product", *(line["product_id"] for line in summary["items"]))
    return summary


@action(
    "Apply a promo code the user gave to the cart (one code at a time; a new code replaces the old). Each code "
    "has a minimum subtotal and an expiry date, and works for one order only.",
    code=string("The promo code, as the user spelled it, e.g. 'SPRING10'."),
)
def apply_promo_code(state: WorldState, code: str) -> dict[str, Any]:
    code = code.strip().upper()
    promo = state.get("promo_codes", code)
    if promo is None:
        raise ToolError(
            "not_found", "unknown_promo_code", f"'{code}' is not a valid promo code. Check it with the user."
        )
    if promo["expires"] < state.now[:10]:
        raise ToolError("failed", "promo_expired", f"Promo code {code} expired on {promo['expires']}.")
    if promo["used"]:
        raise ToolError(
            "failed", "promo_used", f"Promo code {code} was already used on an earlier order; each code works once."
        )
    subtotal = pence(cart_summary(state)["subtotal"])
    if subtotal == 0:
        raise ToolError("failed", "empty_cart", "The cart is empty: add products before applying a promo code.")
    if subtotal < pence(promo["min_subtotal"]):
        raise ToolError(
            "failed",
            "below_minimum",
            f"{code} needs a subtotal of £{promo['min_subtotal']:.2f}; the cart is £{pounds(subtotal):.2f}.",
        )
    for other, row in list(state.rows("promo_codes")):
        if row["applied"] and other != code:
            state.update("promo_codes", other, applied=False)
    state.update("promo_codes", code, applied=True)
    return {"applied": code, "description": promo["description"], **cart_summary(state)}


@lookup("List the user's saved payment methods with ids, labels, expiry dates and which is the default.")
def list_payment_methods(state: WorldState) -> dict[str, Any]:
    methods = []
    for key, row in state.rows("payment_methods"):
        expired = row["expires"] is not None and row["expires"] < state.now[:7]
        methods.append({"payment_method_id": key, **row, "expired": expired})
    state.reveal("payment_method", *(m["payment_method_id"] for m in methods))
    return {"payment_methods": methods}


def _new_key(state: WorldState, table: str, prefix: str) -> str:
    """A fresh deterministic id that no seeded row already uses."""
    key = state.new_id(prefix)
    while state.get(table, key) is not None:
        key = state.new_id(prefix)
    return key


@action(
    "Buy everything in the cart: charges the payment method, creates an order (with the applied promo code) "
    "and empties the cart. Needs a non-empty cart and a payment method id from list_payment_methods.",
    requires=(PAYMENTS, "add_to_cart"),
    payment_method_id=PAYMENT_ID,
)
def checkout(state: WorldState, payment_method_id: str) -> dict[str, Any]:
    method = payment_method(state, payment_method_id)
    summary = cart_summary(state)
    if not summary["items"]:
        raise ToolError("failed", "empty_cart", "The cart is empty: add products with add_to_cart first.")
    for line in summary["items"]:
        check_stock(state, line["product_id"], line["quantity"])
    promo = summary["promo_code"] if summary["discount"] else None
    order_id = _new_key(state, "orders", "order")
    items = [{**{k: v for k, v in line.items() if k != "line_total"}, "returned": False} for line in summary["items"]]
    order = {
        "placed_at": state.now,
        "status": "processing",
        "items": items,
        "subtotal": summary["subtotal"],
        "promo_code": promo,
        "discount": summary["discount"],
        "shipping": summary["shipping"],
        "total": summary["total"],
        "payment_method_id": payment_method_id,
        "shipping_address": ADDRESS,
        "carrier": None,
        "tracking_number": None,
        "eta": later(state, 3),
        "delivered_at": None,
        "events": [{"at": state.now, "status": "processing", "detail": "Order placed"}],
        "returns": [],
    }
    for line in items:
        stocked = state.get("products", line["product_id"])
        assert stocked is not None
        state.update("products", line["product_id"], stock=stocked["stock"] - line["quantity"])
        state.delete("cart", line["product_id"])
    if promo is not None:
        state.update("promo_codes", promo, applied=False, used=True)
    state.put("orders", order_id, order)
    state.reveal("order", order_id)
    return {"order_id": order_id, "charged": summary["total"], "paid_with": method["label"], **order}
