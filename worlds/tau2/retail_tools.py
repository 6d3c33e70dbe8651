"""τ²'s retail agent tools, written for squall from τ²'s documented behaviour (its policy and tool descriptions).

Each function runs on one episode's ``Database`` (tables ``products``, ``users``, ``orders``). Money is rounded where
τ² rounds it (gift card balances, an exchange's price difference) and nowhere else, so the database a gold sequence
leaves is τ²'s to the cent.
"""

from __future__ import annotations

import copy
from types import MappingProxyType
from typing import Any

from worlds.common.toolbook import action, array, lookup, string
from worlds.tau2.database import Database, Record
from worlds.tau2.errors import missing, refused

CANCEL_REASONS = ("no longer needed", "ordered by mistake")
_ORDER_ID = string("The order id, such as '#W0000000' (it starts with '#').")
_USER_ID = string("The user's id, such as 'sara_doe_496'.")
_PAYMENT = string("A payment method id from the user's profile, such as 'gift_card_0000000' or 'credit_card_0000000'.")
_ITEMS = array("Item ids, such as '1008292230'; an item ordered twice may be listed twice.", string("An item id."))
_ADDRESS = MappingProxyType(
    {
        "address1": string("First line of the address, such as '123 Main St'."),
        "address2": string("Second line of the address, such as 'Apt 1' (may be empty)."),
        "city": string("City."),
        "state": string("State, such as 'CA'."),
        "country": string("Country, such as 'USA'."),
        "zip": string("Zip code, such as '12345'."),
    }
)


def _order(db: Database, order_id: str) -> Record:
    found = db.row("orders", order_id)
    if found is None:
        raise missing("Order")
    return found


def _user(db: Database, user_id: str) -> Record:
    found = db.row("users", user_id)
    if found is None:
        raise missing("User")
    return found


def _variant(db: Database, product_id: str, item_id: str) -> Record:
    product = db.row("products", product_id)
    if product is None:
        raise missing("Product")
    variant = product["variants"].get(item_id)
    if variant is None:
        raise missing("Variant")
    assert isinstance(variant, dict)
    return variant


def _method(db: Database, user_id: str, payment_method_id: str) -> Record:
    method = _user(db, user_id)["payment_methods"].get(payment_method_id)
    if method is None:
        raise missing("Payment method")
    assert isinstance(method, dict)
    return method


def _add_to_gift_card(db: Database, user_id: str, payment_method_id: str, amount: float) -> None:
    card = db.edit("users", user_id)["payment_methods"][payment_method_id]
    card["balance"] = round(card["balance"] + amount, 2)


def _check_items(order: Record, item_ids: list[str], message: str) -> None:
    """Every item id listed is in the order, as many times as listed."""
    ordered = [item["item_id"] for item in order["items"]]
    for item_id in item_ids:
        if item_ids.count(item_id) > ordered.count(item_id):
            raise refused(message.format(item_id=item_id))


def _price_difference(db: Database, order: Record, item_ids: list[str], new_item_ids: list[str]) -> float:
    """New items' prices minus the old ones', each new item a variant of the old one's product, available."""
    if len(item_ids) != len(new_item_ids):
        raise refused("The number of items to be exchanged should match")
    difference = 0.0
    for item_id, new_item_id in zip(item_ids, new_item_ids, strict=True):
        item = next((i for i in order["items"] if i["item_id"] == item_id), None)
        if item is None:
            raise missing(f"Item {item_id}")
        variant = _variant(db, item["product_id"], new_item_id)
        if not variant["available"]:
            raise refused(f"New item {new_item_id} not found or not available")
        difference += variant["price"] - item["price"]
    return difference


@lookup(
    "Find a user's id by their first name, last name and zip code.",
    first_name=string("First name, such as 'John'."),
    last_name=string("Last name, such as 'Doe'."),
    zip=string("Zip code, such as '12345'."),
)
def find_user_id_by_name_zip(db: Database, first_name: str, last_name: str, zip: str) -> Any:
    for user_id, user in db.rows("users"):
        name = user["name"]
        if (
            name["first_name"].lower() == first_name.lower()
            and name["last_name"].lower() == last_name.lower()
            and user["address"]["zip"] == zip
        ):
            return user_id
    raise missing("User")


