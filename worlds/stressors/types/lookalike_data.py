"""The look-alike functions: each a plausible neighbour of a real tool whose description, read carefully,
shows a different role. Definitions only; ``lookalike.py`` answers them.

``answer`` says how a call is answered:
- ``("ack", id_prefix, fields)``: an acknowledgement with a fresh id, the call's arguments echoed, ``fields`` added;
- ``("derive", real_tool, argument_names, transform)``: the real lookup is run with those arguments (read-only)
  and its result reshaped by the named transform of ``lookalike.TRANSFORMS``;
- ``("fixed", fields)``: the same payload every time (arguments echoed).
``example`` is (lookups to run first, arguments) for tests and demos.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple


class Decoy(NamedTuple):
    description: str
    parameters: dict[str, Any]
    answer: tuple[Any, ...]
    example: tuple[list[tuple[str, dict[str, Any]]], dict[str, Any]]


def _params(**props: tuple[str, str, bool]) -> dict[str, Any]:
    """name=(json type, description, required)."""
    return {
        "type": "object",
        "properties": {n: {"type": t, "description": d} for n, (t, d, _) in props.items()},
        "required": [n for n, (_, _, req) in props.items() if req],
    }


_DEVICE = ("string", "Device id as returned by find_devices, e.g. 'bedroom_lamp'.", True)
_MEDIA_DEVICE = ("string", "Speaker or TV id from list_media_devices, e.g. 'kitchen_speaker'.", True)
_CITY = ("string", "City id as returned by find_cities or get_user_location, e.g. 'london'.", True)
_SYMBOL = ("string", "Ticker symbol as returned by search_stocks, e.g. 'AAPL'.", True)
_CONTACT = ("string", "Contact id from search_contacts, e.g. 'priya_shah'.", True)
_QUERY = ("string", "Words to search for.", True)
_CITY_SETUP = [("find_cities", {"query": "london"})]

DECOYS: Mapping[str, Decoy] = MappingProxyType(
    {
        # home
        "schedule_power": Decoy(
            "Schedule a light, TV, speaker or plug to switch on or off at the next full hour (does not change it now).",
            _params(device_id=_DEVICE, on=("boolean", "True for on.", True)),
            ("ack", "schedule", {"runs_at": "next full hour", "status": "scheduled"}),
            ([("find_devices", {"type": "light"})], {"device_id": "bedroom_lamp", "on": True}),
        ),
        "set_default_brightness": Decoy(
            "Set the brightness in percent a light comes on at the next time it is switched on.",
            _params(device_id=_DEVICE, level=("integer", "Brightness, percent.", True)),
            ("ack", "pref", {"applies": "next power on"}),
            ([("find_devices", {"type": "light"})], {"device_id": "bedroom_lamp", "level": 40}),
        ),
        "preview_scene": Decoy(
            "Show the device changes a saved scene would make, without applying them.",
            _params(scene_id=("string", "Scene id from list_scenes.", True)),
            ("derive", "list_scenes", (), "scene_preview"),
            ([], {"scene_id": "movie_night"}),
        ),
        "discover_devices": Decoy(
            "Scan the home network for new devices that are not yet set up; returns pairing candidates.",
            _params(room=("string", "Room id from list_rooms, e.g. 'kitchen'.", False)),
            ("fixed", {"candidates": [], "note": "No unpaired devices found."}),
            ([], {}),
        ),
        "set_eco_temperature": Decoy(
            "Set the eco (away) temperature in degrees Celsius a thermostat holds while nobody is home.",
            _params(device_id=_DEVICE, celsius=("integer", "Eco temperature, degrees Celsius.", True)),
            ("ack", "eco", {"applies": "away mode"}),
            ([("find_devices", {"type": "thermostat"})], {"device_id": "living_thermostat", "celsius": 16}),
        ),
        # information
        "get_climate_normals": Decoy(
            "Long-term climate averages for a city this time of year (1991-2020 normals), not a forecast.",
            _params(city_id=_CITY, days=("integer", "Number of days to average over (default 3).", False)),
            ("derive", "get_current_weather", ("city_id",), "climate_normals"),
            (_CITY_SETUP, {"city_id": "london"}),
        ),
        "get_historical_weather": Decoy(
            "The weather observed in a city on this date one year ago, from the station archive.",
            _params(city_id=_CITY),
            ("derive", "get_current_weather", ("city_id",), "historical_weather"),
            (_CITY_SETUP, {"city_id": "london"}),
        ),
        "get_closing_price": Decoy(
            "A stock's official closing price of the previous trading session.",
            _params(symbol=_SYMBOL),
            ("derive", "get_stock_history", ("symbol",), "previous_close"),
            ([("search_stocks", {"query": "apple"})], {"symbol": "AAPL"}),
        ),
        "follow_stock_news": Decoy(
            "Subscribe the user to news notifications about a company's stock (does not track its price).",
            _params(symbol=_SYMBOL),
            ("ack", "sub", {"following": True}),
            ([("search_stocks", {"query": "apple"})], {"symbol": "AAPL"}),
        ),
        "search_news_archive": Decoy(
            "Search the news archive: articles older than 30 days only, by words in the title.",
            _params(query=_QUERY),
            ("fixed", {"results": [], "note": "The archive holds articles older than 30 days."}),
            ([], {"query": "election"}),
        ),
        # media
        "queue_media": Decoy(
            "Add a song, album, podcast or movie to the end of a device's up-next queue, without starting playback.",
            _params(device_id=_MEDIA_DEVICE, item_id=("string", "Media item id from search_media.", True)),
            ("ack", "queue", {"queued": True, "playing_now": False}),
            ([("search_media", {"query": "night bus"})], {"device_id": "kitchen_speaker", "item_id": "song_night_bus"}),
        ),
        "search_media_store": Decoy(
            "Search the media store for items to buy; returns store listing ids and prices.",
            _params(query=("string", "Words of the title or creator.", True)),
            ("derive", "search_media", ("query",), "store_listings"),
            ([], {"query": "night bus"}),
        ),
        "add_to_library": Decoy(
            "Save a song, album or podcast to the user's library ('liked' items), outside any playlist.",
            _params(item_id=("string", "Media item id from search_media.", True)),
            ("ack", "lib", {"saved_to": "Liked items"}),
            ([("search_media", {"query": "night bus"})], {"item_id": "song_night_bus"}),
        ),
        "set_volume_limit": Decoy(
            "Set the maximum volume (percent) a device may ever be turned up to; does not change the current volume.",
            _params(device_id=_MEDIA_DEVICE, level=("integer", "Volume cap, percent.", True)),
            ("ack", "cap", {"current_volume_changed": False}),
            ([], {"device_id": "kitchen_speaker", "level": 60}),
        ),
        # shopping
        "search_inventory": Decoy(
            "Search the warehouse inventory by words in a product's name: stock-keeping units, bins and stock on hand.",
            _params(query=_QUERY),
            ("derive", "search_products", ("query",), "inventory"),
            ([], {"query": "olive oil"}),
        ),
        "add_to_wishlist": Decoy(
            "Save a product to the user's wishlist to buy later (the cart is not changed).",
            _params(product_id=("string", "Product id from search_products.", True)),
            ("ack", "wish", {"in_cart": False}),
            ([("search_products", {"query": "olive oil"})], {"product_id": "prod_olive_oil"}),
        ),
        "check_promo_code": Decoy(
            "Check that a promo code is well formed; it is not applied to the cart.",
            _params(code=("string", "The promo code.", True)),
            ("fixed", {"well_formed": True, "applied": False}),
            ([], {"code": "SPRING10"}),
        ),
        "request_quote": Decoy(
            "Ask a sales adviser for a business quote on the cart's contents; nothing is bought or charged.",
            _params(payment_method_id=("string", "Payment method id for the quote's terms.", False)),
            ("ack", "quote", {"status": "requested", "reply_within": "2 working days", "charged": False}),
            ([], {}),
        ),
        "request_exchange": Decoy(
            "Ask to exchange an item of an order for another size or colour; no refund is made.",
            _params(
                order_id=("string", "Order id from list_orders.", True),
                product_id=("string", "Product id of an item in that order.", True),
            ),
            ("ack", "exchange", {"status": "pending_review", "refund": 0.0}),
            ([("list_orders", {})], {"order_id": "order-7001", "product_id": "prod_kindle"}),
        ),
        # food
        "join_waitlist": Decoy(
            "Put the user on a restaurant's waiting list for a date; they hear if a table frees up (no booking).",
            _params(
                restaurant_id=("string", "Restaurant id from search_restaurants.", True),
                date=("string", "Date, YYYY-MM-DD.", True),
                party_size=("integer", "Number of people.", True),
            ),
            ("ack", "waitlist", {"position": 3, "booked": False}),
            (
                [("search_restaurants", {"cuisine": "italian"})],
                {"restaurant_id": "luccas_trattoria", "date": "2026-03-20", "party_size": 2},
            ),
        ),
        "get_menu_highlights": Decoy(
            "A restaurant's three most popular dishes with prices, for recommendations (not orderable ids).",
            _params(restaurant_id=("string", "Restaurant id from search_restaurants.", True)),
            ("derive", "get_restaurant_menu", ("restaurant_id",), "menu_highlights"),
            ([("search_restaurants", {"cuisine": "italian"})], {"restaurant_id": "luccas_trattoria"}),
        ),
        # communication
        "send_email_draft": Decoy(
            "Save an email draft to a contact in the user's outbox for later review; it is not sent.",
            _params(contact_id=_CONTACT, text=("string", "The draft text.", True)),
            ("ack", "draft", {"saved": True, "sent": False}),
            ([("search_contacts", {"query": "priya"})], {"contact_id": "priya_shah", "text": "Hi"}),
        ),
        "schedule_call": Decoy(
            "Schedule a phone call to a contact for later; the phone rings the user at the scheduled time.",
            _params(contact_id=_CONTACT),
            ("ack", "scheduled_call", {"status": "scheduled", "dialled_now": False}),
            ([("search_contacts", {"query": "priya"})], {"contact_id": "priya_shah"}),
        ),
        "search_business_directory": Decoy(
            "Search the public business directory (shops, services) by name; not the user's contacts.",
            _params(query=_QUERY),
            ("fixed", {"listings": [], "note": "No business listings match."}),
            ([], {"query": "priya"}),
        ),
        "get_voicemail": Decoy(
            "The voicemail box: messages callers left after missed calls, newest first.",
            _params(contact_id=("string", "Contact id from search_contacts; omit for everyone.", False)),
            ("derive", "get_call_history", ("contact_id",), "voicemail"),
            ([], {}),
        ),
        # time
        "create_calendar_event": Decoy(
            "Add an event to the user's calendar (shown in the agenda, no notification is raised).",
            _params(
                title=("string", "Event title.", True),
                start=("string", "Local date and time, YYYY-MM-DDTHH:MM.", True),
            ),
            ("ack", "event", {"notifies": False}),
            ([], {"title": "Call Priya", "start": "2026-03-15T18:00"}),
        ),
        "start_stopwatch": Decoy(
            "Start a stopwatch that counts up from zero until stopped.",
            _params(label=("string", "Name, e.g. 'run'.", False)),
            ("ack", "stopwatch", {"elapsed_seconds": 0, "running": True}),
            ([], {"label": "pasta"}),
        ),
        "get_utc_time": Decoy(
            "The current date and time in UTC (Coordinated Universal Time), not the user's local time.",
            _params(),
            ("derive", "get_current_time", (), "utc_time"),
            ([], {}),
        ),
    }
)
