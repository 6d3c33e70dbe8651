"""τ²'s airline agent tools, written for squall from τ²'s documented behaviour (its policy and tool descriptions).

Each function runs on one episode's ``Database`` (tables ``flights``, ``users``, ``reservations``) and returns what
the agent reads (a record, a list, a line of text); a refusal is a ``ToolError``. The clock is τ²'s fixed
``2024-05-15T15:00:00``; new reservations take τ²'s ids (``HATHAT``, ``HATHAU``, ``HATHAV``) and new certificates
``certificate_3221322`` onwards, so the database a gold sequence leaves is τ²'s.
"""

from __future__ import annotations

import copy
from typing import Any

from worlds.common.toolbook import Schema, action, array, integer, lookup, string
from worlds.tau2.database import Database, Record
from worlds.tau2.errors import missing, refused

NOW = "2024-05-15T15:00:00"
NEW_RESERVATION_IDS = ("HATHAT", "HATHAU", "HATHAV")
NEW_PAYMENT_NUMBERS = (3221322, 3221323, 3221324)
CABINS = ("basic_economy", "economy", "business")
AIRPORTS = (
    ("SFO", "San Francisco"), ("JFK", "New York"), ("LAX", "Los Angeles"), ("ORD", "Chicago"), ("DFW", "Dallas"),
    ("DEN", "Denver"), ("SEA", "Seattle"), ("ATL", "Atlanta"), ("MIA", "Miami"), ("BOS", "Boston"),
    ("PHX", "Phoenix"), ("IAH", "Houston"), ("LAS", "Las Vegas"), ("MCO", "Orlando"), ("EWR", "Newark"),
    ("CLT", "Charlotte"), ("MSP", "Minneapolis"), ("DTW", "Detroit"), ("PHL", "Philadelphia"), ("LGA", "LaGuardia"),
)  # fmt: skip
INSURANCE_FEE = 30
BAG_FEE = 50


def _obj(description: str, **fields: Schema) -> Schema:
    return {
        "type": "object",
        "description": description,
        "properties": fields,
        "required": list(fields),
    }


_RESERVATION_ID = string("The reservation id, six characters, such as 'ZFA04Y'.")
_USER_ID = string("The user's id, such as 'sara_doe_496'.")
_PAYMENT_ID = string(
    "A payment method id from the user's profile, such as 'credit_card_7815826' or 'gift_card_7815826'."
)
_FLIGHT = _obj(
    "One flight segment.",
    flight_number=string("The flight number, such as 'HAT001'."),
    date=string("The date, 'YYYY-MM-DD'."),
)
_PASSENGER = _obj(
    "One passenger.",
    first_name=string("First name."),
    last_name=string("Last name."),
    dob=string("Date of birth, 'YYYY-MM-DD'."),
)
_PAYMENT = _obj(
    "One payment.",
    payment_id=string("A payment method id from the user's profile."),
    amount=integer("The amount in dollars charged to it."),
)


def _user(db: Database, user_id: str) -> Record:
    found = db.row("users", user_id)
    if found is None:
        raise missing(f"User {user_id}")
    return found


def _reservation(db: Database, reservation_id: str) -> Record:
    found = db.row("reservations", reservation_id)
    if found is None:
        raise missing(f"Reservation {reservation_id}")
    return found


def _flight(db: Database, flight_number: str) -> Record:
    found = db.row("flights", flight_number)
    if found is None:
        raise missing(f"Flight {flight_number}")
    return found


def _flight_day(db: Database, flight_number: str, date: str) -> Record:
    day = _flight(db, flight_number)["dates"].get(date)
    if day is None:
        raise missing(f"Flight {flight_number} on {date}")
    assert isinstance(day, dict)
    return day


