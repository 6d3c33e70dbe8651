"""`squall import toolbench`: tool files and queries in ToolBench's format become a simulated world whose tools
ToolBench would name alike, and tasks whose gold is the relevant APIs."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import squall, tree
from worlds.simulated.operations import ApiSpec
from worlds.simulated.toolbench_import import template_schema
from worlds.simulated.toolbench_names import function_name, standardize
from worlds.simulated.toolbench_queries import UNKNOWN_ARGUMENTS_TAG
from worlds.task_files import load_tasks


def api(name: str, url: str, method: str = "GET", **extra: Any) -> dict[str, Any]:
    return {"name": name, "url": url, "method": method, "description": f"{name} things", **extra}


YOUTUBE = {
    "tool_name": "Simple YouTube Search",
    "tool_description": "Search YouTube videos",
    "standardized_name": "simple_youtube_search",
    "api_list": [
        api(
            "Search",
            "https://youtube.p.rapidapi.com/search",
            required_parameters=[{"name": "query", "type": "STRING", "description": "what", "default": "cats"}],
            optional_parameters=[
                {"name": "limit", "type": "NUMBER", "description": "how many", "default": "10"},
                {"name": "safe", "type": "BOOLEAN", "description": "", "default": "true"},
            ],
            template_response={"results": [{"id": "str", "views": "int", "score": "float"}], "next": "NoneType"},
        ),
        api(
            "Video",
            "https://youtube.p.rapidapi.com/video/{id}",
            required_parameters=[{"name": "id", "type": "STRING", "description": "video id", "default": ""}],
            optional_parameters=[],
        ),
        api(
            "1 Playlist / create",
            "https://youtube.p.rapidapi.com/playlist",
            "POST",
            required_parameters=[],
            optional_parameters=[{"name": "title", "type": "STRING", "description": "", "default": "mine"}],
        ),
    ],
}
MOVIES = {
    "tool_name": "Movie DB",
    "tool_description": "Movies",
    "api_list": [
        api("Title Details", "https://movies.p.rapidapi.com/title", required_parameters=[], optional_parameters=[])
    ],
}


def query(
    query_id: int, text: str, relevant: list[list[str]], extra: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    api_list = [
        {
            "category_name": "Data",
            "tool_name": tool,
            "api_name": name,
            "api_description": "",
            "method": "GET",
            "required_parameters": [],
            "optional_parameters": [],
        }
        for tool, name in relevant
    ]
    return {"query_id": query_id, "query": text, "api_list": api_list + (extra or []), "relevant APIs": relevant}


FORECAST = {
    "category_name": "Weather",
    "tool_name": "Weather API",
    "api_name": "forecast",
    "api_description": "7-day forecast",
    "method": "GET",
    "required_parameters": [{"name": "city", "type": "STRING", "description": "", "default": "Paris"}],
    "optional_parameters": [],
    "template_response": {"days": [{"high": "float"}]},
}


@pytest.fixture
def tools(tmp_path: Path) -> Path:
    root = tmp_path / "tools"
    for category, tool, name in (("Data", YOUTUBE, "simple_youtube_search"), ("Movies", MOVIES, "movie_db")):
        (root / category).mkdir(parents=True)
        (root / category / f"{name}.json").write_text(json.dumps(tool), encoding="utf-8")
    return root


@pytest.mark.parametrize(
    ("api_name", "tool", "name"),
    [
        ("Search", "simple_youtube_search", "search_for_simple_youtube_search"),
        ("1 Playlist / create", "yt", "get_1_playlist_create_for_yt"),
        ("id", "yt", "is_id_for_yt"),
        ("__Get--Weird  Name__", "yt", "get_weird_name_for_yt"),
        ("天气 forecast", "w", "___forecast_for_w"),  # CJK kept by ToolBench, made ASCII here
        ("a" * 70, "tool", ("a" * 70 + "_for_tool")[-64:]),
    ],
)
def test_names_follow_toolbench(api_name: str, tool: str, name: str) -> None:
    assert function_name(api_name, tool) == name


def test_standardize() -> None:
    assert standardize("Simple YouTube Search") == "simple_youtube_search"
    assert standardize("9GAG / API") == "get_9gag_api"


def test_template_response_becomes_a_schema() -> None:
    assert template_schema({"a": [{"b": "int"}], "c": "str", "d": 1.5}, top=True) == {
        "type": "object",
        "properties": {
            "a": {
                "type": ["array", "null"],
                "items": {"type": ["object", "null"], "properties": {"b": {"type": ["integer", "null"]}}},
            },
            "c": {"type": ["string", "null"]},
            "d": {"type": ["number", "null"]},
        },
    }
    assert template_schema("NoneType") == {"type": "null"} and template_schema(None) == {}


def test_tool_files_and_queries_import(tools: Path, tmp_path: Path) -> None:
    queries = tmp_path / "G1_instruction.json"
    items = [
        query(
            7,
            "Find cat videos, then show the first.",
            [["Simple YouTube Search", "Search"], ["Simple YouTube Search", "Video"]],
            [FORECAST],
        ),
        query(8, "Details of Alien", [["Movie DB", "Title Details"]]),
    ]
    queries.write_text(json.dumps(items), encoding="utf-8")
    out = tmp_path / "tb"
    code, stdout, err = squall("import", "toolbench", str(tools), "--out", str(out), "--queries", str(queries))
    assert code == 0, err
    assert "5 operations, 2 tasks" in stdout
    assert tree(out) == ["cache", "operations.json", "tasks.jsonl", "world.toml"]
    config = tomllib.loads((out / "world.toml").read_text(encoding="utf-8"))
    assert config["kind"] == "simulated" and config["source"] == "toolbench" and config["tasks"] == "tasks.jsonl"
    spec = ApiSpec.model_validate_json((out / "operations.json").read_text(encoding="utf-8"))
    assert ApiSpec.model_validate_json(spec.model_dump_json()) == spec
    assert [op.name for op in spec.operations] == [
        "search_for_simple_youtube_search",
        "video_for_simple_youtube_search",
        "get_1_playlist_create_for_simple_youtube_search",
        "title_details_for_movie_db",
        "forecast_for_weather_api",  # documented by the query's api_list only
    ]
    search = spec.operations[0]
    assert search.tags == ("Data",) and search.method == "get" and not search.writes
    assert search.parameters == {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "what", "examples": ["cats"]},
            "limit": {"type": "number", "description": "how many", "examples": [10]},
            "safe": {"type": "boolean", "examples": [True]},
        },
        "required": ["query"],
        "additionalProperties": False,
    }
    assert search.locations == {"query": "query", "limit": "query", "safe": "query"}
    assert search.description == (
        'This is the subfunction for tool "simple_youtube_search", you can use this tool. The description of this '
        'function is: "search_for_simple_youtube_search things"'
    )
    assert search.response_schema is not None and search.response_schema["type"] == "object"
    (example,) = search.examples
    assert example.source == "template_response" and example.arguments == {"query": "cats", "limit": 10, "safe": True}
    video, playlist = spec.operations[1], spec.operations[2]
    assert video.locations == {"is_id": "path"} and video.parameters["required"] == ["is_id"] and video.examples == ()
    assert video.parameters["properties"]["is_id"]["x-squall-wire-name"] == "id"  # the url's {id}, filled in
    assert playlist.locations == {"title": "body"} and playlist.writes
    tasks = load_tasks(out / "tasks.jsonl")
    first = tasks[0]
    assert first.id == "7" and first.world == "tb" and UNKNOWN_ARGUMENTS_TAG in first.tags
    goal = first.goals[0]
    assert goal.user.explicit == "Find cat videos, then show the first."
    assert [call.name for call in goal.gold] == ["search_for_simple_youtube_search", "video_for_simple_youtube_search"]
    assert all(call.arguments == {} for call in goal.gold)
    assert [[call.name for call in path] for path in goal.alternatives] == [
        ["video_for_simple_youtube_search", "search_for_simple_youtube_search"]
    ]
    assert goal.tools == [
        "search_for_simple_youtube_search",
        "video_for_simple_youtube_search",
        "forecast_for_weather_api",
    ]


def test_a_single_tool_file_without_queries(tmp_path: Path) -> None:
    path = tmp_path / "movie.json"
    path.write_text(json.dumps(MOVIES), encoding="utf-8")
    code, _, err = squall("import", "toolbench", str(path), "--out", str(tmp_path / "w"))
    assert code == 0, err
    spec = ApiSpec.model_validate_json((tmp_path / "w" / "operations.json").read_text(encoding="utf-8"))
    assert spec.title == "Movie DB" and [op.name for op in spec.operations] == ["title_details_for_movie_db"]
    assert (tmp_path / "w" / "tasks.jsonl").read_text(encoding="utf-8") == ""


def test_many_relevant_apis_keep_their_order_only(tmp_path: Path) -> None:
    names = [f"Op {i}" for i in range(5)]
    tool = {"tool_name": "Big", "api_list": [api(name, f"https://big/{i}") for i, name in enumerate(names)]}
    (tmp_path / "big.json").write_text(json.dumps(tool), encoding="utf-8")
    (tmp_path / "q.json").write_text(json.dumps([query(1, "all", [["Big", n] for n in names])]), encoding="utf-8")
    out = tmp_path / "w"
    code, _, err = squall(
        "import", "toolbench", str(tmp_path / "big.json"), "--out", str(out), "--queries", str(tmp_path / "q.json")
    )
    assert code == 0, err
    goal = load_tasks(out / "tasks.jsonl")[0].goals[0]
    assert len(goal.gold) == 5 and goal.alternatives == []


def test_problems_of_every_file_are_listed_and_nothing_is_written(tools: Path, tmp_path: Path) -> None:
    broken = {"tool_description": "no name", "api_list": [api("x", "u", method="FETCH")]}
    (tools / "Data" / "broken.json").write_text(json.dumps(broken), encoding="utf-8")
    (tools / "Data" / "zz_bad_api.json").write_text(
        json.dumps(
            {
                "tool_name": "T",
                "api_list": [api("x", "u", method="FETCH"), api("y", "u", required_parameters=[{"type": "STRING"}])],
            }
        ),
        encoding="utf-8",
    )
    (tools / "Movies" / "notjson.json").write_text("{nope", encoding="utf-8")
    out = tmp_path / "w"
    code, stdout, err = squall("import", "toolbench", str(tools), "--out", str(out))
    assert code == 2 and stdout == "" and "Traceback" not in err and not out.exists()
    lines = [" ".join(line.split()) for line in err.strip().splitlines()]
    assert lines == [
        f"error: {tools}/Data/broken.json#/tool_name: 'tool_name' must be a non-empty string",
        f"error: {tools}/Data/broken.json#/api_list/0/method: 'method' must be one of GET, PUT, POST, DELETE, "
        "OPTIONS, HEAD, PATCH, TRACE",
        f"error: {tools}/Data/zz_bad_api.json#/api_list/0/method: 'method' must be one of GET, PUT, POST, DELETE, "
        "OPTIONS, HEAD, PATCH, TRACE",
        f"error: {tools}/Data/zz_bad_api.json#/api_list/1/required_parameters/0: a parameter must be an object with a "
        "non-empty 'name'",
        f"error: {tools}/Movies/notjson.json: invalid JSON: Expecting property name enclosed in double quotes "
        "(column 2)",
    ]


def test_bad_queries_are_listed(tools: Path, tmp_path: Path) -> None:
    items = [
        query(1, "ok", [["Movie DB", "Title Details"]]),
        query(1, "again", [["Movie DB", "Title Details"]]),
        {"query_id": 2, "query": "", "api_list": [], "relevant APIs": [["Movie DB", "Title Details"]]},
        {"query_id": 3, "query": "x", "api_list": [], "relevant APIs": [["Nobody", "Nothing"], "Movie DB"]},
    ]
    (tmp_path / "q.json").write_text(json.dumps(items), encoding="utf-8")
    out = tmp_path / "w"
    code, _, err = squall("import", "toolbench", str(tools), "--out", str(out), "--queries", str(tmp_path / "q.json"))
    assert code == 2 and not out.exists()
    lines = [" ".join(line.split()) for line in err.strip().splitlines()]
    where = f"error: {tmp_path}/q.json#"
    assert lines == [
        f"{where}/1/query_id: query_id '1' is also query #0's",
        f"{where}/2/query: 'query' must be a non-empty string",
        f"{where}/3/relevant APIs/0: no API 'Nothing' of tool 'Nobody' in the tool files or the query's api_list",
        f"{where}/3/relevant APIs/1: a relevant API must be a [tool_name, api_name] pair of strings",
    ]
