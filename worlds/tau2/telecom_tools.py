"""τ²'s telecom agent tools, written for squall from τ²'s documented behaviour (its policy and tool descriptions).

Each function runs on one episode's ``Database`` (tables ``plans``, ``customers``, ``lines``, ``bills``, ``devices``,
keyed by their ids, dates as ISO text). τ²'s telecom day is fixed (``TODAY``), so every date a tool writes is too; a
draft bill the refuel opens gets the next id of its own (``B`` and a counter), where τ² draws a random one.
"""

from __future__ import annotations

import datetime
from typing import Any

from worlds.common.toolbook import action, integer, lookup, number, optional, string
from worlds.tau2.database import Database, Record
from worlds.tau2.errors import missing, refused

TODAY = datetime.date(2025, 2, 25)
_CUSTOMER = string("The customer's id, such as 'C1001'.")
_LINE = string("The line's id, such as 'L1001'.")
TABLE_OF_PREFIX = {"L": "lines", "D": "devices", "B": "bills", "C": "customers", "P": "plans"}
KIND = {"lines": "Line", "devices": "Device", "bills": "Bill", "customers": "Customer", "plans": "Plan"}


def record(db: Database, table: str, key: str) -> Record:
    found = db.row(table, key)
    if found is None:
        raise missing(f"{KIND[table]} with ID {key}")
    return found


def target_line(db: Database, customer_id: str, line_id: str) -> Record:
    """The line, which must be the customer's."""
    if line_id not in record(db, "customers", customer_id)["line_ids"]:
        raise missing(f"Line {line_id} for customer {customer_id}")
    return record(db, "lines", line_id)


def edit_line(db: Database, customer_id: str, line_id: str) -> Record:
    target_line(db, customer_id, line_id)
    return db.edit("lines", line_id)


@lookup("Find a customer by their contact phone number or a line's phone number.", phone_number=string("The number."))
def get_customer_by_phone(db: Database, phone_number: str) -> Any:
    for _, customer in db.rows("customers"):
        if customer.get("phone_number") == phone_number:
            return customer
        if any(record(db, "lines", line)["phone_number"] == phone_number for line in customer["line_ids"]):
            return customer
    raise missing(f"Customer with phone number {phone_number}")


@lookup("Find a customer by id.", customer_id=_CUSTOMER)
def get_customer_by_id(db: Database, customer_id: str) -> Any:
    return record(db, "customers", customer_id)


@lookup(
    "Find customers by full name and date of birth (several may match).",
    full_name=string("The customer's full name."),
    dob=string("Date of birth, YYYY-MM-DD."),
)
def get_customer_by_name(db: Database, full_name: str, dob: str) -> Any:
    return [
        c for _, c in db.rows("customers") if c["full_name"].lower() == full_name.lower() and c["date_of_birth"] == dob
    ]


@lookup("The details of a customer, line, device, bill or plan, by its id (C..., L..., D..., B..., P...).", id=string(
    "The id."))  # fmt: skip
def get_details_by_id(db: Database, id: str) -> Any:
    table = TABLE_OF_PREFIX.get(id[:1])
    if table is None:
        raise refused(f"Unknown ID format or type: {id}")
    return record(db, table, id)


@action(
    "Suspend a line (at most 6 months); the line must be active. A $5/month holding fee applies.",
    customer_id=_CUSTOMER,
    line_id=_LINE,
    reason=string("Why the line is suspended."),
)
def suspend_line(db: Database, customer_id: str, line_id: str, reason: str) -> Any:
    line = edit_line(db, customer_id, line_id)
    if line["status"] != "Active":
        raise refused("Line must be active to suspend")
    line.update(status="Suspended", suspension_start_date=TODAY.isoformat())
    return {"message": "Line suspended successfully. $5/month holding fee will apply.", "line": line}


@action("Resume a suspended (or pending activation) line.", customer_id=_CUSTOMER, line_id=_LINE)
def resume_line(db: Database, customer_id: str, line_id: str) -> Any:
    line = edit_line(db, customer_id, line_id)
    if line["status"] not in ("Suspended", "Pending Activation"):
        raise refused("Line must be suspended to resume")
    line.update(status="Active", suspension_start_date=None)
    return {"message": "Line resumed successfully", "line": line}


@lookup(
    "A customer's bills, newest first.",
    customer_id=_CUSTOMER,
    limit=optional(integer("How many bills at most (default 12).")),
)
def get_bills_for_customer(db: Database, customer_id: str, limit: int = 12) -> Any:
    bills = [record(db, "bills", b) for b in record(db, "customers", customer_id)["bill_ids"]]
    return sorted(bills, key=lambda bill: bill["issue_date"], reverse=True)[:limit]


