"""Text protocol: the tolerant step parser and the prompts around it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.agents.text_parse import Action, FinalAnswer, ParseError, parse_step
from sim.agents.text_prompt import render_observation, render_parse_error, render_system_prompt
from sim.core import ToolResult, ToolSpec

TOOLS = ["get_weather", "set_light", "list_devices", "search_flights", "send_message"]
PARIS = {"city": "Paris"}
KITCHEN = {"room": "kitchen", "level": 3}


def act(name: str, arguments: dict[str, Any]) -> tuple[Any, ...]:
    return ("action", name, arguments)


def final(text: str) -> tuple[Any, ...]:
    return ("final", text)


def err(code: str) -> tuple[Any, ...]:
    return ("error", code)


WEATHER, LIGHT = act("get_weather", PARIS), act("set_light", KITCHEN)

# (id, model output, expected parse)
CASES: list[tuple[str, str, tuple[Any, ...]]] = [
    # --- the ReAct format, clean and sloppy
    ("react", 'Thought: I need the weather.\nAction: get_weather\nAction Input: {"city": "Paris"}', WEATHER),
    ("lowercase-labels", 'thought: ok\naction: get_weather\naction input: {"city": "Paris"}', WEATHER),
    ("uppercase-labels", 'ACTION: get_weather\nACTION INPUT: {"city": "Paris"}', WEATHER),
    ("extra-whitespace", '  Action :   get_weather  \n\n  Action Input :\n\n   {"city": "Paris"}   ', WEATHER),
    ("input-next-line-fenced", 'Action: get_weather\nAction Input:\n```json\n{"city": "Paris"}\n```', WEATHER),
    ("input-inline-backticks", 'Action: `get_weather`\nAction Input: `{"city": "Paris"}`', WEATHER),
    ("bold-labels", '**Action:** get_weather\n**Action Input:** {"city": "Paris"}', WEATHER),
    ("one-line-react", 'Thought: weather. Action: get_weather Action Input: {"city": "Paris"} then I answer', WEATHER),
    ("trailing-text", 'Action: set_light\nAction Input: {"room": "kitchen", "level": 3}\n\nDone.', LIGHT),
    (
        "hallucinated-observation",
        'Thought: lamp\nAction: set_light\nAction Input: {"room": "kitchen", "level": 3}\nObservation: done\n'
        "Thought: I now know the final answer\nFinal Answer: The light is on.",
        LIGHT,
    ),
    (
        "python-literal",
        "Action: set_light\nAction Input: {'room': 'kitchen', 'level': 3, 'on': True, 'c': None}",
        act("set_light", {**KITCHEN, "on": True, "c": None}),
    ),
    (
        "json-with-python-none",
        'Action: set_light\nAction Input: {"room": "kitchen", "level": 3, "c": None, "on": true}',
        act("set_light", {**KITCHEN, "c": None, "on": True}),
    ),
    ("trailing-comma", 'Action: set_light\nAction Input: {"room": "kitchen", "level": 3,}', LIGHT),
    ("input-as-json-string", 'Action: get_weather\nAction Input: "{\\"city\\": \\"Paris\\"}"', WEATHER),
    ("input-as-kwargs", 'Action: set_light\nAction Input: room="kitchen", level=3', LIGHT),
    ("no-input-no-args", "Thought: what is there?\nAction: list_devices", act("list_devices", {})),
    ("empty-object-input", "Action: list_devices\nAction Input: {}", act("list_devices", {})),
    ("input-none-word", "Action: list_devices\nAction Input: None", act("list_devices", {})),
    ("name-with-parens", 'Action: get_weather()\nAction Input: {"city": "Paris"}', WEATHER),
    ("name-in-a-sentence", 'Action: I will use the get_weather tool\nAction Input: {"city": "Paris"}', WEATHER),
    ("name-on-next-line", 'Action:\nget_weather\nAction Input: {"city": "Paris"}', WEATHER),
    ("namespace-prefix", 'Action: functions.get_weather\nAction Input: {"city": "Paris"}', WEATHER),
    ("wrong-case-name", 'Action: Get_Weather\nAction Input: {"city": "Paris"}', WEATHER),
    ("call-on-action-line", 'Action: set_light(room="kitchen", level=3)', LIGHT),
    ("json-on-action-line", 'Action: get_weather {"city": "Paris"}', WEATHER),
    (
        "nested-arguments",
        'Action: search_flights\nAction Input: {"route": {"from": "CDG", "to": "JFK"}, '
        '"dates": ["2025-01-02"], "max_price": 500.5}',
        (
            "action",
            "search_flights",
            {"route": {"from": "CDG", "to": "JFK"}, "dates": ["2025-01-02"], "max_price": 500.5},
        ),
    ),
    (
        "unicode-arguments",
        'Action: send_message\nAction Input: {"text": "Grüße 東京 ☀"}',
        act("send_message", {"text": "Grüße 東京 ☀"}),
    ),
    (
        "label-text-inside-argument",
        'Action: send_message\nAction Input: {"text": "Final Answer: x"}',
        act("send_message", {"text": "Final Answer: x"}),
    ),
    ("langchain-final-action", 'Action: Final Answer\nAction Input: "It is sunny."', final("It is sunny.")),
    # --- tags and JSON
    ("hermes-tool-call", '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>', WEATHER),
    (
        "tool-call-parameters",
        '<tool_call>{"name": "get_weather", "parameters": {"city": "Paris"}}</tool_call>',
        WEATHER,
    ),
    ("tool-call-unclosed", 'Ok.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}', WEATHER),
    (
        "smollm-tool-call-list",
        '<tool_call>[{"name": "set_light", "arguments": {"room": "kitchen", "level": 3}}]</tool_call>',
        LIGHT,
    ),
    (
        "tool-call-string-arguments",
        '<tool_call>{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}</tool_call>',
        WEATHER,
    ),
    ("llama-function-tag", '<function=get_weather>{"city": "Paris"}</function>', WEATHER),
    ("api-call-tag", '<API_CALL>set_light(room="kitchen", level=3)</API_CALL>', LIGHT),
    ("bare-call", 'set_light(room="kitchen", level=3)', LIGHT),
    (
        "bare-call-json-literals",
        "set_light(room='kitchen', level=3, on=true)",
        act("set_light", {**KITCHEN, "on": True}),
    ),
    ("bare-call-in-fence", '```python\nset_light(room="kitchen", level=3)\n```', LIGHT),
    ("bfcl-list", '[get_weather(city="Paris"), set_light(room="kitchen", level=3)]', WEATHER),
    ("bare-json", '{"name": "get_weather", "arguments": {"city": "Paris"}}', WEATHER),
    ("fenced-json", 'Let me check.\n```json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```', WEATHER),
    ("llama3-parameters", '{"name": "get_weather", "parameters": {"city": "Paris"}}', WEATHER),
    (
        "openai-function-shape",
        '{"type": "function", "function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}}',
        WEATHER,
    ),
    ("flat-json", '{"name": "get_weather", "city": "Paris"}', WEATHER),
    ("langchain-json", '{"action": "get_weather", "action_input": {"city": "Paris"}}', WEATHER),
    ("langchain-json-final", '{"action": "Final Answer", "action_input": "It is sunny."}', final("It is sunny.")),
    ("python-dict-call", "{'name': 'get_weather', 'arguments': {'city': 'Paris'}}", WEATHER),
    (
        "think-block-ignored",
        '<think>get_weather(city="Rome")?</think>\nAction: get_weather\nAction Input: {"city": "Paris"}',
        WEATHER,
    ),
    # --- final answers
    ("final-answer", "Thought: I know this.\nFinal Answer: It is sunny in Paris.", final("It is sunny in Paris.")),
    ("final-answer-multiline", "Final Answer: Done.\n- light on\n- door shut", final("Done.\n- light on\n- door shut")),
    ("plain-text", "Hello! How can I help you today?", final("Hello! How can I help you today?")),
    ("plain-text-with-record", 'User: {"name": "Alice", "age": 30}.', final('User: {"name": "Alice", "age": 30}.')),
    ("plain-text-with-code", 'Use print("hi") in Python.', final('Use print("hi") in Python.')),
    ("final-before-action", "Final Answer: Wait.\nAction: get_weather\nAction Input: {}", final("Wait.")),
    # --- errors the model gets feedback for
    ("empty", "   \n ", err("empty")),
    ("only-thought", "Thought: I should look up the weather.", err("no_action")),
    ("thinking-cut-off", "<think>Let me think about the weather in", err("empty")),
    ("unknown-tool", 'Action: get_wether\nAction Input: {"city": "Paris"}', err("unknown_tool")),
    ("unknown-tool-json", '{"name": "weather_lookup", "arguments": {"city": "Paris"}}', err("unknown_tool")),
    ("unknown-tool-call", 'fetch_weather(city="Paris")', err("unknown_tool")),
    ("truncated-json", 'Action: get_weather\nAction Input: {"city": "Par', err("bad_arguments")),
    ("unquoted-keys", 'Action: get_weather\nAction Input: {city: "Paris"}', err("bad_arguments")),
    ("input-not-object", "Action: get_weather\nAction Input: Paris", err("bad_arguments")),
    ("input-list", 'Action: get_weather\nAction Input: ["Paris"]', err("bad_arguments")),
    ("positional-call", 'get_weather("Paris")', err("bad_arguments")),
    (
        "broken-tool-call-json",
        '<tool_call>{"name": "get_weather", "arguments": {"c": }}</tool_call>',
        err("bad_arguments"),
    ),
    ("tool-call-without-name", '<tool_call>{"arguments": {"city": "Paris"}}</tool_call>', err("no_action")),
    ("call-mentioned-in-prose", 'I could run get_weather(city="Paris") for you.', err("no_action")),
    ("empty-final-answer", "Thought: done\nFinal Answer:", err("empty_answer")),
    ("action-without-name", 'Action:\nAction Input: {"city": "Paris"}', err("no_action")),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_parse_table(text: str, expected: tuple[Any, ...]) -> None:
    result = parse_step(text, TOOLS)
    kind = expected[0]
    if kind == "action":
        assert isinstance(result, Action), result
        assert (result.name, result.arguments) == expected[1:]
    elif kind == "final":
        assert isinstance(result, FinalAnswer), result
        assert result.text == expected[1]
    else:
        assert isinstance(result, ParseError), result
        assert result.code == expected[1], result


def test_table_is_large_enough() -> None:
    assert len(CASES) >= 30


def test_thought_is_kept() -> None:
    result = parse_step('Thought: the user wants Paris.\nAction: get_weather\nAction Input: {"city": "Paris"}', TOOLS)
    assert isinstance(result, Action)
    assert result.thought == "the user wants Paris."
    assert result.raw.startswith("Action: get_weather")


def test_reasoning_block_is_the_thought_when_there_is_no_other() -> None:
    result = parse_step("<think>easy one</think>Final Answer: 4", TOOLS)
    assert result == FinalAnswer(text="4", thought="easy one")


def test_later_actions_and_answers_are_reported() -> None:
    text = (
        'Action: get_weather\nAction Input: {"city": "Paris"}\n'
        'Action: set_light\nAction Input: {"room": "kitchen"}\nFinal Answer: done'
    )
    result = parse_step(text, TOOLS)
    assert isinstance(result, Action) and result.name == "get_weather"
    assert any("1 later action" in note for note in result.notes)
    assert any("Final Answer" in note for note in result.notes)


def test_unknown_tool_names_close_matches() -> None:
    result = parse_step('Action: get_wether\nAction Input: {"city": "Paris"}', TOOLS)
    assert isinstance(result, ParseError)
    assert "get_weather" in result.message


def test_exact_name_wins_over_case_insensitive() -> None:
    result = parse_step("Action: Ping\nAction Input: {}", ["ping", "Ping"])
    assert isinstance(result, Action) and result.name == "Ping"
    ambiguous = parse_step("Action: PING\nAction Input: {}", ["ping", "Ping"])
    assert isinstance(ambiguous, ParseError) and ambiguous.code == "unknown_tool"


def test_literal_eval_never_executes_code(tmp_path: Any) -> None:
    marker = tmp_path / "pwned"
    payload = f"__import__('pathlib').Path({str(marker)!r}).touch()"
    for text in (
        f"Action: get_weather\nAction Input: {{'city': {payload}}}",
        f"get_weather(city={payload})",
        f"<tool_call>get_weather(city={payload})</tool_call>",
    ):
        result = parse_step(text, TOOLS)
        assert isinstance(result, ParseError), text
    assert not marker.exists()


# Pieces of the protocol, glued at random; one string split on "|" keeps the table short.
_FRAGMENTS = (  # noqa: SIM905
    "Thought:|Action:|Action Input:|Final Answer:|Observation:|action input :|**Action:**|<tool_call>|</tool_call>|"
    "<API_CALL>|</API_CALL>|<function=get_weather>|</function>|<think>|</think>|```json|```|{|}|[|]|(|)|\"|'|\\|:|,|=|"
    '{"name": |"arguments": |get_weather|set_light|get_weather(|city=|"Paris"|3|True|null|functions.|final answer|'
    'finish|\n| |<End of Turn>|{"api": |"params": '
).split("|")


@settings(
    max_examples=300, deadline=None, database=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(st.text(max_size=300))
def test_never_raises_on_random_text(text: str) -> None:
    assert isinstance(parse_step(text, TOOLS), Action | FinalAnswer | ParseError)


@settings(
    max_examples=400, deadline=None, database=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=40).map("".join))
def test_never_raises_on_protocol_like_text(text: str) -> None:
    result = parse_step(text, TOOLS)
    assert isinstance(result, Action | FinalAnswer | ParseError)
    if isinstance(result, Action):
        assert result.name in TOOLS
        json.dumps(result.arguments)  # always JSON-serialisable


_KEYS = st.from_regex(r"[a-z_][a-z0-9_]{0,12}", fullmatch=True)
_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None, database=None, derandomize=True)
@given(st.sampled_from(TOOLS), st.dictionaries(_KEYS, _JSON, max_size=5), st.sampled_from(["react", "hermes", "bare"]))
def test_round_trip(name: str, args: dict[str, Any], style: str) -> None:
    payload = json.dumps(args, ensure_ascii=False)
    text = {
        "react": f"Thought: go\nAction: {name}\nAction Input: {payload}",
        "hermes": f'<tool_call>{{"name": "{name}", "arguments": {payload}}}</tool_call>',
        "bare": f'{{"name": "{name}", "arguments": {payload}}}',
    }[style]
    result = parse_step(text, TOOLS)
    assert isinstance(result, Action), result
    assert (result.name, result.arguments) == (name, args)


# --- prompts


def _specs() -> list[ToolSpec]:
    return [
        ToolSpec(
            name="get_weather",
            description="Current weather for a city.",
            parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        ),
        ToolSpec(name="list_devices", description="All devices in the home."),
    ]


def test_system_prompt_has_instructions_tools_and_format() -> None:
    prompt = render_system_prompt("You are a home assistant.", _specs())
    assert prompt.startswith("You are a home assistant.")
    assert '- get_weather: Current weather for a city.\n  Parameters: {"type":"object","properties":' in prompt
    assert "- list_devices: All devices in the home." in prompt
    for label in ("Thought:", "Action:", "Action Input:", "Observation:", "Final Answer:"):
        assert label in prompt


def test_system_prompt_without_tools_asks_for_final_answers() -> None:
    prompt = render_system_prompt("Be nice.", [])
    assert "No tools" in prompt and "Final Answer:" in prompt and "Action Input" not in prompt


def test_what_the_agent_writes_in_the_transcript_parses_back() -> None:
    # text_agent replays past calls as "Action: name\nAction Input: <json>"
    text = 'Action: get_weather\nAction Input: {"city": "Paris"}'
    assert parse_step(text, ["get_weather"]) == Action(name="get_weather", arguments=PARIS, raw=text)


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        (ToolResult(call_id="1", status="success", content={"temp": 21, "sky": "clear"}), '{"temp":21,"sky":"clear"}'),
        (ToolResult(call_id="1", status="success", content="sunny"), "sunny"),
        (ToolResult(call_id="1", status="success", content=None), '{"status":"success"}'),
        (
            ToolResult(call_id="1", status="rate_limited", content={"error": "slow down", "code": "quota"}),
            '{"error":"slow down","code":"quota"}',
        ),
        (
            ToolResult(call_id="1", status="unavailable", content="down", error_code="outage"),
            '{"error":"down","status":"unavailable","code":"outage"}',
        ),
        (ToolResult(call_id="1", status="timeout", content=None), '{"error":"timeout","status":"timeout"}'),
    ],
)
def test_render_observation(result: ToolResult, expected: str) -> None:
    assert render_observation(result) == f"Observation: {expected}"


def test_render_observation_truncates() -> None:
    rendered = render_observation(ToolResult(call_id="1", status="success", content="x" * 100), max_chars=10)
    assert rendered == "Observation: xxxxxxxxxx... [truncated 90 characters]"


def test_render_parse_error_names_problem_tools_and_format() -> None:
    err = parse_step('Action: get_wether\nAction Input: {"city": "Paris"}', TOOLS)
    assert isinstance(err, ParseError)
    feedback = render_parse_error(err, TOOLS)
    assert feedback.startswith("Observation:")
    assert err.message in feedback
    assert "get_weather, set_light" in feedback
    assert "Action Input:" in feedback and "Final Answer:" in feedback


def test_render_parse_error_caps_long_tool_lists() -> None:
    names = [f"tool_{i}" for i in range(100)]
    feedback = render_parse_error(ParseError(code="no_action", message="Nothing to do."), names)
    assert "tool_39" in feedback and "tool_40," not in feedback and "(and 60 more)" in feedback
