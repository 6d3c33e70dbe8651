"""The communication domain of the multi-domain world: every tool's success path and a failure path that
changes nothing, the contact-lookup prerequisite, and the intent primitives executed on live worlds."""

from __future__ import annotations

import random
from typing import Any

import pytest

from sim.core import ToolCall, ToolResult
from tests.support.intent_checks import check_intent
from worlds.domains.multidomain import MultiDomainPack
from worlds.domains.multidomain.domains.communication_intents import PRIMITIVES
from worlds.domains.multidomain.intents import Focus
from worlds.domains.multidomain.world import MultiDomainWorld

PACK = MultiDomainPack(tasks=[])
Step = tuple[str, dict[str, Any]]


def _search(query: str) -> Step:
    return ("search_contacts", {"query": query})


def _conversation(contact_id: str) -> Step:
    return ("list_conversation", {"contact_id": contact_id})


async def _call(world: MultiDomainWorld, name: str, /, **arguments: Any) -> ToolResult:
    return await world.call(ToolCall(id="c", name=name, arguments=arguments))


async def _world(*steps: Step) -> MultiDomainWorld:
    world = PACK.new_world(0)
    for name, arguments in steps:
        result = await _call(world, name, **arguments)
        assert result.ok, (name, result.content)
    return world


def _row(world: MultiDomainWorld, table: str, key: str) -> Any:
    return world.state.get(table, key)


CALLING: tuple[Step, ...] = (_search("priya"), ("place_call", {"contact_id": "priya_shah"}))

SUCCESS: list[tuple[str, tuple[Step, ...], dict[str, Any], Any]] = [
    (
        "search_contacts",
        (),
        {"query": "alex"},
        lambda c, w: [x["contact_id"] for x in c["contacts"]] == ["alex_chen", "alex_morgan"],
    ),
    ("search_contacts", (), {"query": "07700 900106"}, lambda c, w: c["contacts"][0]["contact_id"] == "dan_okoro"),
    (
        "get_contact_details",
        (_search("patel"),),
        {"contact_id": "anita_patel"},
        lambda c, w: c["email"] == "reception@parkviewsurgery.example.com",
    ),
    (
        "add_contact",
        (),
        {"name": "Grace Holloway", "phone": "+44 7700 900250", "relationship": "friend"},
        lambda c, w: (
            c["contact_id"] == "contact-0001" and _row(w, "contacts", "contact-0001")["name"] == "Grace Holloway"
        ),
    ),
    (
        "update_contact",
        (_search("nina"),),
        {"contact_id": "nina_kowalski", "phone": "+44 7700 900251"},
        lambda c, w: _row(w, "contacts", "nina_kowalski")["phone"] == "+44 7700 900251",
    ),
    (
        "set_contact_favorite",
        (_search("jamie"),),
        {"contact_id": "jamie_li", "favorite": True},
        lambda c, w: _row(w, "contacts", "jamie_li")["favorite"] is True,
    ),
    (
        "place_call",
        (_search("helen"),),
        {"contact_id": "helen_rivera"},
        lambda c, w: c["call_id"] == "call-0001" and _row(w, "calls", "call-0001")["status"] == "active",
    ),
    (
        "end_call",
        CALLING,
        {"call_id": "call-0001"},
        lambda c, w: _row(w, "calls", "call-0001")["status"] == "completed",
    ),
    (
        "get_call_history",
        (),
        {"missed_only": True},
        lambda c, w: [x["call_id"] for x in c["calls"]] == ["call_08", "call_06", "call_03"],
    ),
    (
        "send_message",
        (_search("chloe"),),
        {"contact_id": "chloe_dubois", "text": "See you at 1."},
        lambda c, w: _row(w, "messages", "msg-0001")["text"] == "See you at 1.",
    ),
    (
        "list_conversation",
        (_search("priya"),),
        {"contact_id": "priya_shah"},
        lambda c, w: [m["message_id"] for m in c["messages"]] == ["msg_priya_1", "msg_priya_2", "msg_priya_3"],
    ),
    (
        "list_unread_messages",
        (),
        {},
        lambda c, w: (
            [m["message_id"] for m in c["messages"]][:2] == ["msg_alex_3", "msg_helen_1"] and len(c["messages"]) == 5
        ),
    ),
    (
        "read_message",
        (("list_unread_messages", {}),),
        {"message_id": "msg_jamie_1"},
        lambda c, w: _row(w, "messages", "msg_jamie_1")["read"] is True,
    ),
    (
        "mark_conversation_read",
        (_search("helen"),),
        {"contact_id": "helen_rivera"},
        lambda c, w: c["marked_read"] == 2 and _row(w, "messages", "msg_helen_2")["read"] is True,
    ),
    (
        "delete_message",
        (_search("tom"), _conversation("tom_baker")),
        {"message_id": "msg_tom_1"},
        lambda c, w: _row(w, "messages", "msg_tom_1") is None,
    ),
]