def awaiting_payment(db: Database, customer: Record) -> list[Record]:
    return [b for b in (record(db, "bills", i) for i in customer["bill_ids"]) if b["status"] == "Awaiting Payment"]


@action(
    "Send the customer a payment request for a bill (check first that it is not paid); only one bill may await "
    "payment at a time.",
    customer_id=_CUSTOMER,
    bill_id=string("The bill's id."),
)
def send_payment_request(db: Database, customer_id: str, bill_id: str) -> Any:
    customer = record(db, "customers", customer_id)
    if awaiting_payment(db, customer):
        raise refused("A bill is already awaiting payment for this customer")
    if bill_id not in customer["bill_ids"]:
        raise missing(f"Bill {bill_id} for customer {customer_id}")
    record(db, "bills", bill_id)
    db.edit("bills", bill_id)["status"] = "Awaiting Payment"
    return f"Payment request sent to the customer for bill {bill_id}"


@lookup("A line's data usage this cycle: used, limit, refuelled, cycle end.", customer_id=_CUSTOMER, line_id=_LINE)
def get_data_usage(db: Database, customer_id: str, line_id: str) -> Any:
    line = target_line(db, customer_id, line_id)
    plan = record(db, "plans", line["plan_id"])
    first_of_next = datetime.date(TODAY.year + TODAY.month // 12, TODAY.month % 12 + 1, 1)
    return {
        "line_id": line_id,
        "data_used_gb": line["data_used_gb"],
        "data_limit_gb": plan["data_limit_gb"],
        "data_refueling_gb": line["data_refueling_gb"],
        "cycle_end_date": (first_of_next - datetime.timedelta(days=1)).isoformat(),
    }


@action("Enable international roaming on a line.", customer_id=_CUSTOMER, line_id=_LINE)
def enable_roaming(db: Database, customer_id: str, line_id: str) -> Any:
    if target_line(db, customer_id, line_id)["roaming_enabled"]:
        return "Roaming was already enabled"
    edit_line(db, customer_id, line_id)["roaming_enabled"] = True
    return "Roaming enabled successfully"


@action("Disable international roaming on a line.", customer_id=_CUSTOMER, line_id=_LINE)
def disable_roaming(db: Database, customer_id: str, line_id: str) -> Any:
    if not target_line(db, customer_id, line_id)["roaming_enabled"]:
        return "Roaming was already disabled"
    edit_line(db, customer_id, line_id)["roaming_enabled"] = False
    return "Roaming disabled successfully"


@action(
    "Add data to a line, charged to the customer's next bill at the plan's refuelling rate; the customer must own "
    "the line.",
    customer_id=_CUSTOMER,
    line_id=_LINE,
    gb_amount=number("Gigabytes to add."),
)
def refuel_data(db: Database, customer_id: str, line_id: str, gb_amount: float) -> Any:
    line = target_line(db, customer_id, line_id)
    if gb_amount <= 0:
        raise refused("Refuel amount must be positive")
    price = record(db, "plans", line["plan_id"])["data_refueling_price_per_gb"]
    charge = gb_amount * price
    line = db.edit("lines", line_id)
    line["data_refueling_gb"] += gb_amount
    one_time_charge(db, customer_id, charge, f"Data refueling: {gb_amount} GB at ${price}/GB")
    return {
        "message": f"Successfully added {gb_amount} GB of data for line {line_id} for ${charge:.2f}",
        "new_data_refueling_gb": line["data_refueling_gb"],
        "charge": charge,
    }


def one_time_charge(db: Database, customer_id: str, amount: float, description: str) -> None:
    """A line item on the customer's draft bill, opening one for next month where there is none."""
    customer = record(db, "customers", customer_id)
    draft = next((b for b in customer["bill_ids"] if record(db, "bills", b)["status"] == "Draft"), None)
    if draft is None:
        start = (TODAY.replace(day=1) + datetime.timedelta(days=32)).replace(day=1)
        following = datetime.date(start.year + start.month // 12, start.month % 12 + 1, 1)
        draft = f"B{sum(1 for _ in db.rows('bills')) + 1:07d}"  # τ² draws a random id; squall's is the next free
        db.insert("bills", draft, {
            "bill_id": draft, "customer_id": customer_id, "period_start": start.isoformat(),
            "period_end": (following - datetime.timedelta(days=1)).isoformat(), "issue_date": start.isoformat(),
            "total_due": 0, "due_date": (start + datetime.timedelta(days=14)).isoformat(), "status": "Draft",
            "line_items": [],
        })  # fmt: skip
        db.edit("customers", customer_id)["bill_ids"].append(draft)
    bill = db.edit("bills", draft)
    kind = "Credit" if amount < 0 else "Charge"
    bill["line_items"].append({"description": description, "amount": amount, "date": TODAY.isoformat(),
                               "item_type": kind})  # fmt: skip
    bill["total_due"] += amount