@lookup("Find a user's id by their email address.", email=string("Email, such as 'something@example.com'."))
def find_user_id_by_email(db: Database, email: str) -> Any:
    for user_id, user in db.rows("users"):
        if user["email"].lower() == email.lower():
            return user_id
    raise missing("User")


@lookup("Get the status and details of an order.", order_id=_ORDER_ID)
def get_order_details(db: Database, order_id: str) -> Any:
    return _order(db, order_id)


@lookup(
    "Get a product's details: every variant (item) with its options, availability and price.",
    product_id=string("The product id, such as '6086499569' (not an item id)."),
)
def get_product_details(db: Database, product_id: str) -> Any:
    product = db.row("products", product_id)
    if product is None:
        raise missing("Product")
    return product


@lookup("Get a user's details: name, address, payment methods and orders.", user_id=_USER_ID)
def get_user_details(db: Database, user_id: str) -> Any:
    return _user(db, user_id)


@lookup("List the name and product id of every product type (50 in all).")
def list_all_product_types(db: Database) -> Any:
    return {product["name"]: product["product_id"] for _, product in db.rows("products")}


@action(
    "Cancel a pending order after the user confirmed it. Payments are refunded: at once to a gift card, else in "
    "5-7 business days.",
    order_id=_ORDER_ID,
    reason=string("Why the order is cancelled.", enum=CANCEL_REASONS),
)
def cancel_pending_order(db: Database, order_id: str, reason: str) -> Any:
    order = _order(db, order_id)
    if order["status"] != "pending":
        raise refused("A non-pending order cannot be cancelled")
    if reason not in CANCEL_REASONS:
        raise refused("Invalid reason")
    refunds = []
    for payment in order["payment_history"]:
        method_id = payment["payment_method_id"]
        refunds.append({"transaction_type": "refund", "amount": payment["amount"], "payment_method_id": method_id})
        if _method(db, order["user_id"], method_id)["source"] == "gift_card":
            _add_to_gift_card(db, order["user_id"], method_id, payment["amount"])
    mine = db.edit("orders", order_id)
    mine["status"] = "cancelled"
    mine["cancel_reason"] = reason
    mine["payment_history"].extend(refunds)
    return mine


@action(
    "Exchange items of a delivered order for other variants of the same products (once per order, after the user "
    "confirmed). The price difference is paid with, or refunded to, the payment method.",
    order_id=_ORDER_ID,
    item_ids=_ITEMS,
    new_item_ids=array("The new item ids, each a variant of the same product as the item in its position.", string("")),
    payment_method_id=_PAYMENT,
)
def exchange_delivered_order_items(
    db: Database, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
) -> Any:
    order = _order(db, order_id)
    if order["status"] != "delivered":
        raise refused("A non-delivered order cannot be exchanged")
    _check_items(order, item_ids, "Number of {item_id} not found.")
    difference = round(_price_difference(db, order, item_ids, new_item_ids), 2)
    method = _method(db, order["user_id"], payment_method_id)
    if method["source"] == "gift_card" and method["balance"] < difference:
        raise refused("Insufficient gift card balance to pay for the price difference")
    mine = db.edit("orders", order_id)
    mine["status"] = "exchange requested"
    mine["exchange_items"] = sorted(item_ids)
    mine["exchange_new_items"] = sorted(new_item_ids)
    mine["exchange_payment_method_id"] = payment_method_id
    mine["exchange_price_difference"] = difference
    return mine


@action(
    "Return items of a delivered order (once per order, after the user confirmed). The refund goes to the original "
    "payment method or to a gift card.",
    order_id=_ORDER_ID,
    item_ids=_ITEMS,
    payment_method_id=_PAYMENT,
)
def return_delivered_order_items(db: Database, order_id: str, item_ids: list[str], payment_method_id: str) -> Any:
    order = _order(db, order_id)
    if order["status"] != "delivered":
        raise refused("A non-delivered order cannot be returned")
    method = _method(db, order["user_id"], payment_method_id)
    if method["source"] != "gift_card" and payment_method_id != order["payment_history"][0]["payment_method_id"]:
        raise refused("The refund must go to the original payment method or a gift card")
    _check_items(order, item_ids, "Some item not found")
    mine = db.edit("orders", order_id)
    mine["status"] = "return requested"
    mine["return_items"] = sorted(item_ids)
    mine["return_payment_method_id"] = payment_method_id
    return mine