def _direct(
    db: Database, date: str, origin: str | None, destination: str | None, after: str | None = None
) -> list[Record]:
    """Flights bookable on ``date`` (status available), in the table's order."""
    found = []
    for _, flight in db.rows("flights"):
        day = flight["dates"].get(date)
        if day is None or day.get("status") != "available":
            continue
        if (origin is not None and flight["origin"] != origin) or (
            destination is not None and flight["destination"] != destination
        ):
            continue
        if after is not None and flight["scheduled_departure_time_est"] < after:
            continue
        found.append(
            {
                "flight_number": flight["flight_number"],
                "origin": flight["origin"],
                "destination": flight["destination"],
                "status": "available",
                "scheduled_departure_time_est": flight["scheduled_departure_time_est"],
                "scheduled_arrival_time_est": flight["scheduled_arrival_time_est"],
                "date": None,
                "available_seats": copy.deepcopy(day["available_seats"]),
                "prices": copy.deepcopy(day["prices"]),
            }
        )
    return found


def _charge_for_update(db: Database, user_id: str, payment_id: str, amount: int) -> Record | None:
    """Charge a change of reservation to a payment method: certificates cannot pay for changes, a gift card must
    hold the amount (and is debited). The payment to record, or None for nothing to pay."""
    method = _user(db, user_id)["payment_methods"].get(payment_id)
    if method is None:
        raise missing("Payment method")
    if method["source"] == "certificate":
        raise refused("A certificate cannot pay for a change of reservation")
    if method["source"] == "gift_card":
        if method["amount"] < amount:
            raise refused("The gift card balance is not enough")
        db.edit("users", user_id)["payment_methods"][payment_id]["amount"] = method["amount"] - amount
    return {"payment_id": payment_id, "amount": amount} if amount != 0 else None


@lookup(
    "Get the details of a user, with their payment methods, saved passengers and reservation ids.", user_id=_USER_ID
)
def get_user_details(db: Database, user_id: str) -> Any:
    return _user(db, user_id)


@lookup("Get the details of a reservation.", reservation_id=_RESERVATION_ID)
def get_reservation_details(db: Database, reservation_id: str) -> Any:
    return _reservation(db, reservation_id)


@lookup("List every airport with its IATA code and city.")
def list_all_airports(db: Database) -> Any:
    return [{"iata": code, "city": city} for code, city in AIRPORTS]


@lookup(
    "Search direct flights between two airports on one date.",
    origin=string("The origin airport's IATA code, such as 'JFK'."),
    destination=string("The destination airport's IATA code, such as 'LAX'."),
    date=string("The date, 'YYYY-MM-DD'."),
)
def search_direct_flight(db: Database, origin: str, destination: str, date: str) -> Any:
    return _direct(db, date, origin, destination)


@lookup(
    "Search one-stop flights (pairs of connecting flights) between two airports on one date.",
    origin=string("The origin airport's IATA code, such as 'JFK'."),
    destination=string("The destination airport's IATA code, such as 'LAX'."),
    date=string("The date, 'YYYY-MM-DD'."),
)
def search_onestop_flight(db: Database, origin: str, destination: str, date: str) -> Any:
    pairs = []
    for first in _direct(db, date, origin, None):
        first["date"] = date
        # A first leg arriving after midnight ('+1') connects on the next day (τ² counts days within May 2024).
        second_date = f"2024-05-{int(date[-2:]) + 1}" if "+1" in first["scheduled_arrival_time_est"] else date
        for second in _direct(db, second_date, first["destination"], destination, first["scheduled_arrival_time_est"]):
            second["date"] = second_date
            pairs.append([first, second])
    return pairs


@lookup(
    "Get the status of a flight on a date.",
    flight_number=string("The flight number, such as 'HAT001'."),
    date=string("The date, 'YYYY-MM-DD'."),
)
def get_flight_status(db: Database, flight_number: str, date: str) -> Any:
    return _flight_day(db, flight_number, date)["status"]


