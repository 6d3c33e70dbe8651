"""Shopping orders: list, details, tracking, cancelling and returns. Part of the shopping domain (the
domain lists both modules); this one imports ``shopping``, never the reverse."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sim.core.frozen import thaw
from worlds.common.errors import ToolError
from worlds.common.tables import Row
from worlds.common.toolbook import action, lookup, optional, string
from worlds.domains.multidomain.domains.shopping import later, pence, pounds, today
from worlds.domains.multidomain.state import WorldState

ORDER_STATUSES = ("processing", "shipped", "out_for_delivery", "delivered", "cancelled")
RETURN_REASONS = ("damaged", "wrong_item", "not_as_described", "no_longer_needed", "changed_mind")
RETURN_DAYS = 30
LIST = "list_orders"
ORDER_ID = string("Order id from list_orders (or from checkout), e.g. 'order-7001'.")


def _order(state: WorldState, order_id: str) -> Row:
    return state.require("orders", order_id, "order", LIST)


def _summary(order_id: str, row: Row) -> dict[str, Any]:
    return {
        "order_id": order_id,
        "placed_at": row["placed_at"],
        "status": row["status"],
        "total": row["total"],
        "items": [{"product_id": i["product_id"], "name": i["name"], "quantity": i["quantity"]} for i in row["items"]],
    }


@lookup(
    "List the user's orders, newest first, with ids, status, totals and items; optionally only one status.",
    status=optional(string("Only orders with this status.", enum=ORDER_STATUSES)),
)
def list_orders(state: WorldState, status: str | None = None) -> dict[str, Any]:
    orders = [_summary(key, row) for key, row in state.rows("orders") if status in (None, row["status"])]
    # Newest first; orders placed under the frozen clock share a timestamp, and later rows are newer.
    order = {id(o): i for i, o in enumerate(orders)}
    orders.sort(key=lambda o: (str(o["placed_at"]), order[id(o)]), reverse=True)
    state.reveal("order", *(o["order_id"] for o in orders))
    return {"orders": orders}


@lookup(
    "An order's full details: items with prices, discount, shipping, total, payment method, address, returns.",
    requires=(LIST,),
    order_id=ORDER_ID,
)
def get_order_details(state: WorldState, order_id: str) -> dict[str, Any]:
    row = _order(state, order_id)
    return {"order_id": order_id, **{k: thaw(row[k]) for k in row if k != "events"}}


@lookup(
    "Track an order: its status, carrier, tracking number, expected delivery date and the shipping events.",
    requires=(LIST,),
    order_id=ORDER_ID,
)
def track_order(state: WorldState, order_id: str) -> dict[str, Any]:
    row = _order(state, order_id)
    return {
        "order_id": order_id,
        "status": row["status"],
        "carrier": row["carrier"],
        "tracking_number": row["tracking_number"],
        "eta": row["eta"],
        "delivered_at": row["delivered_at"],
        "events": thaw(row["events"]),
    }


@action(
    "Cancel an order that has not shipped yet (status processing): refunds it and puts the stock back. A shipped "
    "order cannot be cancelled; once delivered its items can be returned with return_item.",
    requires=(LIST,),
    order_id=ORDER_ID,
)
def cancel_order(state: WorldState, order_id: str) -> dict[str, Any]:
    row = _order(state, order_id)
    if row["status"] != "processing":
        raise ToolError(
            "failed",
            "cannot_cancel",
            f"Order {order_id} is {row['status'].replace('_', ' ')}; only processing orders can be cancelled. "
            "A delivered order's items can be returned with return_item.",
        )
    for item in row["items"]:
        stocked = state.get("products", item["product_id"])
        if stocked is not None:
            state.update("products", item["product_id"], stock=stocked["stock"] + item["quantity"])
    event = {"at": state.now, "status": "cancelled", "detail": "Cancelled by customer, refunded"}
    state.update("orders", order_id, status="cancelled", eta=None, events=[*row["events"], event])
    return {"order_id": order_id, "status": "cancelled", "refund": row["total"]}


@action(
    f"Return an item of a delivered order within {RETURN_DAYS} days of delivery: refunds the item and gives a "
    "drop-off deadline. Groceries cannot be returned. Needs the order id from list_orders and the item's "
    "product id from the order.",
    requires=(LIST,),
    order_id=ORDER_ID,
    product_id=string("Product id of an item in that order (see get_order_details or list_orders)."),
    reason=string("Why the user returns it.", enum=RETURN_REASONS),
)
def return_item(state: WorldState, order_id: str, product_id: str, reason: str) -> dict[str, Any]:
    row = _order(state, order_id)
    if row["status"] != "delivered":
        raise ToolError(
            "failed",
            "not_delivered",
            f"Order {order_id} is {row['status'].replace('_', ' ')}; only delivered orders can be returned.",
        )
    item = next((i for i in row["items"] if i["product_id"] == product_id), None)
    if item is None:
        names = ", ".join(f"{i['name']} ({i['product_id']})" for i in row["items"])
        raise ToolError("not_found", "not_in_order", f"Order {order_id} has no {product_id}; it holds {names}.")
    if item["returned"]:
        raise ToolError("failed", "already_returned", f"{item['name']} from {order_id} is already being returned.")
    stocked = state.get("products", product_id)
    if stocked is not None and not stocked["returnable"]:
        raise ToolError("failed", "not_returnable", f"{item['name']} is a grocery item and cannot be returned.")
    delivered = datetime.fromisoformat(row["delivered_at"]).date()
    if today(state) > delivered + timedelta(days=RETURN_DAYS):
        raise ToolError(
            "failed",
            "return_window_closed",
            f"{order_id} was delivered on {delivered.isoformat()}; the {RETURN_DAYS}-day return window has closed.",
        )
    return_id = state.new_id("return")
    refund = pounds(pence(item["unit_price"]) * item["quantity"])
    entry = {
        "return_id": return_id,
        "product_id": product_id,
        "quantity": item["quantity"],
        "reason": reason,
        "refund": refund,
        "status": "label_sent",
        "requested_at": state.now,
        "drop_off_by": later(state, 14),
    }
    items = [{**i, "returned": True} if i["product_id"] == product_id else dict(i) for i in row["items"]]
    state.update("orders", order_id, items=items, returns=[*row["returns"], entry])
    return {
        "order_id": order_id,
        "name": item["name"],
        **entry,
        "how": "Print the emailed label; drop off at a post office.",
    }