@action(
    "Change the shipping address of a pending order (after the user confirmed).", (), order_id=_ORDER_ID, **_ADDRESS
)
def modify_pending_order_address(db: Database, order_id: str, **address: str) -> Any:
    if "pending" not in _order(db, order_id)["status"]:
        raise refused("A non-pending order cannot be modified")
    mine = db.edit("orders", order_id)
    mine["address"] = {key: address[key] for key in _ADDRESS}
    return mine


@action(
    "Change items of a pending order to other variants of the same products (once per order, after the user "
    "confirmed). The price difference is paid with, or refunded to, the payment method.",
    order_id=_ORDER_ID,
    item_ids=_ITEMS,
    new_item_ids=array("The new item ids, each a variant of the same product as the item in its position.", string("")),
    payment_method_id=_PAYMENT,
)
def modify_pending_order_items(
    db: Database, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
) -> Any:
    order = _order(db, order_id)
    if order["status"] != "pending":
        raise refused("A non-pending order cannot be modified")
    _check_items(order, item_ids, "{item_id} not found")
    if any(old == new for old, new in zip(item_ids, new_item_ids, strict=False)):
        raise refused("The new item id should be different from the old item id")
    difference = _price_difference(db, order, item_ids, new_item_ids)
    method = _method(db, order["user_id"], payment_method_id)
    if method["source"] == "gift_card" and method["balance"] < difference:
        raise refused("Insufficient gift card balance to pay for the new item")
    mine = db.edit("orders", order_id)
    mine["payment_history"].append(
        {
            "transaction_type": "payment" if difference > 0 else "refund",
            "amount": abs(difference),
            "payment_method_id": payment_method_id,
        }
    )
    if method["source"] == "gift_card":
        _add_to_gift_card(db, order["user_id"], payment_method_id, -difference)
    # Every changed item takes the price and options of the last new item's variant: τ²'s own behaviour (it reads
    # the variant its price loop left behind), kept so that the databases compare equal.
    last_old = next(i for i in order["items"] if i["item_id"] == item_ids[-1]) if item_ids else None
    last = _variant(db, last_old["product_id"], new_item_ids[-1]) if last_old is not None else {}
    for item_id, new_item_id in zip(item_ids, new_item_ids, strict=True):
        item = next(i for i in mine["items"] if i["item_id"] == item_id)
        item["item_id"] = new_item_id
        item["price"] = last["price"]
        item["options"] = copy.deepcopy(last["options"])
    mine["status"] = "pending (item modified)"
    return mine


@action(
    "Change the payment method of a pending order (after the user confirmed); the old method is refunded.",
    order_id=_ORDER_ID,
    payment_method_id=_PAYMENT,
)
def modify_pending_order_payment(db: Database, order_id: str, payment_method_id: str) -> Any:
    order = _order(db, order_id)
    if "pending" not in order["status"]:
        raise refused("A non-pending order cannot be modified")
    method = _method(db, order["user_id"], payment_method_id)
    history = order["payment_history"]
    if len(history) != 1 or history[0]["transaction_type"] != "payment":
        raise refused("There should be exactly one payment for a pending order")
    old_id = history[0]["payment_method_id"]
    if old_id == payment_method_id:
        raise refused("The new payment method should be different from the current one")
    amount = history[0]["amount"]
    if method["source"] == "gift_card" and method["balance"] < amount:
        raise refused("Insufficient gift card balance to pay for the order")
    mine = db.edit("orders", order_id)
    mine["payment_history"].extend(
        [
            {"transaction_type": "payment", "amount": amount, "payment_method_id": payment_method_id},
            {"transaction_type": "refund", "amount": amount, "payment_method_id": old_id},
        ]
    )
    if method["source"] == "gift_card":
        _add_to_gift_card(db, order["user_id"], payment_method_id, -amount)
    if _method(db, order["user_id"], old_id)["source"] == "gift_card":
        _add_to_gift_card(db, order["user_id"], old_id, amount)
    return mine


@action("Change a user's default address (after the user confirmed).", (), user_id=_USER_ID, **_ADDRESS)
def modify_user_address(db: Database, user_id: str, **address: str) -> Any:
    _user(db, user_id)
    mine = db.edit("users", user_id)
    mine["address"] = {key: address[key] for key in _ADDRESS}
    return mine
