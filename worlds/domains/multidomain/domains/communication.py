"""Communication: contacts, phone calls and text messages. Tables: ``contacts`` (other domains may read it:
reminders and orders can name a contact), ``calls``, ``messages`` (data/communication.json). Every call or
message goes to a contact id from search_contacts, as a phone app dials only what is in the address book."""

from __future__ import annotations

import re
from typing import Any

from worlds.common.errors import ToolError
from worlds.common.tables import Row
from worlds.common.toolbook import action, boolean, lookup, optional, string
from worlds.domains.multidomain.state import WorldState

DOMAIN = "communication"
TABLES = ("contacts", "calls", "messages")
POLICY = """Communication: contact ids come from search_contacts (or add_contact); calls and messages need a
contact id, never a raw number. Only one call can be active at a time: end it (end_call) before placing another.
Message ids come from list_conversation or list_unread_messages. Deleting a message cannot be undone: do it
only when the user asks."""

RELATIONSHIPS = ("family", "friend", "coworker", "neighbour", "service", "landlord", "other")
SEARCH = "search_contacts"
MESSAGE_LOOKUPS = "list_conversation or list_unread_messages"

CONTACT_ID = string("Contact id from search_contacts, e.g. 'priya_shah'.")
MESSAGE_ID = string("Message id from list_conversation or list_unread_messages.")
PHONE = string("Phone number, e.g. '+44 7700 900123'.", pattern=r"^\+?[0-9][0-9 ]{6,19}$")
EMAIL = string("Email address.", pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def _digits(phone: str) -> str:
    return re.sub(r"[^0-9]", "", phone)


def _contact(state: WorldState, contact_id: str) -> Row:
    return state.require("contacts", contact_id, "contact", SEARCH)


def _contact_view(key: str, row: Row) -> dict[str, Any]:
    return {"contact_id": key, **row}


def _name(state: WorldState, contact_id: str) -> str:
    row = state.get("contacts", contact_id)
    return str(row["name"]) if row is not None else contact_id


def _check_phone(state: WorldState, phone: str, skip: str | None = None) -> None:
    """One contact per number: a duplicate would make 'call the plumber' ambiguous."""
    for key, row in state.rows("contacts"):
        if key != skip and "phone" in row and _digits(row["phone"]) == _digits(phone):
            raise ToolError("failed", "duplicate_phone", f"{phone} already belongs to {row['name']} ({key}).")


@lookup(
    "Search contacts by words of the name, a phone number or an email. Returns contact ids; call this first "
    "for anything about a person.",
    query=string("Name words, number or email, e.g. 'priya'."),
)
def search_contacts(state: WorldState, query: str) -> dict[str, Any]:
    words = query.lower().split()
    if not words:
        raise ToolError("invalid_arguments", "empty_query", "Give a name, number or email to search for.")
    digits = _digits(query).lstrip("0")  # a local '07700 ...' matches the stored '+44 7700 ...'
    found = [
        {"contact_id": key, "name": row["name"], "phone": row.get("phone"), "relationship": row["relationship"]}
        for key, row in state.rows("contacts")
        if all(w in f"{row['name']} {row.get('email', '')}".lower() for w in words)
        or (len(digits) >= 6 and digits in _digits(row.get("phone", "")))
    ]
    state.reveal("contact", *(f["contact_id"] for f in found))
    return {"contacts": found}


@lookup("A contact's full details: phone, email, relationship, favorite.", requires=(SEARCH,), contact_id=CONTACT_ID)
def get_contact_details(state: WorldState, contact_id: str) -> dict[str, Any]:
    return _contact_view(contact_id, _contact(state, contact_id))


@action(
    "Add a new contact; needs a phone number or an email. Returns the new contact id.",
    name=string("Full name."),
    phone=optional(PHONE),
    email=optional(EMAIL),
    relationship=optional(string("How the user knows them.", enum=RELATIONSHIPS)),
)
def add_contact(
    state: WorldState, name: str, phone: str | None = None, email: str | None = None, relationship: str = "other"
) -> dict[str, Any]:
    name = name.strip()
    if not name:
        raise ToolError("invalid_arguments", "empty_name", "Give the contact's name.")
    if phone is None and email is None:
        raise ToolError("invalid_arguments", "no_details", "Give a phone number or an email for the new contact.")
    if phone is not None:
        _check_phone(state, phone)
    row: dict[str, Any] = {"name": name, "relationship": relationship, "favorite": False}
    if phone is not None:
        row["phone"] = phone
    if email is not None:
        row["email"] = email
    contact_id = state.new_id("contact")
    state.put("contacts", contact_id, row)
    state.reveal("contact", contact_id)
    return _contact_view(contact_id, row)


@action(
    "Change a contact's name, phone, email or relationship (give at least one).",
    requires=(SEARCH,),
    contact_id=CONTACT_ID,
    name=optional(string("New full name.")),
    phone=optional(PHONE),
    email=optional(EMAIL),
    relationship=optional(string("How the user knows them.", enum=RELATIONSHIPS)),
)
def update_contact(
    state: WorldState,
    contact_id: str,
    name: str | None = None,
    phone: str | None = None,
    email: str | None = None,
    relationship: str | None = None,
) -> dict[str, Any]:
    _contact(state, contact_id)
    changes = {
        k: v for k, v in {"name": name, "phone": phone, "email": email, "relationship": relationship}.items() if v
    }
    if not changes:
        raise ToolError("invalid_arguments", "no_changes", "Give at least one of name, phone, email, relationship.")
    if phone is not None:
        _check_phone(state, phone, skip=contact_id)
    return _contact_view(contact_id, state.update("contacts", contact_id, **changes))


@action(
    "Mark or unmark a contact as a favorite.",
    requires=(SEARCH,),
    contact_id=CONTACT_ID,
    favorite=boolean("True to make them a favorite."),
)
def set_contact_favorite(state: WorldState, contact_id: str, favorite: bool) -> dict[str, Any]:
    _contact(state, contact_id)
    return _contact_view(contact_id, state.update("contacts", contact_id, favorite=favorite))


def _call_view(state: WorldState, key: str, row: Row) -> dict[str, Any]:
    return {"call_id": key, "contact": _name(state, row["contact_id"]), **row}


@action(
    "Phone a contact. The contact needs a phone number, and no other call may be active. Returns the call id.",
    requires=(SEARCH,),
    contact_id=CONTACT_ID,
)
def place_call(state: WorldState, contact_id: str) -> dict[str, Any]:
    row = _contact(state, contact_id)
    if "phone" not in row:
        raise ToolError(
            "failed", "no_phone", f"{row['name']} has no phone number; add one with update_contact or send an email."
        )
    active = next((key for key, call in state.rows("calls") if call["status"] == "active"), None)
    if active is not None:
        raise ToolError("failed", "call_active", f"Call {active} is still active; end it with end_call first.")
    call_id = state.new_id("call")
    call = {"contact_id": contact_id, "direction": "outgoing", "status": "active", "started_at": state.now}
    state.put("calls", call_id, call)
    state.reveal("call", call_id)
    return _call_view(state, call_id, call)


@action(
    "Hang up an active call.", requires=("place_call",), call_id=string("Call id from place_call or get_call_history.")
)
def end_call(state: WorldState, call_id: str) -> dict[str, Any]:
    row = state.require("calls", call_id, "call", "get_call_history")
    if row["status"] != "active":
        raise ToolError("failed", "call_not_active", f"Call {call_id} is not active (it is {row['status']}).")
    return _call_view(state, call_id, state.update("calls", call_id, status="completed", ended_at=state.now))


@lookup(
    "Recent calls, newest first, optionally for one contact or only missed ones.",
    contact_id=optional(string("Contact id from search_contacts; omit for everyone.")),
    missed_only=optional(boolean("True for missed incoming calls only.")),
)
def get_call_history(state: WorldState, contact_id: str | None = None, missed_only: bool = False) -> dict[str, Any]:
    if contact_id is not None:
        _contact(state, contact_id)
    found = [
        _call_view(state, key, row)
        for key, row in state.rows("calls")
        if (contact_id is None or row["contact_id"] == contact_id) and (not missed_only or row["status"] == "missed")
    ]
    found.sort(key=lambda c: str(c["started_at"]), reverse=True)
    state.reveal("call", *(c["call_id"] for c in found))
    state.reveal("contact", *(c["contact_id"] for c in found))
    return {"calls": found}


def _message_view(state: WorldState, key: str, row: Row) -> dict[str, Any]:
    return {"message_id": key, "contact": _name(state, row["contact_id"]), **row}


@action(
    "Send a text message to a contact with a phone number.",
    requires=(SEARCH,),
    contact_id=CONTACT_ID,
    text=string("The message text."),
)
def send_message(state: WorldState, contact_id: str, text: str) -> dict[str, Any]:
    row = _contact(state, contact_id)
    if "phone" not in row:
        raise ToolError(
            "failed", "no_phone", f"{row['name']} has no phone number to text; add one with update_contact."
        )
    if not text.strip() or len(text) > 1000:
        raise ToolError("invalid_arguments", "bad_text", "A message needs 1 to 1000 characters of text.")
    message_id = state.new_id("msg")
    message = {"contact_id": contact_id, "direction": "outgoing", "text": text, "sent_at": state.now, "read": True}
    state.put("messages", message_id, message)
    state.reveal("message", message_id)
    return _message_view(state, message_id, message)


@lookup(
    "The text conversation with a contact, oldest first, with message ids and read flags.",
    requires=(SEARCH,),
    contact_id=CONTACT_ID,
)
def list_conversation(state: WorldState, contact_id: str) -> dict[str, Any]:
    row = _contact(state, contact_id)
    found = [_message_view(state, k, m) for k, m in state.rows("messages") if m["contact_id"] == contact_id]
    found.sort(key=lambda m: str(m["sent_at"]))
    state.reveal("message", *(m["message_id"] for m in found))
    return {"contact_id": contact_id, "contact": row["name"], "messages": found}


@lookup("Every unread incoming message, oldest first, with message and contact ids.")
def list_unread_messages(state: WorldState) -> dict[str, Any]:
    found = [
        _message_view(state, k, m) for k, m in state.rows("messages") if m["direction"] == "incoming" and not m["read"]
    ]
    found.sort(key=lambda m: str(m["sent_at"]))
    state.reveal("message", *(m["message_id"] for m in found))
    state.reveal("contact", *(m["contact_id"] for m in found))
    return {"messages": found}


@action("Open a message: returns it and marks it read.", requires=("list_conversation",), message_id=MESSAGE_ID)
def read_message(state: WorldState, message_id: str) -> dict[str, Any]:
    state.require("messages", message_id, "message", MESSAGE_LOOKUPS)
    return _message_view(state, message_id, state.update("messages", message_id, read=True))


@action(
    "Mark every message from a contact as read; returns how many changed.",
    requires=(SEARCH,),
    contact_id=CONTACT_ID,
)
def mark_conversation_read(state: WorldState, contact_id: str) -> dict[str, Any]:
    _contact(state, contact_id)
    unread = [k for k, m in state.rows("messages") if m["contact_id"] == contact_id and not m["read"]]
    for key in unread:
        state.update("messages", key, read=True)
    return {"contact_id": contact_id, "marked_read": len(unread)}


@action("Delete a message for good (only when the user asks).", requires=("list_conversation",), message_id=MESSAGE_ID)
def delete_message(state: WorldState, message_id: str) -> dict[str, Any]:
    row = state.require("messages", message_id, "message", MESSAGE_LOOKUPS)
    state.delete("messages", message_id)
    return {"deleted": message_id, "contact": _name(state, row["contact_id"])}
