"""The optional assignment pipeline: ratings parsed, top pairs drafted, drafts validated, rows written loadable.

Models are scripted: an in-process handle answering by the ``Request:`` line of each prompt, and the mock
OpenAI server (by_user scripts) for the command line end to end, where a re-run must be served by the cache.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from sim.cli.app import app
from sim.core import ModelRequest, ModelResponse
from tests.support.mockllm_server import mock_llm_server
from worlds.registry import load_world
from worlds.stressors import builtin_scenarios
from worlds.stressors.assign import assign, write_rows
from worlds.stressors.assign.prompts import parse_scores
from worlds.stressors.catalog import load_scenarios

PACK = load_world("multidomain")
ROWS = {s.name: s for s in builtin_scenarios()}


def renamed(name: str, new: str, **changes: Any) -> dict[str, Any]:
    row = ROWS[name].model_dump(mode="json")
    return {**row, "name": new, **changes}


GOOD = renamed("notice.weather_nearest_station", "notice.weather_station_v2")
DRAFTS: dict[tuple[str, str], str] = {
    ("notice", "get_current_weather"): "Here it is:\n```json\n" + json.dumps(GOOD) + "\n```",
    ("notice", "track_order"): json.dumps(
        renamed("notice.order_tracking_rerouted", "notice.tracking_v2", tools=["track_order", "no_such_tool"])
    ),
    ("notice", "get_weather_forecast"): "I cannot help with that.",
    ("adhoc", "set_brightness"): json.dumps(
        renamed("adhoc.phone_e164", "adhoc.brightness_v2", tools=["set_brightness"], params={"format": "no_such"})
    ),
    ("adhoc", "set_color"): json.dumps(renamed("adhoc.color_hex", "adhoc.color_hex")),  # a shipped row's name
    ("limitation", "get_weather_forecast"): json.dumps(
        renamed(
            "limitation.forecast_three_days",
            "limitation.forecast_never",
            params={**ROWS["limitation.forecast_three_days"].params, "when": [{"arg": "days", "eq": 999}]},
        )
    ),
    ("ambiguous", "set_thermostat_mode"): json.dumps(
        {
            "name": "ambiguous.nothing_to_remove",
            "type": "ambiguous",
            "tools": ["set_thermostat_mode"],
            "effect": "Nothing.",
            "params": {"description": [["text that is not there", ""]]},
        }
    ),
}
SCORES = {
    "notice": {"get_current_weather": 9, "track_order": 8, "get_weather_forecast": 7, "set_power": 0},
    "adhoc": {"set_brightness": 9, "set_color": 8},
    "limitation": {"get_weather_forecast": 10},
    "ambiguous": {"set_thermostat_mode": 6},
}


def request_line(request: ModelRequest) -> str:
    return request.messages[1].content.splitlines()[0]


class ScriptedLLM:
    """An LLMHandle answering rating and drafting prompts from the tables above."""

    def __init__(self) -> None:
        self.steps = 0
        self.requests: list[ModelRequest] = []

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        line = request_line(request)
        kind = line.split("type=")[1].split()[0]
        if line.startswith("Request: rate"):
            scores = SCORES.get(kind, {})
            if kind == "adhoc":  # a broken answer for one batch: its pairs are skipped, not guessed
                return ModelResponse(text="scores: set_brightness=9, set_color=8")
            return ModelResponse(text=json.dumps({"scores": {**scores, "list_rooms": 11}}))
        return ModelResponse(text=DRAFTS[(kind, line.split("tool=")[1])])


def test_scores_are_read_robustly() -> None:
    tools = ["a", "b", "c", "d"]
    assert parse_scores('```json\n{"scores": {"a": 3, "b": 10.0, "c": "7", "d": 11}}\n```', tools) == {"a": 3, "b": 10}
    assert parse_scores('Sure! {"a": 0, "d": true}', tools) == {"a": 0}
    assert parse_scores("not json {", tools) == {}


async def test_pipeline_rates_drafts_validates_and_writes_loadable_rows(tmp_path: Path) -> None:
    llm = ScriptedLLM()
    kinds = ["notice", "adhoc", "limitation", "ambiguous"]
    report = await assign(llm, "scripted", PACK, types=kinds, top=3)
    n_tools = len(PACK.new_world(0).specs())
    assert report.pairs == 4 * n_tools
    assert report.skipped == report.pairs - 6  # only the scored tools parse: list_rooms's 11 and all adhoc are skipped
    assert report.ratings == {
        ("notice", "get_current_weather"): 9,
        ("notice", "track_order"): 8,
        ("notice", "get_weather_forecast"): 7,
        ("limitation", "get_weather_forecast"): 10,
        ("ambiguous", "set_thermostat_mode"): 6,
        ("notice", "set_power"): 0,
    }
    # top-N per type, best first, score 0 never drafted
    assert report.chosen == [
        ("notice", "get_current_weather"),
        ("notice", "track_order"),
        ("notice", "get_weather_forecast"),
        ("limitation", "get_weather_forecast"),
        ("ambiguous", "set_thermostat_mode"),
    ]
    assert all(r.role == "generator" and r.temperature == 0 and r.seed == 0 for r in llm.requests)
    assert [s.name for s in report.accepted] == ["notice.weather_station_v2"]
    reasons = {(k, t): r.split(":")[0] for k, t, r in report.rejected}
    assert reasons == {
        ("notice", "track_order"): "unknown_tool",
        ("notice", "get_weather_forecast"): "bad_json",
        ("limitation", "get_weather_forecast"): "does_not_fire",
        ("ambiguous", "set_thermostat_mode"): "no_effect",
    }
    out = tmp_path / "rows.jsonl"
    write_rows(out, report.accepted)
    loaded = load_scenarios(out)
    assert [s.model_dump() for s in loaded] == [{**GOOD, "reference_response": None, "criteria": []}]
    assert os.listdir(tmp_path) == ["rows.jsonl"]  # no temporary file left behind


async def test_bad_params_and_duplicate_names_are_rejected() -> None:
    class AdhocOnly(ScriptedLLM):
        async def complete(self, request: ModelRequest) -> ModelResponse:
            if request_line(request).startswith("Request: rate"):
                self.requests.append(request)
                return ModelResponse(text=json.dumps({"scores": SCORES["adhoc"]}))
            return await super().complete(request)

    report = await assign(AdhocOnly(), "scripted", PACK, types=["adhoc"], top=2)
    assert report.chosen == [("adhoc", "set_brightness"), ("adhoc", "set_color")]
    assert report.accepted == []
    assert [r.split(":")[0] for _, _, r in report.rejected] == ["bad_params", "duplicate_name"]


def test_cli_end_to_end_against_the_mock_server_and_a_rerun_is_cached(tmp_path: Path) -> None:
    policy = {
        "kind": "script",
        "steps": [{"text": "{}"}],
        "by_user": {
            "Request: rate type=notice": [{"text": json.dumps({"scores": SCORES["notice"]})}],
            "Request: draft type=notice tool=get_current_weather": [
                {"text": DRAFTS[("notice", "get_current_weather")]}
            ],
        },
    }
    out = tmp_path / "rows.jsonl"
    args = ["stressors", "assign", "--world", "multidomain", "--out", str(out), "--top", "1", "--types", "notice"]
    args += ["--cache-dir", str(tmp_path / "cache")]
    with mock_llm_server({"policy": policy}) as srv:
        result = CliRunner().invoke(app, [*args, "--model", f"openai-chat:mock@{srv.url}"])
        assert result.exit_code == 0, result.output
        served = srv.stats()["completions"]
        again = CliRunner().invoke(app, [*args, "--model", f"openai-chat:mock@{srv.url}"])
        assert again.exit_code == 0, again.output
        assert srv.stats()["completions"] == served  # every request came from the cache
    n_tools = len(PACK.new_world(0).specs())
    assert served == -(-n_tools // 8) + 1  # the rating batches and one draft
    assert "accepted: 1; rejected: 0" in result.output and "drafts: 1" in result.output
    assert [s.name for s in load_scenarios(out)] == ["notice.weather_station_v2"]
    assert again.output == result.output
