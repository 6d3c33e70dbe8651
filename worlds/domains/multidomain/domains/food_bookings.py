"""Restaurant table bookings: availability, booking, listing and cancelling. Part of the food domain
(the domain lists both modules); this one imports ``food``, never the reverse."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from worlds.common.errors import ToolError
from worlds.common.tables import Row
from worlds.common.toolbook import action, integer, lookup, optional, string
from worlds.domains.multidomain.domains.food import RESTAURANT_ID, RESTAURANTS, restaurant
from worlds.domains.multidomain.domains.shopping import today
from worlds.domains.multidomain.state import WorldState

BOOK_AHEAD_DAYS = 60
DATE = string("Date, YYYY-MM-DD.", pattern=r"^\d{4}-\d{2}-\d{2}$")
TIME = string("Time on the hour or half hour, HH:MM (24 h), e.g. '19:30'.", pattern=r"^([01]\d|2[0-3]):[0-5]\d$")
PARTY = integer("Number of people.", 1, 20)


def slots(row: Row) -> list[str]:
    """Bookable times: every half hour from opening until an hour before closing."""
    start = datetime.strptime(row["opens"], "%H:%M")
    last = datetime.strptime(row["closes"], "%H:%M") - timedelta(hours=1)
    times = []
    while start <= last:
        times.append(start.strftime("%H:%M"))
        start += timedelta(minutes=30)
    return times


def is_full(state: WorldState, restaurant_id: str, row: Row, day: str, time: str) -> bool:
    if f"{day}T{time}" in row["full_slots"]:
        return True
    taken = sum(
        1
        for _, r in state.rows("reservations")
        if r["restaurant_id"] == restaurant_id and r["date"] == day and r["time"] == time and r["status"] == "confirmed"
    )
    return taken >= row["tables_per_slot"]


def _bookable(state: WorldState, restaurant_id: str, day: str, party_size: int) -> Row:
    """The restaurant, if it takes bookings for this party on this day; else the refusal that says why."""
    row = restaurant(state, restaurant_id)
    if not row["reservations"]:
        raise ToolError("failed", "no_reservations", f"{row['name']} does not take bookings; it is walk-in only.")
    try:
        wanted = date.fromisoformat(day)
    except ValueError:
        raise ToolError("invalid_arguments", "bad_date", f"'{day}' is not a real date; use YYYY-MM-DD.") from None
    if wanted < today(state):
        raise ToolError("invalid_arguments", "date_in_past", f"{day} is in the past; today is {state.now[:10]}.")
    if wanted > today(state) + timedelta(days=BOOK_AHEAD_DAYS):
        raise ToolError("failed", "too_far_ahead", f"Bookings open {BOOK_AHEAD_DAYS} days ahead; {day} is too far.")
    if party_size > row["max_party"]:
        raise ToolError(
            "failed",
            "party_too_large",
            f"{row['name']} books tables for up to {row['max_party']}; for {party_size} the user must call them.",
        )
    return row


def _free(state: WorldState, restaurant_id: str, row: Row, day: str) -> list[str]:
    now = state.now[11:16] if day == state.now[:10] else ""
    return [t for t in slots(row) if t > now and not is_full(state, restaurant_id, row, day, t)]


@lookup(
    "The free booking times at a restaurant on a date for a party size.",
    requires=(RESTAURANTS,),
    restaurant_id=RESTAURANT_ID,
    date=DATE,
    party_size=PARTY,
)
def check_table_availability(state: WorldState, restaurant_id: str, date: str, party_size: int) -> dict[str, Any]:
    row = _bookable(state, restaurant_id, date, party_size)
    return {
        "restaurant_id": restaurant_id,
        "date": date,
        "party_size": party_size,
        "free_times": _free(state, restaurant_id, row, date),
    }


@action(
    "Book a table at a restaurant that takes bookings. Times are on the hour or half hour, at least an hour "
    "before closing; the restaurant id comes from search_restaurants.",
    requires=(RESTAURANTS,),
    restaurant_id=RESTAURANT_ID,
    date=DATE,
    time=TIME,
    party_size=PARTY,
    special_request=optional(string("E.g. 'high chair' or 'window table'.")),
)
def book_table(
    state: WorldState, restaurant_id: str, date: str, time: str, party_size: int, special_request: str | None = None
) -> dict[str, Any]:
    row = _bookable(state, restaurant_id, date, party_size)
    if time not in slots(row):
        raise ToolError(
            "invalid_arguments",
            "outside_hours",
            f"{row['name']} seats {row['opens']}-{row['closes']} (last booking an hour before closing), "
            f"on the hour or half hour; {time} is not bookable.",
        )
    if date == state.now[:10] and time <= state.now[11:16]:
        raise ToolError("invalid_arguments", "time_passed", f"{time} today has already passed.")
    if is_full(state, restaurant_id, row, date, time):
        free = _free(state, restaurant_id, row, date)
        raise ToolError(
            "unavailable",
            "slot_full",
            f"{row['name']} is fully booked at {time} on {date}. Free times that day: {', '.join(free) or 'none'}.",
        )
    user = state.get("users", "u1")
    key = state.new_id("reservation")
    while state.get("reservations", key) is not None:
        key = state.new_id("reservation")
    booking = {
        "restaurant_id": restaurant_id,
        "restaurant_name": row["name"],
        "date": date,
        "time": time,
        "party_size": party_size,
        "name": None if user is None else user["name"],
        "special_request": special_request,
        "status": "confirmed",
    }
    state.put("reservations", key, booking)
    state.reveal("reservation", key)
    return {"reservation_id": key, **booking, "address": row["address"]}


@lookup("List the user's table reservations (upcoming and past) with ids, restaurants, dates and status.")
def list_reservations(state: WorldState) -> dict[str, Any]:
    found = [{"reservation_id": key, **row} for key, row in state.rows("reservations")]
    found.sort(key=lambda r: (str(r["date"]), str(r["time"])))
    state.reveal("reservation", *(r["reservation_id"] for r in found))
    return {"reservations": found}


@action(
    "Cancel an upcoming table reservation.",
    requires=("list_reservations",),
    reservation_id=string("Reservation id from list_reservations or book_table."),
)
def cancel_reservation(state: WorldState, reservation_id: str) -> dict[str, Any]:
    row = state.require("reservations", reservation_id, "reservation", "list_reservations")
    if row["status"] != "confirmed":
        raise ToolError(
            "failed", "cannot_cancel", f"The {row['restaurant_name']} booking on {row['date']} is {row['status']}."
        )
    state.update("reservations", reservation_id, status="cancelled")
    return {"reservation_id": reservation_id, "status": "cancelled", "restaurant_name": row["restaurant_name"]}