FAILURE: list[tuple[str, tuple[Step, ...], dict[str, Any], str]] = [
    ("search_contacts", (), {"query": "  "}, "empty_query"),
    ("get_contact_details", (), {"contact_id": "priya_shah"}, "not_looked_up"),
    ("add_contact", (), {"name": "Grace Holloway"}, "no_details"),
    ("add_contact", (), {"name": "Dup", "phone": "+447700900103"}, "duplicate_phone"),
    ("update_contact", (_search("dan"),), {"contact_id": "dan_okoro"}, "no_changes"),
    ("update_contact", (_search("dan"),), {"contact_id": "dan_okoro", "phone": "+44 7700 900101"}, "duplicate_phone"),
    ("set_contact_favorite", (), {"contact_id": "nobody", "favorite": True}, "unknown_contact"),
    ("place_call", (_search("nina"),), {"contact_id": "nina_kowalski"}, "no_phone"),
    ("place_call", (*CALLING, _search("leo")), {"contact_id": "leo_rivera"}, "call_active"),
    ("end_call", (("get_call_history", {}),), {"call_id": "call_02"}, "call_not_active"),
    ("get_call_history", (), {"contact_id": "helen_rivera"}, "not_looked_up"),
    ("send_message", (_search("nina"),), {"contact_id": "nina_kowalski", "text": "Hi"}, "no_phone"),
    ("send_message", (_search("leo"),), {"contact_id": "leo_rivera", "text": " "}, "bad_text"),
    ("list_conversation", (), {"contact_id": "priya_shah"}, "not_looked_up"),
    ("list_unread_messages", (), {"contact_id": "priya_shah"}, "unexpected_argument"),
    ("read_message", (), {"message_id": "msg_jamie_1"}, "not_looked_up"),
    ("mark_conversation_read", (), {"contact_id": "helen_rivera"}, "not_looked_up"),
    ("delete_message", (_search("tom"),), {"message_id": "msg_missing"}, "unknown_message"),
]


@pytest.mark.parametrize(("tool", "steps", "arguments", "check"), SUCCESS, ids=[r[0] for r in SUCCESS])
async def test_success_path(tool: str, steps: tuple[Step, ...], arguments: dict[str, Any], check: Any) -> None:
    world = await _world(*steps)
    before = world.state_hash()
    result = await _call(world, tool, **arguments)
    assert result.ok, result.content
    assert check(result.content, world), result.content
    spec = next(s for s in world.specs() if s.name == tool)
    assert (world.state_hash() == before) == spec.read_only


@pytest.mark.parametrize(("tool", "steps", "arguments", "code"), FAILURE, ids=[f"{r[0]}-{r[3]}" for r in FAILURE])
async def test_failure_path_changes_nothing(
    tool: str, steps: tuple[Step, ...], arguments: dict[str, Any], code: str
) -> None:
    world = await _world(*steps)
    before = world.state_hash()
    result = await _call(world, tool, **arguments)
    assert not result.ok and result.error_code == code, result.content
    assert world.state_hash() == before


def test_every_communication_tool_has_both_paths_tested() -> None:
    tools = {name for name, tool in PACK.toolkit.tools.items() if tool.domain == "communication"}
    assert len(tools) >= 13
    assert {r[0] for r in SUCCESS} == tools
    assert {r[0] for r in FAILURE} == tools


async def test_a_call_can_be_placed_again_once_ended() -> None:
    world = await _world(*CALLING, ("end_call", {"call_id": "call-0001"}), _search("leo"))
    result = await _call(world, "place_call", contact_id="leo_rivera")
    assert result.ok and result.content["call_id"] == "call-0002"


@pytest.mark.parametrize("primitive", PRIMITIVES, ids=[p.__name__ for p in PRIMITIVES])
async def test_primitives_execute_on_fresh_worlds(primitive: Any) -> None:
    produced = 0
    for seed in range(25):
        world = await _world(*(CALLING if primitive.__name__ == "hang_up" else ()))
        snapshot = world.snapshot()
        intent = primitive(world.state, random.Random(seed), None)
        assert world.snapshot() == snapshot, "a primitive must not change the state"
        if intent is None:
            continue
        produced += 1
        await check_intent(world, intent)
    assert produced, "the seed data offers this primitive no variation"


async def test_primitive_chains_with_follow_ups() -> None:
    """Many intents in one world, each offered the previous focus: later states (an active call, new
    contacts and messages, read or deleted messages) stay valid for every primitive."""
    for seed in range(12):
        rng = random.Random(seed)
        world = PACK.new_world(0)
        focus: Focus | None = None
        for _ in range(14):
            intent = rng.choice(PRIMITIVES)(world.state, rng, focus)
            if intent is None:
                continue
            await check_intent(world, intent)
            focus = intent.focus