@action(
    "Book a reservation. The payments must add up to the total price: each flight's cabin price per passenger, "
    f"${INSURANCE_FEE} per passenger for insurance, ${BAG_FEE} per non-free bag.",
    user_id=_USER_ID,
    origin=string("The origin airport's IATA code."),
    destination=string("The destination airport's IATA code."),
    flight_type=string("The trip type.", enum=("one_way", "round_trip")),
    cabin=string("The cabin class.", enum=CABINS),
    flights=array("Every flight segment of the reservation.", _FLIGHT),
    passengers=array("Every passenger.", _PASSENGER),
    payment_methods=array("How the reservation is paid.", _PAYMENT),
    total_baggages=integer("Total number of bags."),
    nonfree_baggages=integer("Number of bags that are paid for."),
    insurance=string("Whether travel insurance is bought.", enum=("yes", "no")),
)
def book_reservation(
    db: Database,
    user_id: str,
    origin: str,
    destination: str,
    flight_type: str,
    cabin: str,
    flights: list[dict[str, Any]],
    passengers: list[dict[str, Any]],
    payment_methods: list[dict[str, Any]],
    total_baggages: int,
    nonfree_baggages: int,
    insurance: str,
) -> Any:
    user = _user(db, user_id)
    reservation_id = next((r for r in NEW_RESERVATION_IDS if ("reservations", r) not in db), None)
    if reservation_id is None:
        raise refused("Too many reservations")
    segments: list[Record] = []
    total = 0
    for leg in flights:
        flight = _flight(db, leg["flight_number"])
        day = _flight_day(db, leg["flight_number"], leg["date"])
        if day.get("status") != "available":
            raise refused(f"Flight {leg['flight_number']} is not available on {leg['date']}")
        if day["available_seats"][cabin] < len(passengers):
            raise refused(f"Not enough seats on flight {leg['flight_number']}")
        price = day["prices"][cabin]
        segments.append(
            {
                "origin": flight["origin"],
                "destination": flight["destination"],
                "flight_number": leg["flight_number"],
                "date": leg["date"],
                "price": price,
            }
        )
        total += price * len(passengers)
    if insurance == "yes":
        total += INSURANCE_FEE * len(passengers)
    total += BAG_FEE * nonfree_baggages
    methods = user["payment_methods"]
    for payment in payment_methods:
        method = methods.get(payment["payment_id"])
        if method is None:
            raise missing(f"Payment method {payment['payment_id']}")
        if method["source"] in ("gift_card", "certificate") and method["amount"] < payment["amount"]:
            raise refused(f"Not enough balance in payment method {payment['payment_id']}")
    paid = sum(p["amount"] for p in payment_methods)
    if paid != total:
        raise refused(f"The payments do not add up: the total price is {total}, the payments {paid}")
    owner = db.edit("users", user_id)
    for payment in payment_methods:
        method = owner["payment_methods"][payment["payment_id"]]
        if method["source"] == "gift_card":
            method["amount"] -= payment["amount"]
        elif method["source"] == "certificate":
            del owner["payment_methods"][payment["payment_id"]]
    for leg in flights:
        db.edit("flights", leg["flight_number"])["dates"][leg["date"]]["available_seats"][cabin] -= len(passengers)
    reservation: Record = {
        "reservation_id": reservation_id,
        "user_id": user_id,
        "origin": origin,
        "destination": destination,
        "flight_type": flight_type,
        "cabin": cabin,
        "flights": segments,
        "passengers": copy.deepcopy(passengers),
        "payment_history": copy.deepcopy(payment_methods),
        "created_at": NOW,
        "total_baggages": total_baggages,
        "nonfree_baggages": nonfree_baggages,
        "insurance": insurance,
    }
    db.insert("reservations", reservation_id, reservation)
    owner["reservations"].append(reservation_id)
    return reservation


@action("Cancel a whole reservation: every payment is refunded to where it came from.", reservation_id=_RESERVATION_ID)
def cancel_reservation(db: Database, reservation_id: str) -> Any:
    _reservation(db, reservation_id)
    reservation = db.edit("reservations", reservation_id)
    refunds = [{"payment_id": p["payment_id"], "amount": -p["amount"]} for p in reservation["payment_history"]]
    reservation["payment_history"].extend(refunds)
    reservation["status"] = "cancelled"
    return reservation


