"""Communication intent primitives (see ``intents.py`` for the contract). Most are about one contact, so a
later turn can say "call them"; questions answer from the real results."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from sim.core import GoldCall
from worlds.domains.multidomain.gold_calls import core, lookup_if_unknown, support
from worlds.domains.multidomain.intents import Answer, Focus, Intent, Primitive, pick_focus
from worlds.domains.multidomain.state import WorldState
from worlds.domains.multidomain.wording import EntityIntents, said

TEXTS = (
    "Running about ten minutes late, sorry!",
    "Are you free for a call this afternoon?",
    "Thanks for yesterday, it was great.",
    "Can you send me the address again?",
    "Happy Saturday! Any plans for tonight?",
)
NEW_CONTACTS = (
    ("Grace Holloway", "friend"),
    ("Samir Haddad", "coworker"),
    ("Olivia Brennan", "neighbour"),
    ("Kenji Watanabe", "friend"),
    ("Hannah Price", "service"),
)


def _row(state: WorldState, key: str) -> Any:
    return state.row("contacts", key)


def _find(state: WorldState, contact_id: str) -> list[GoldCall]:
    name = _row(state, contact_id)["name"]
    return lookup_if_unknown(state, "contact", contact_id, support("search_contacts", query=name))


def _focus(state: WorldState, contact_id: str) -> Focus:
    return Focus(key=f"contact:{contact_id}", name=str(_row(state, contact_id)["name"]), pronoun="them")


_about = EntityIntents("communication", _find, _focus)


def _with_phone(state: WorldState) -> list[str]:
    return [key for key, row in state.rows("contacts") if "phone" in row]


def _active_call(state: WorldState) -> tuple[str, Any] | None:
    return next(((key, row) for key, row in state.rows("calls") if row["status"] == "active"), None)


def _free_phone(state: WorldState, rng: random.Random) -> str:
    taken = {row.get("phone", "").replace(" ", "") for _, row in state.rows("contacts")}
    free = [f"+44 7700 9002{n:02d}" for n in range(10, 60)]
    return rng.choice([p for p in free if p.replace(" ", "") not in taken])


def send_text(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    contact_id = pick_focus(state, focus, "contact", _with_phone(state), rng)
    name, text = _row(state, contact_id)["name"], rng.choice(TEXTS)
    act = core("send_message", contact_id=contact_id, text=text)
    return _about(state, contact_id, "send_text", act, name=name, text=text)


def call_contact(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    if _active_call(state) is not None:
        return None
    contact_id = pick_focus(state, focus, "contact", _with_phone(state), rng)
    name = _row(state, contact_id)["name"]
    return _about(state, contact_id, "call_contact", core("place_call", contact_id=contact_id), name=name)


def hang_up(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    active = _active_call(state)
    if active is None:
        return None
    call_id, call = active
    name = _row(state, call["contact_id"])["name"]
    lookup = lookup_if_unknown(state, "call", call_id, support("get_call_history"))
    calls = (*lookup, core("end_call", call_id=call_id))
    return said("communication.hang_up", calls, _focus(state, call["contact_id"]), name=name)


def update_phone(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    contact_id = pick_focus(state, focus, "contact", [key for key, _ in state.rows("contacts")], rng)
    name, phone = _row(state, contact_id)["name"], _free_phone(state, rng)
    act = core("update_contact", contact_id=contact_id, phone=phone)
    return _about(state, contact_id, "update_phone", act, name=name, phone=phone)


def add_new_contact(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    names = {row["name"] for _, row in state.rows("contacts")}
    fresh = [(n, r) for n, r in NEW_CONTACTS if n not in names]
    if not fresh:
        return None
    name, relationship = rng.choice(fresh)
    phone = _free_phone(state, rng)
    add = GoldCall(name="add_contact", arguments={"name": name, "phone": phone, "relationship": relationship})
    return said("communication.add_new_contact", (add,), name=name, phone=phone, relationship=relationship)


def set_favorite(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    contact_id = pick_focus(state, focus, "contact", [key for key, _ in state.rows("contacts")], rng)
    name, favorite = _row(state, contact_id)["name"], not _row(state, contact_id)["favorite"]
    verb = "Add" if favorite else "Remove"
    where = "to" if favorite else "from"
    change = core("set_contact_favorite", contact_id=contact_id, favorite=favorite)
    return _about(
        state,
        contact_id,
        "set_favorite",
        change,
        verb=verb,
        name=name,
        where=where,
        making="Make" if favorite else "Stop making",
    )


def _unread(state: WorldState, contact_id: str) -> list[str]:
    return [k for k, m in state.rows("messages") if m["contact_id"] == contact_id and not m["read"]]


def mark_read(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    """One bulk call, or the conversation read message by message: the same read flags either way."""
    senders = sorted({m["contact_id"] for _, m in state.rows("messages") if not m["read"]})
    if not senders:
        return None
    contact_id = pick_focus(state, focus, "contact", senders, rng)
    name = _row(state, contact_id)["name"]
    find = _find(state, contact_id)
    unread = _unread(state, contact_id)
    listing = (
        []
        if all(state.is_known("message", k) for k in unread)
        else [support("list_conversation", contact_id=contact_id)]
    )
    one_by_one = [core("read_message", message_id=k) for k in unread]
    bulk = (*find, core("mark_conversation_read", contact_id=contact_id))
    paths = ((*find, *listing, *one_by_one),)
    return said("communication.mark_read", bulk, _focus(state, contact_id), alternatives=paths, name=name)


def delete_last_sent(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    sent: dict[str, tuple[str, str]] = {}
    for key, m in state.rows("messages"):
        if m["direction"] == "outgoing" and (m["contact_id"] not in sent or m["sent_at"] >= sent[m["contact_id"]][1]):
            sent[m["contact_id"]] = (key, m["sent_at"])
    if not sent:
        return None
    contact_id = pick_focus(state, focus, "contact", sorted(sent), rng)
    message_id, name = sent[contact_id][0], _row(state, contact_id)["name"]
    lookup = support("list_conversation", contact_id=contact_id)
    listing = lookup_if_unknown(state, "message", message_id, lookup)
    act = core("delete_message", message_id=message_id)
    return _about(state, contact_id, "delete_last_sent", *listing, act, name=name)


def _last_message_answer(results: Sequence[Any]) -> str:
    conversation = results[-1]
    incoming = [m for m in conversation["messages"] if m["direction"] == "incoming"]
    last = incoming[-1]
    return (
        f'{conversation["contact"]} last wrote on {last["sent_at"][:10]} at {last["sent_at"][11:16]}: "{last["text"]}"'
    )


def ask_last_message(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    senders = sorted({m["contact_id"] for _, m in state.rows("messages") if m["direction"] == "incoming"})
    if not senders:
        return None
    contact_id = pick_focus(state, focus, "contact", senders, rng)
    name = _row(state, contact_id)["name"]
    listing = core("list_conversation", contact_id=contact_id)
    return _about(state, contact_id, "ask_last_message", listing, answer=_last_message_answer, name=name)


def _missed_answer(results: Sequence[Any]) -> str:
    calls = results[-1]["calls"]
    if not calls:
        return "You have no missed calls."
    listed = "; ".join(f"{c['contact']} on {c['started_at'][:10]} at {c['started_at'][11:16]}" for c in calls)
    return f"You missed {len(calls)} calls: {listed}."


def ask_missed_calls(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    history = core("get_call_history", missed_only=True)
    return said("communication.ask_missed_calls", (history,), answer=_missed_answer)


def _detail_answer(field: str) -> Answer:
    def answer(results: Sequence[Any]) -> str:
        contact = results[-1]
        label = "phone number" if field == "phone" else "email address"
        return f"{contact['name']}'s {label} is {contact[field]}."

    return answer


def ask_contact_detail(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    field = rng.choice(("phone", "email"))
    having = [key for key, row in state.rows("contacts") if field in row]
    contact_id = pick_focus(state, focus, "contact", having, rng)
    name = _row(state, contact_id)["name"]
    label = "phone number" if field == "phone" else "email address"
    details = core("get_contact_details", contact_id=contact_id)
    return _about(
        state, contact_id, "ask_contact_detail", details, answer=_detail_answer(field), name=name, label=label
    )


PRIMITIVES: tuple[Primitive, ...] = (
    send_text,
    call_contact,
    hang_up,
    update_phone,
    add_new_contact,
    set_favorite,
    mark_read,
    delete_last_sent,
    ask_last_message,
    ask_missed_calls,
    ask_contact_detail,
)
