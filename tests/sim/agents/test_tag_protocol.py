"""The tag protocol (``--text-protocol tags``): the parser's JSON call forms, the mixed-reply rule, the prompts,
the setting, and a text: agent solving a smart-home task with it (in process, and over HTTP through ``squall run``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from judges.calls.arg_match import ArgMatcher
from judges.calls.core_api import CoreApiAccuracy
from personas.scripted import ScriptedUser
from sim.agents import tag_protocol
from sim.agents.text_agent import TextProtocolAgent, transcript
from sim.agents.text_parse import Action, FinalAnswer, ParseError, parse_step
from sim.agents.text_prompt import render_observation, render_parse_error, render_system_prompt
from sim.cli.app import run_cli
from sim.config.resolve import load_config
from sim.config.run_config import RunConfig
from sim.core import Event, ModelRequest, ModelResponse, Task, ToolCall, ToolResult, ToolSpec, shared_agent
from sim.episode.env import EpisodeEnv, EpisodeSpec
from sim.episode.loop import run_episode
from sim.llm.gateway import Gateway
from sim.llm.transports.base import Reply
from sim.run.runner import execute
from tests.support.mockllm_server import mock_llm_server
from worlds.registry import load_world

TOOLS = ["set_light", "list_rooms", "create_user", "send_message"]
KITCHEN = {"room": "kitchen"}
MIXED = f"agent:{tag_protocol.MIXED_CALL_AND_END}"


def tag(body: object) -> str:
    return f"<API_CALL>{json.dumps(body)}</API_CALL>"


# --- parser: every accepted form --------------------------------------------------------------------------

NAME_KEYS = ["api", "name", "function", "tool", "api_name"]
ARG_KEYS = ["params", "parameters", "arguments", "args"]


@pytest.mark.parametrize("name_key", NAME_KEYS)
@pytest.mark.parametrize("args_key", ARG_KEYS)
def test_api_call_json_with_any_name_and_arguments_key(name_key: str, args_key: str) -> None:
    step = parse_step(tag({name_key: "set_light", args_key: KITCHEN}), TOOLS)
    assert isinstance(step, Action) and (step.name, step.arguments) == ("set_light", KITCHEN)
    assert not step.end_of_turn_ignored


@pytest.mark.parametrize(
    ("text", "name", "arguments"),
    [
        (tag({"api": "list_rooms"}), "list_rooms", {}),  # a name alone: no arguments
        (tag({"api": "list_rooms", "params": {}}), "list_rooms", {}),
        (tag({"api": "list_rooms", "params": None}), "list_rooms", {}),
        (tag({"api": "set_light", "room": "kitchen"}), "set_light", KITCHEN),  # arguments beside the name
        (tag({"api": "set_light", "params": json.dumps(KITCHEN)}), "set_light", KITCHEN),  # a JSON string
        (tag({"api": "create_user", "name": "Alice"}), "create_user", {"name": "Alice"}),  # 'name' is an argument
        ('<api_call>{"api": "set_light", "params": {"room": "kitchen"}}', "set_light", KITCHEN),  # unclosed, any case
        ('Thought: lights.\n<API_CALL>\n```json\n{"api": "set_light", "params": {"room": "kitchen"}}\n```\n</API_CALL>',
         "set_light", KITCHEN),
        ('<tool_call>{"api": "set_light", "params": {"room": "kitchen"}}</tool_call>', "set_light", KITCHEN),
        ('{"api": "set_light", "params": {"room": "kitchen"}}', "set_light", KITCHEN),  # bare JSON
        ('Action: {"api": "set_light", "params": {"room": "kitchen"}}', "set_light", KITCHEN),  # in the ReAct style
        ('<API_CALL>set_light(room="kitchen")</API_CALL>', "set_light", KITCHEN),  # call syntax, as before
    ],
)  # fmt: skip
def test_api_call_forms(text: str, name: str, arguments: dict[str, Any]) -> None:
    step = parse_step(text, TOOLS)
    assert isinstance(step, Action), step
    assert (step.name, step.arguments) == (name, arguments)


# --- parser: every error --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "code", "needle"),
    [
        (tag({"params": KITCHEN}), "no_action", 'arguments but no tool name ("api" or "name"); its keys: "params"'),
        (tag({"foo": 1}), "no_action", 'neither a tool name ("api" or "name") nor arguments'),
        (tag({"api": 5, "params": {}}), "no_action", 'the tool name under "api" must be a string'),
        (tag([]), "no_action", "must be a JSON object, not nothing"),
        ('Action: {"foo": 1}', "no_action", 'its keys: "foo"'),
        (tag({"api": "set_ligth", "params": KITCHEN}), "unknown_tool", "Did you mean 'set_light'"),
        (tag({"api": "set_light", "params": [1]}), "bad_arguments", "must be a JSON object, not list"),
        ('<API_CALL>{"api": "set_light", "params": {"room": }}</API_CALL>', "bad_arguments", "not valid JSON"),
        ("<End of Turn>", "empty_answer", "before <End of Turn> was empty"),
        ("", "empty", "empty"),
    ],
)
def test_api_call_errors_say_what_is_missing(text: str, code: str, needle: str) -> None:
    step = parse_step(text, TOOLS)
    assert isinstance(step, ParseError) and step.code == code, step
    assert needle in step.message


# --- the mixed-reply rule and <End of Turn> -----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        tag({"api": "set_light", "params": KITCHEN}) + "\n<End of Turn>",
        tag({"api": "set_light", "params": KITCHEN}) + " The light is on. <end_of_turn>",
        '<API_CALL>{"api": "set_light", "params": {"room": "kitchen"}}<End of Turn>',  # unclosed tag
        "Done! <End of Turn>\n" + tag({"api": "set_light", "params": KITCHEN}),  # the marker first
        'Action: set_light\nAction Input: {"room": "kitchen"}\n<End of Turn>',  # ReAct style too
    ],
)
def test_a_call_with_end_of_turn_runs_and_is_flagged(text: str) -> None:
    step = parse_step(text, TOOLS)
    assert isinstance(step, Action) and (step.name, step.arguments) == ("set_light", KITCHEN)
    assert step.end_of_turn_ignored and tag_protocol.MIXED_NOTE in step.notes


def test_end_of_turn_inside_an_argument_is_content() -> None:
    step = parse_step(tag({"api": "send_message", "params": {"text": "<End of Turn>"}}), TOOLS)
    assert isinstance(step, Action) and step.arguments == {"text": "<End of Turn>"}
    assert not step.end_of_turn_ignored


@pytest.mark.parametrize(
    ("text", "answer", "notes"),
    [
        ("The kitchen light is on. <End of Turn>", "The kitchen light is on.", 0),
        ("The kitchen light is on.", "The kitchen light is on.", 0),  # marker forgotten: still the answer
        ("On. <|end_of_turn|>\nUser: thanks!", "On.", 1),  # an invented continuation is dropped, with a note
        ("Final Answer: On. <End of Turn>", "On.", 0),
        ('I already ran set_light(room="kitchen"). <End of Turn>', 'I already ran set_light(room="kitchen").', 0),
    ],
)
def test_end_of_turn_ends_a_final_answer(text: str, answer: str, notes: int) -> None:
    step = parse_step(text, TOOLS)
    assert isinstance(step, FinalAnswer) and step.text == answer and len(step.notes) == notes


# --- prompts ---------------------------------------------------------------------------------------------

SPECS = [ToolSpec(name="set_light", description="Turn a light on.", parameters={"type": "object"})]


def test_tags_system_prompt_teaches_the_protocol_and_the_mixed_rule() -> None:
    prompt = render_system_prompt("Be helpful.", SPECS, protocol="tags")
    assert '<API_CALL>{"api": "<the API name>", "params": {' in prompt and "<End of Turn>" in prompt
    assert "Never write <End of Turn> in a reply that has an <API_CALL>" in prompt
    assert "Action Input" not in prompt and "set_light" in prompt
    assert "<End of Turn>" in render_system_prompt("", [], protocol="tags")
    assert "Action Input" in render_system_prompt("", SPECS)  # react stays the default


def test_tags_observation_and_feedback() -> None:
    result = ToolResult(call_id="c", status="success", content={"on": True})
    assert render_observation(result, protocol="tags") == '<API_RESULT>{"on":true}</API_RESULT>'
    feedback = render_parse_error(ParseError(code="unknown_tool", message="Unknown tool 'x'."), TOOLS, "tags")
    assert "Unknown tool 'x'." in feedback and "<API_CALL>" in feedback and "Action Input" not in feedback


def test_what_a_tags_agent_wrote_parses_back() -> None:
    call = ToolCall(id="c", name="set_light", arguments=KITCHEN)
    history = [
        Event(kind="user_message", turn=0, content="Light the kitchen."),
        Event(kind="tool_call", turn=0, call=call),
        Event(kind="tool_result", turn=0, result=ToolResult(call_id="c", status="success", content=None)),
        Event(kind="agent_message", turn=0, content="Done."),
    ]
    messages = transcript(history, "system", "tags")
    written = [m.content for m in messages if m.role == "assistant"]
    assert written == [
        '<API_CALL>{"api": "set_light", "params": {"room": "kitchen"}}</API_CALL>',
        "Done. <End of Turn>",
    ]
    assert parse_step(written[0], TOOLS) == Action(name="set_light", arguments=KITCHEN, raw=written[0])
    assert parse_step(written[1], TOOLS) == FinalAnswer(text="Done.")


# --- the setting ------------------------------------------------------------------------------------------


def test_setting_from_option_and_toml(tmp_path: Path) -> None:
    assert RunConfig().text_protocol == "react"
    assert load_config(None, {"text_protocol": "tags"}).text_protocol == "tags"
    toml = tmp_path / "run.toml"
    toml.write_text('agent = "oracle"\ntext_protocol = "ReAct"\n', encoding="utf-8")
    with pytest.raises(Exception, match=r"run.toml:2: field 'text_protocol'"):
        load_config(toml, {})


def test_default_protocol_keeps_the_config_hash_of_older_runs() -> None:
    # Runs stored before the setting existed must still resume: at its default it is not hashed. (max_tokens=512: the
    # default those runs had, stored in their manifests.)
    assert RunConfig(max_tokens=512).config_hash() == "d89c00a3ccb91ee9"  # as computed before the setting existed
    assert RunConfig(text_protocol="tags").config_hash() != RunConfig().config_hash()


def test_tags_for_an_agent_without_a_text_protocol_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_cli(["run", "--agent", "oracle", "--text-protocol", "tags", "--out", str(tmp_path / "runs"), "-q"])
    err = capsys.readouterr().err
    assert code == 2 and "--text-protocol" in err and "text: agents" in err
    assert not (tmp_path / "runs").exists()
    assert run_cli(["run", "--text-protocol", "xml", "--agent", "oracle"]) == 2


# --- end to end on smart_home ------------------------------------------------------------------------------

PACK = load_world("smart_home")
TASK: Task = next(t for t in PACK.tasks() if t.id == "sh-001")


def tags_script(task: Task) -> list[str]:
    """The gold path in the tag protocol; the first call of the first turn also says <End of Turn> (mixed)."""
    replies: list[str] = []
    for i, turn in enumerate(task.goals):
        for j, c in enumerate(turn.gold):
            mixed = " All set! <End of Turn>" if (i, j) == (0, 0) else ""
            replies.append(f"I will call {c.name}.\n" + tag({"api": c.name, "params": c.arguments}) + mixed)
        replies.append(f"{turn.gold_answer or 'Done.'} <End of Turn>")
    return replies


class ScriptedTransport:
    """Plays replies in order and keeps every request it was sent."""

    def __init__(self, replies: Sequence[str]) -> None:
        self.replies = list(replies)
        self.requests: list[ModelRequest] = []

    async def send(self, request: ModelRequest) -> Reply:
        self.requests.append(request)
        return Reply(ModelResponse(text=self.replies[len(self.requests) - 1]))

    async def aclose(self) -> None:
        return None


async def test_a_tags_agent_solves_a_smart_home_task_in_process() -> None:
    transport = ScriptedTransport(tags_script(TASK))
    gateway = Gateway()
    gateway.register("scripted", transport)
    agent = TextProtocolAgent("text:scripted", "scripted", protocol="tags")
    spec = EpisodeSpec(task=TASK, trial=0, seed=1)
    env = EpisodeEnv(PACK, shared_agent(agent), ScriptedUser(), gateway, ("text", "scripted"))
    result = await run_episode(spec, env)
    assert result.termination == "completed"
    faults = [e.code for e in result.events if e.kind == "error"]
    assert faults == [MIXED]  # the mixed reply is visible in the trace, and nothing else went wrong
    score = await CoreApiAccuracy(ArgMatcher()).score(result)
    assert score.value == 1.0
    first = transport.requests[0]
    assert first.stop == tag_protocol.STOP and "<End of Turn>" in (first.messages[0].content or "")
    after_mixed = transport.requests[1].messages[-1].content or ""
    assert after_mixed.startswith(tag_protocol.MIXED_NOTE) and "<API_RESULT>" in after_mixed
    # The turn did not end at the mixed reply: the second gold call followed in the same turn.
    turn0 = [e.call.name for e in result.events if e.kind == "tool_call" and e.turn == 0 and e.call]
    assert turn0 == [c.name for c in TASK.goals[0].gold]


async def test_under_react_a_template_end_token_after_an_action_is_no_fault() -> None:
    """Gemma-style templates end every reply with <end_of_turn>; the ReAct prompt never taught it."""
    replies = []
    for turn in TASK.goals:
        for c in turn.gold:
            replies.append(f"Thought: go\nAction: {c.name}\nAction Input: {json.dumps(c.arguments)}<end_of_turn>")
        replies.append("Final Answer: Done.")
    transport = ScriptedTransport(replies)
    gateway = Gateway()
    gateway.register("scripted", transport)
    agent = TextProtocolAgent("text:scripted", "scripted", protocol="react")
    spec = EpisodeSpec(task=TASK, trial=0, seed=1)
    env = EpisodeEnv(PACK, shared_agent(agent), ScriptedUser(), gateway, ("text", "scripted"))
    result = await run_episode(spec, env)
    assert result.termination == "completed"
    assert [e.code for e in result.events if e.kind == "error"] == []
    assert (await CoreApiAccuracy(ArgMatcher()).score(result)).value == 1.0
    assert all(tag_protocol.MIXED_NOTE not in (r.messages[-1].content or "") for r in transport.requests)


async def test_a_tags_agent_over_http_through_a_run(tmp_path: Path) -> None:
    steps = [{"text": text} for text in tags_script(TASK)]
    with mock_llm_server({"policy": {"kind": "script", "steps": steps}}) as srv:
        cfg = RunConfig(
            agent=f"text:openai-chat:mock-model@{srv.url}",
            text_protocol="tags",
            tasks=[TASK.id],
            out=tmp_path,
            run_id="r",
        )
        store, summary = await execute(cfg)
    episode = store.episodes()[0]
    assert episode.termination == "completed" and summary["core_api_accuracy"] == 1.0
    assert [e.code for e in episode.events if e.kind == "error"] == [MIXED]
    assert store.manifest()["config"]["text_protocol"] == "tags"