@action(
    "Send a travel certificate (a voucher) of an amount to a user.",
    user_id=_USER_ID,
    amount=integer("The certificate's amount in dollars."),
)
def send_certificate(db: Database, user_id: str, amount: int) -> Any:
    methods = _user(db, user_id)["payment_methods"]
    for number in NEW_PAYMENT_NUMBERS:
        payment_id = f"certificate_{number}"
        if payment_id not in methods:
            db.edit("users", user_id)["payment_methods"][payment_id] = {
                "source": "certificate",
                "id": payment_id,
                "amount": amount,
            }
            return f"Certificate {payment_id} added to user {user_id} with amount {amount}."
    raise refused("Too many certificates")


@action(
    f"Update the bags of a reservation; each non-free bag added costs ${BAG_FEE}.",
    reservation_id=_RESERVATION_ID,
    total_baggages=integer("The new total number of bags."),
    nonfree_baggages=integer("The new number of paid bags."),
    payment_id=_PAYMENT_ID,
)
def update_reservation_baggages(
    db: Database, reservation_id: str, total_baggages: int, nonfree_baggages: int, payment_id: str
) -> Any:
    reservation = _reservation(db, reservation_id)
    _user(db, reservation["user_id"])
    price = BAG_FEE * max(0, nonfree_baggages - reservation["nonfree_baggages"])
    payment = _charge_for_update(db, reservation["user_id"], payment_id, price)
    mine = db.edit("reservations", reservation_id)
    if payment is not None:
        mine["payment_history"].append(payment)
    mine["total_baggages"] = total_baggages
    mine["nonfree_baggages"] = nonfree_baggages
    return mine


@action(
    "Change the flights (and cabin) of a reservation. List every segment of the new itinerary, the unchanged ones "
    "too; the price difference is charged to (or refunded to) the payment method.",
    reservation_id=_RESERVATION_ID,
    cabin=string("The cabin class of the reservation.", enum=CABINS),
    flights=array("Every flight segment of the whole new itinerary.", _FLIGHT),
    payment_id=_PAYMENT_ID,
)
def update_reservation_flights(
    db: Database, reservation_id: str, cabin: str, flights: list[dict[str, Any]], payment_id: str
) -> Any:
    reservation = _reservation(db, reservation_id)
    _user(db, reservation["user_id"])
    travellers = len(reservation["passengers"])
    segments: list[Record] = []
    total = 0
    for leg in flights:
        kept = next(
            (
                s
                for s in reservation["flights"]
                if s["flight_number"] == leg["flight_number"] and s["date"] == leg["date"]
                and cabin == reservation["cabin"]
            ),
            None,
        )  # fmt: skip
        if kept is not None:  # an unchanged segment keeps the price it was bought at
            total += kept["price"] * travellers
            segments.append(copy.deepcopy(kept))
            continue
        flight = _flight(db, leg["flight_number"])
        day = _flight_day(db, leg["flight_number"], leg["date"])
        if day.get("status") != "available":
            raise refused(f"Flight {leg['flight_number']} is not available on {leg['date']}")
        if day["available_seats"][cabin] < travellers:
            raise refused(f"Not enough seats on flight {leg['flight_number']}")
        segment = {
            "flight_number": leg["flight_number"],
            "date": leg["date"],
            "price": day["prices"][cabin],
            "origin": flight["origin"],
            "destination": flight["destination"],
        }
        total += segment["price"] * travellers
        segments.append(segment)
    total -= sum(s["price"] for s in reservation["flights"]) * travellers
    payment = _charge_for_update(db, reservation["user_id"], payment_id, total)
    mine = db.edit("reservations", reservation_id)
    if payment is not None:
        mine["payment_history"].append(payment)
    mine["flights"] = segments
    mine["cabin"] = cabin
    return mine


@action(
    "Replace the passengers of a reservation (the number of passengers cannot change).",
    reservation_id=_RESERVATION_ID,
    passengers=array("Every passenger of the reservation.", _PASSENGER),
)
def update_reservation_passengers(db: Database, reservation_id: str, passengers: list[dict[str, Any]]) -> Any:
    if len(passengers) != len(_reservation(db, reservation_id)["passengers"]):
        raise refused("The number of passengers does not match")
    mine = db.edit("reservations", reservation_id)
    mine["passengers"] = copy.deepcopy(passengers)
    return mine
