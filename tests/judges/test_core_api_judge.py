"""Core API accuracy: which agent calls count, alternative paths, arguments, unplayed turns."""

from __future__ import annotations

from judges.calls.arg_match import ArgMatcher
from judges.calls.core_api import ConversationSuccess, CoreApiAccuracy, judge_turns
from sim.core import EpisodeResult, Goal, GoldCall, TerminationReason, ToolSpec
from tests.support import traces
from tests.support.traces import AgentCall, turn

SPECS = [
    ToolSpec(name="list_devices", description="", read_only=True),
    ToolSpec(name="get_device_details", description="", read_only=True),
    ToolSpec(name="set_power", description=""),
    ToolSpec(
        name="set_brightness",
        description="",
        parameters={
            "type": "object",
            "properties": {
                "device_id": {"type": "string"},
                "level": {"type": "integer"},
                "transition_s": {"type": "number", "default": 0},
            },
        },
    ),
    ToolSpec(name="activate_scene", description=""),
]


def episode(
    turns: list[Goal],
    calls: list[list[AgentCall]],
    played: int | None = None,
    termination: TerminationReason = "completed",
) -> EpisodeResult:
    return traces.episode(turns, calls, SPECS, played, termination)


ON = GoldCall(name="set_power", arguments={"device_id": "lamp", "on": True})
DIM = GoldCall(name="set_brightness", arguments={"device_id": "lamp", "level": 30})
LOOKUP = GoldCall(name="list_devices", arguments={}, role="support")
SCENE = GoldCall(name="activate_scene", arguments={"scene_id": "movie"})
EXACT = ArgMatcher(mode="exact")


def verdicts(ep: EpisodeResult) -> list[tuple[bool, list[str]]]:
    return [(v.correct, v.errors) for v in judge_turns(ep, EXACT)]


def test_support_lookups_and_failed_calls_are_not_scored() -> None:
    ep = episode(
        [turn([LOOKUP, ON, DIM])],
        [
            [
                ("get_device_details", {"device_id": "lamp"}, "success"),  # extra lookup: fine
                ("set_brightness", {"device_id": "lamp", "level": 30}, "failed"),  # refused (device off): not counted
                ("set_power", {"device_id": "lamp", "on": True}, "success"),
                ("set_brightness", {"device_id": "lamp", "level": 30}, "success"),
            ]
        ],
    )
    assert verdicts(ep) == [(True, [])]


def test_missing_extra_and_wrong_arguments_are_reported() -> None:
    ep = episode(
        [turn([ON, DIM]), turn([ON]), turn([ON])],
        [
            [("set_power", {"device_id": "lamp", "on": True}, "success")],
            [
                ("set_power", {"device_id": "lamp", "on": True}, "success"),
                ("activate_scene", {"scene_id": "x"}, "success"),
            ],
            [("set_power", {"device_id": "lamp", "on": False}, "success")],
        ],
    )
    (ok0, e0), (ok1, e1), (ok2, e2) = verdicts(ep)
    assert not ok0 and e0 == ["core:missing:set_brightness"]
    assert not ok1 and e1 == ["core:extra:activate_scene"]
    assert not ok2 and any(e.startswith("args:") for e in e2)


def test_extra_call_to_a_gold_function_is_wrong() -> None:
    ep = episode(
        [turn([ON])],
        [
            [
                ("set_power", {"device_id": "lamp", "on": True}, "success"),
                ("set_power", {"device_id": "tv", "on": True}, "success"),
            ]
        ],
    )
    assert verdicts(ep) == [(False, ["core:extra:set_power"])]


def test_alternative_path_is_accepted_but_not_a_mix() -> None:
    t = turn([SCENE], alternatives=[[ON, DIM]])
    alt = episode([t], [[("set_power", ON.arguments, "success"), ("set_brightness", DIM.arguments, "success")]])
    mix = episode([t], [[("activate_scene", SCENE.arguments, "success"), ("set_power", ON.arguments, "success")]])
    assert judge_turns(alt, EXACT)[0].correct and judge_turns(alt, EXACT)[0].path == 1
    assert not judge_turns(mix, EXACT)[0].correct


def test_read_only_call_that_answers_the_user_is_core() -> None:
    details = GoldCall(name="get_device_details", arguments={"device_id": "thermostat"})
    ok = episode([turn([LOOKUP, details])], [[("get_device_details", {"device_id": "thermostat"}, "success")]])
    wrong = episode([turn([LOOKUP, details])], [[("get_device_details", {"device_id": "lamp"}, "success")]])
    assert verdicts(ok) == [(True, [])]
    assert not verdicts(wrong)[0][0]


def test_schema_defaults_count_as_given() -> None:
    ep = episode([turn([DIM])], [[("set_brightness", {**DIM.arguments, "transition_s": 0}, "success")]])
    assert verdicts(ep) == [(True, [])]


def test_empty_gold_turn_means_do_nothing() -> None:
    ep = episode([turn([]), turn([])], [[("list_devices", {}, "success")], [("set_power", ON.arguments, "success")]])
    assert [ok for ok, _ in verdicts(ep)] == [True, False]


async def test_scores_unplayed_turns_and_failed_episodes() -> None:
    ep = episode([turn([ON]), turn([ON])], [[("set_power", ON.arguments, "success")]], played=1)
    acc = await CoreApiAccuracy(EXACT).score(ep)
    assert acc.value == 0.5 and acc.per_goal == [1.0, 0.0] and "goal1:turn:not_played" in acc.errors
    assert (await ConversationSuccess(EXACT).score(ep)).value == 0.0
    failed = episode([turn([ON])], [[("set_power", ON.arguments, "success")]], termination="provider_error")
    score = await CoreApiAccuracy(EXACT).score(failed)
    assert score.value is None and score.errors == ["episode:provider_error"]


async def test_turns_without_core_gold_are_outside_core_accuracy() -> None:
    ep = episode([turn([ON]), turn([LOOKUP])], [[], []])  # a null agent: no calls at all
    acc = await CoreApiAccuracy(EXACT).score(ep)
    assert acc.per_goal == [0.0, None] and acc.value == 0.0
    assert (await ConversationSuccess(EXACT).score(ep)).value == 0.0


def test_a_support_lookup_of_a_function_that_also_answers_is_not_an_extra_core_call() -> None:
    # One turn answers about the lamp and looks up the fan before switching it on (a joined turn does this).
    answer = GoldCall(name="get_device_details", arguments={"device_id": "lamp"})
    lookup = GoldCall(name="get_device_details", arguments={"device_id": "fan"}, role="support")
    switch = GoldCall(name="set_power", arguments={"device_id": "fan", "on": True})
    made = [
        ("get_device_details", {"device_id": "lamp"}, "success"),
        ("get_device_details", {"device_id": "fan"}, "success"),
        ("set_power", {"device_id": "fan", "on": True}, "success"),
    ]
    assert judge_turns(episode([turn([answer, lookup, switch])], [made]), ArgMatcher())[0].correct
    # A lookup of that function the path does not list is still an extra core call.
    stray = [*made, ("get_device_details", {"device_id": "tv"}, "success")]
    verdict = judge_turns(episode([turn([answer, lookup, switch])], [stray]), ArgMatcher())[0]
    assert not verdict.correct and verdict.errors == ["core:extra:get_device_details"]
