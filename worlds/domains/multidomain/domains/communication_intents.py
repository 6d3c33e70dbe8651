"""Communication intent primitives (see ``intents.py`` for the contract). Most are about one contact, so a
later turn can say "call them"; questions answer from the real results."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from sim.core import GoldCall
from worlds.domains.multidomain.intents import (
    Answer,
    Focus,
    Intent,
    Primitive,
    core,
    lookup_if_unknown,
    pick_focus,
    support,
)
from worlds.domains.multidomain.state import WorldState

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
    return Intent(
        primitive="communication.send_text",
        explicit=f'Text {name}: "{text}"',
        coreferential=f'Send them a text saying "{text}"',
        paraphrases=(f'Send a message to {name} that says "{text}"',),
        calls=(*_find(state, contact_id), core("send_message", contact_id=contact_id, text=text)),
        focus=_focus(state, contact_id),
    )


def call_contact(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    if _active_call(state) is not None:
        return None
    contact_id = pick_focus(state, focus, "contact", _with_phone(state), rng)
    name = _row(state, contact_id)["name"]
    return Intent(
        primitive="communication.call_contact",
        explicit=f"Call {name}.",
        coreferential="Give them a ring.",
        paraphrases=(f"Phone {name} for me.", f"Can you ring {name}?"),
        calls=(*_find(state, contact_id), core("place_call", contact_id=contact_id)),
        focus=_focus(state, contact_id),
    )


def hang_up(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    active = _active_call(state)
    if active is None:
        return None
    call_id, call = active
    name = _row(state, call["contact_id"])["name"]
    return Intent(
        primitive="communication.hang_up",
        explicit=f"Hang up the call with {name}.",
        coreferential="End the call with them.",
        paraphrases=(f"End my call to {name}.",),
        calls=(
            *lookup_if_unknown(state, "call", call_id, support("get_call_history")),
            core("end_call", call_id=call_id),
        ),
        focus=_focus(state, call["contact_id"]),
    )


def update_phone(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    contact_id = pick_focus(state, focus, "contact", [key for key, _ in state.rows("contacts")], rng)
    name, phone = _row(state, contact_id)["name"], _free_phone(state, rng)
    return Intent(
        primitive="communication.update_phone",
        explicit=f"{name} has a new number: {phone}. Update the contact.",
        coreferential=f"Their number changed to {phone}; update it.",
        paraphrases=(f"Change {name}'s phone number to {phone}.",),
        calls=(*_find(state, contact_id), core("update_contact", contact_id=contact_id, phone=phone)),
        focus=_focus(state, contact_id),
    )


def add_new_contact(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    names = {row["name"] for _, row in state.rows("contacts")}
    fresh = [(n, r) for n, r in NEW_CONTACTS if n not in names]
    if not fresh:
        return None
    name, relationship = rng.choice(fresh)
    phone = _free_phone(state, rng)
    return Intent(
        primitive="communication.add_new_contact",
        explicit=f"Save {name} as a new contact, number {phone}; they're a {relationship}.",
        paraphrases=(f"Add a contact: {name}, {phone}, {relationship}.",),
        calls=(GoldCall(name="add_contact", arguments={"name": name, "phone": phone, "relationship": relationship}),),
    )


def set_favorite(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    contact_id = pick_focus(state, focus, "contact", [key for key, _ in state.rows("contacts")], rng)
    name, favorite = _row(state, contact_id)["name"], not _row(state, contact_id)["favorite"]
    verb = "Add" if favorite else "Remove"
    where = "to" if favorite else "from"
    return Intent(
        primitive="communication.set_favorite",
        explicit=f"{verb} {name} {where} my favorites.",
        coreferential=f"{verb} them {where} my favorite contacts.",
        paraphrases=(f"{'Make' if favorite else 'Stop making'} {name} a favorite contact.",),
        calls=(*_find(state, contact_id), core("set_contact_favorite", contact_id=contact_id, favorite=favorite)),
        focus=_focus(state, contact_id),
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
    return Intent(
        primitive="communication.mark_read",
        explicit=f"Mark my messages from {name} as read.",
        coreferential="Mark their messages as read.",
        paraphrases=(f"Clear the unread messages from {name}.",),
        calls=(*find, core("mark_conversation_read", contact_id=contact_id)),
        alternatives=((*find, *listing, *one_by_one),),
        focus=_focus(state, contact_id),
    )


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
    return Intent(
        primitive="communication.delete_last_sent",
        explicit=f"Delete the last message I sent to {name}.",
        coreferential="Delete the last text I sent them.",
        paraphrases=(f"Remove my most recent text to {name}.",),
        calls=(
            *_find(state, contact_id),
            *lookup_if_unknown(state, "message", message_id, lookup),
            core("delete_message", message_id=message_id),
        ),
        focus=_focus(state, contact_id),
    )


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
    return Intent(
        primitive="communication.ask_last_message",
        explicit=f"What was the last message {name} sent me?",
        coreferential="What did they last text me?",
        paraphrases=(f"Read me {name}'s latest text.",),
        calls=(*_find(state, contact_id), core("list_conversation", contact_id=contact_id)),
        focus=_focus(state, contact_id),
        answer=_last_message_answer,
    )


def _missed_answer(results: Sequence[Any]) -> str:
    calls = results[-1]["calls"]
    if not calls:
        return "You have no missed calls."
    listed = "; ".join(f"{c['contact']} on {c['started_at'][:10]} at {c['started_at'][11:16]}" for c in calls)
    return f"You missed {len(calls)} calls: {listed}."


def ask_missed_calls(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    return Intent(
        primitive="communication.ask_missed_calls",
        explicit="Who have I missed calls from?",
        paraphrases=("Did I miss any calls? From whom?", "List my missed calls."),
        calls=(core("get_call_history", missed_only=True),),
        answer=_missed_answer,
    )


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
    return Intent(
        primitive="communication.ask_contact_detail",
        explicit=f"What's {name}'s {label}?",
        coreferential=f"What's their {label}?",
        paraphrases=(f"Can you look up the {label} for {name}?",),
        calls=(*_find(state, contact_id), core("get_contact_details", contact_id=contact_id)),
        focus=_focus(state, contact_id),
        answer=_detail_answer(field),
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
