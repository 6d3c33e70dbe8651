"""`squall import openapi`: a real-world-sized document imports whole, its operations keep what the spec says, the
folder is the contract's, and bad input is listed problem by problem with nothing written."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.cli import squall, tree
from tests.worlds.simulated_import.specs import RESOURCES, large_spec, small_spec
from worlds.common.arguments import ArgumentChecker
from worlds.simulated.openapi_import import import_openapi, sanitise
from worlds.simulated.operations import ApiSpec


def write(path: Path, document: Any) -> Path:
    text = json.dumps(document) if path.suffix == ".json" else yaml.safe_dump(document, sort_keys=False)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ApiSpec]:
    root = tmp_path_factory.mktemp("large")
    spec = write(root / "inventory.json", large_spec())  # JSON: PyYAML's pure-Python parser takes seconds here
    out = root / "inventory"
    code, stdout, err = squall("import", "openapi", str(spec), "--out", str(out))
    assert code == 0, err
    assert f"{5 * RESOURCES + 1} operations" in stdout
    return out, ApiSpec.model_validate_json((out / "operations.json").read_text(encoding="utf-8"))


def test_a_large_document_becomes_a_world_folder(large: tuple[Path, ApiSpec]) -> None:
    out, api = large
    assert tree(out) == ["cache", "import_report.json", "operations.json", "tasks.jsonl", "world.toml"]
    report = json.loads((out / "import_report.json").read_text(encoding="utf-8"))
    assert report["skipped"] == [] and report["relaxed"] == [] and report["operations"] == len(api.operations)
    assert (out / "tasks.jsonl").read_text(encoding="utf-8") == ""  # no tasks yet
    config = tomllib.loads((out / "world.toml").read_text(encoding="utf-8"))
    assert config == {
        "kind": "simulated",
        "name": "inventory",
        "source": "openapi",
        "operations": "operations.json",
        "tasks": "tasks.jsonl",
        "cache": "cache",
    }
    assert (api.name, api.title, api.version, api.source) == ("inventory", "Inventory", "2.4.1", "openapi")
    assert len(api.operations) == 5 * RESOURCES + 1 >= 100
    assert '"$ref"' not in (out / "operations.json").read_text(encoding="utf-8")
    for operation in api.operations[::10]:  # schemas the world's argument checker compiles (a sample: it is slow)
        ArgumentChecker(dict(operation.parameters))
        assert set(operation.locations) == set(operation.parameters["properties"])


def test_operations_keep_names_arguments_and_locations(large: tuple[Path, ApiSpec]) -> None:
    _, api = large
    listing = api.operation("listItem3")
    assert listing is not None and listing.method == "get" and listing.path == "/items3"
    assert listing.locations == {"limit": "query", "q": "query"}
    assert listing.parameters["properties"]["limit"] == {
        "type": "integer",
        "maximum": 100,
        "description": "Page size",
        "examples": [20],
    }
    assert listing.summary == "List Item3s" and not listing.writes
    create = api.operation("createItem3")
    assert create is not None and create.writes
    assert create.locations == {"name": "body", "price": "body", "address": "body", "tags": "body", "parent": "body"}
    assert create.parameters["required"] == ["name"]
    assert create.parameters["additionalProperties"] is False
    geo = create.parameters["properties"]["address"]["properties"]["geo"]["properties"]["lat"]  # 4 references deep
    assert geo == {"type": "number", "exclusiveMinimum": -180, "maximum": 180}  # 3.0's boolean form converted
    assert create.parameters["properties"]["tags"]["items"] == {"type": ["string", "null"], "examples": ["urgent"]}
    parent = create.parameters["properties"]["parent"]["allOf"][0]  # Item3 -> NewItem3, already being expanded
    assert parent["x-squall-recursive"] == "#/components/schemas/NewItem3"  # the cycle cut at its second visit
    assert create.response_schema is not None and "allOf" in create.response_schema


def test_path_parameters_are_inherited_and_overridden(large: tuple[Path, ApiSpec]) -> None:
    _, api = large
    read = api.operation("get_items5_itemId")  # no operationId: method and path
    assert read is not None and read.locations == {"itemId": "path", "X-Tenant": "header"}
    assert read.parameters["required"] == ["itemId"]
    replace = api.operation("replaceItem5")
    assert replace is not None and replace.parameters["required"] == ["itemId", "X-Tenant", "name"]
    delete = api.operation("deleteItem5")
    assert delete is not None and delete.response_schema is None and delete.writes
    search = api.operation("search_everything")
    assert search is not None and not search.writes  # x-squall-writes overrides the method
    assert search.locations == {"body": "body"} and search.parameters["properties"]["body"] == {"type": "string"}


def test_the_spec_round_trips_through_json(large: tuple[Path, ApiSpec]) -> None:
    out, api = large
    again = ApiSpec.model_validate_json(api.model_dump_json())
    assert again == api
    assert again.stored() == json.loads((out / "operations.json").read_text(encoding="utf-8"))


def test_json_and_yaml_read_alike(tmp_path: Path) -> None:
    from_json = import_openapi(write(tmp_path / "pets.json", small_spec()), "pets")
    from_yaml = import_openapi(write(tmp_path / "pets.yaml", small_spec()), "pets")
    assert from_json.model_dump_json().replace("pets.json#", "pets.yaml#") == from_yaml.model_dump_json()


def test_examples_pair_request_and_response(tmp_path: Path) -> None:
    api = import_openapi(write(tmp_path / "pets.yaml", small_spec()), "pets")
    create = api.operation("createPet")
    assert create is not None and len(create.examples) == 1
    example = create.examples[0]
    assert example.arguments == {"name": "Rex"} and example.response == {"name": "Rex"}
    assert example.source == "pets.yaml#/paths/~1pets/post/responses/201/content/application~1json/example"
    assert create.source == "pets.yaml#/paths/~1pets/post"


def test_an_unpaired_example_stays_in_the_schema(tmp_path: Path) -> None:
    spec = small_spec()
    get = spec["paths"]["/pets/{petId}"]["get"]
    get["responses"]["200"]["content"]["application/json"]["example"] = {"name": "Tom"}  # petId has no example
    api = import_openapi(write(tmp_path / "pets.yaml", spec), "pets")
    show = api.operation("showPet")
    assert show is not None and show.examples == ()
    assert show.response_schema is not None and show.response_schema["examples"] == [{"name": "Tom"}]


@pytest.mark.parametrize(
    ("text", "name"),
    [("get /pets/{petId}", "get_pets_petId"), ("pets.list", "pets_list"), ("a" * 70, "a" * 64), ("..", "")],
)
def test_sanitise(text: str, name: str) -> None:
    assert sanitise(text) == name


def test_tasks_are_checked_and_written(tmp_path: Path) -> None:
    spec = write(tmp_path / "pets.yaml", small_spec())
    task = {
        "id": "t1",
        "world": "pets",
        "goals": [{"user": {"explicit": "Show pet 7"}, "gold": [{"name": "showPet", "arguments": {"petId": "7"}}]}],
    }
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps(task) + "\n", encoding="utf-8")
    out = tmp_path / "pets"
    code, _, err = squall("import", "openapi", str(spec), "--out", str(out), "--tasks", str(tasks))
    assert code == 0, err
    assert tomllib.loads((out / "world.toml").read_text(encoding="utf-8"))["tasks"] == "tasks.jsonl"
    assert json.loads((out / "tasks.jsonl").read_text(encoding="utf-8"))["id"] == "t1"


def test_bad_tasks_are_all_listed_and_nothing_is_written(tmp_path: Path) -> None:
    spec = write(tmp_path / "pets.yaml", small_spec())
    gold = [{"name": "showPet", "arguments": {"petId": 7}}, {"name": "adoptPet"}, {"name": "listPets"}]
    task = {"id": "t1", "world": "zoo", "goals": [{"user": {"explicit": "x"}, "gold": gold}]}
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps(task) + "\n", encoding="utf-8")
    out = tmp_path / "pets"
    code, _, err = squall("import", "openapi", str(spec), "--out", str(out), "--tasks", str(tasks))
    assert code == 2 and "Traceback" not in err and not out.exists()
    lines = err.strip().splitlines()
    assert len(lines) == 3 and all(line.startswith("error:") for line in lines)
    assert "world 'zoo' is not this world's name 'pets'" in lines[0]
    assert "goals.0.gold.0: showPet: 7 is not of type 'string'" in lines[1]
    assert "goals.0.gold.1: no operation named 'adoptPet'" in lines[2]


def test_every_problem_is_listed_with_its_pointer(tmp_path: Path) -> None:
    spec = small_spec()
    spec["paths"]["/pets"]["get"]["parameters"].append({"name": "x", "in": "body", "schema": {"type": "string"}})
    spec["paths"]["/pets"]["get"]["parameters"].append({"name": "y", "in": "query", "schema": {"type": "strin"}})
    spec["paths"]["/pets/{petId}"]["get"]["operationId"] = "listPets"
    spec["components"]["schemas"]["Pet"]["properties"]["owner"] = {"$ref": "#/components/schemas/Owner"}
    path = write(tmp_path / "api.yaml", spec)
    out = tmp_path / "w"
    code, stdout, err = squall("import", "openapi", str(path), "--out", str(out), "--strict")
    assert code == 2 and not out.exists() and stdout == "" and "Traceback" not in err
    lines = [" ".join(line.split()) for line in err.strip().splitlines()]
    where = str(path)
    assert f"error: {where}#/paths/~1pets/get/parameters/1/in: 'in' must be one of path, query, header, cookie" in lines
    assert any(
        line.startswith(f"error: {where}#/paths/~1pets/get/parameters/2/schema: not a valid schema") for line in lines
    )
    assert (
        f"error: {where}#/components/schemas/Pet/properties/owner/$ref: $ref '#/components/schemas/Owner' does not "
        "resolve: no 'Owner' in #/components/schemas" in lines
    )
    assert (
        f"error: {where}#/paths/~1pets~1{{petId}}/get/operationId: 'listPets' is also the operationId of "
        "#/paths/~1pets/get" in lines
    )
    assert len(lines) == 4  # the dangling reference once, though three operations use Pet


def test_an_existing_folder_is_kept_unless_forced(tmp_path: Path) -> None:
    spec = write(tmp_path / "pets.yaml", small_spec())
    out = tmp_path / "pets"
    out.mkdir()
    (out / "mine.txt").write_text("keep", encoding="utf-8")
    code, _, err = squall("import", "openapi", str(spec), "--out", str(out))
    assert code == 2 and "already exists" in err and tree(out) == ["mine.txt"]
    code, _, err = squall("import", "openapi", str(spec), "--out", str(out), "--force", "--name", "zoo")
    assert code == 0, err
    assert tree(out) == ["cache", "import_report.json", "operations.json", "tasks.jsonl", "world.toml"]
    assert ApiSpec.model_validate_json((out / "operations.json").read_text(encoding="utf-8")).name == "zoo"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no staging folder left


@pytest.mark.parametrize(
    ("document", "needle"),
    [
        ({"swagger": "2.0", "paths": {}}, "#/swagger: Swagger 2.0 is not supported"),
        ({"openapi": "3.2.0", "paths": {"/a": {"get": {}}}}, "#/openapi: 'openapi' must be a 3.0.x or 3.1.x"),
        ({"openapi": "3.1.0", "paths": {}}, "#/paths: 'paths' must be an object with at least one path"),
        ({"openapi": "3.1.0", "paths": {"/a": {"summary": "x"}}}, "#/paths: no operations"),
        ([1, 2], "an OpenAPI document must be an object"),
    ],
)
def test_documents_that_are_not_openapi_3(tmp_path: Path, document: Any, needle: str) -> None:
    out = tmp_path / "w"
    code, _, err = squall("import", "openapi", str(write(tmp_path / "a.json", document)), "--out", str(out))
    assert code == 2 and needle in err and not out.exists()


def test_a_self_referencing_ref_chain_is_an_error_not_a_hang(tmp_path: Path) -> None:
    spec = small_spec()
    spec["components"]["parameters"] = {
        "A": {"$ref": "#/components/parameters/B"},
        "B": {"$ref": "#/components/parameters/A"},
    }
    spec["paths"]["/pets"]["get"]["parameters"] = [{"$ref": "#/components/parameters/A"}]
    out = tmp_path / "w"
    code, _, err = squall("import", "openapi", str(write(tmp_path / "a.yaml", spec)), "--out", str(out), "--strict")
    assert code == 2 and "refers to itself through other references" in err and not out.exists()


def test_a_key_given_twice_is_refused(tmp_path: Path) -> None:
    text = (
        "openapi: 3.1.0\ninfo: {title: x, version: '1'}\npaths:\n  /a:\n    get: {}\n    get: {}\n  /a:\n    post: {}\n"
    )
    path = tmp_path / "api.yaml"
    path.write_text(text, encoding="utf-8")
    code, _, err = squall("import", "openapi", str(path), "--out", str(tmp_path / "w"))
    assert code == 2 and not (tmp_path / "w").exists()
    assert [" ".join(line.split()) for line in err.strip().splitlines()] == [
        f"error: {path}#/paths/~1a: key 'get' appears twice (lines 5 and 6)",
        f"error: {path}#/paths: key '/a' appears twice (lines 4 and 7)",
    ]


def test_a_key_given_twice_in_json_is_refused_too(tmp_path: Path) -> None:
    path = tmp_path / "api.json"  # JSON is checked by its parser first, and read as YAML only for the lines
    path.write_text('{"openapi": "3.1.0", "info": {"title": "x", "version": "1"},\n"paths": {"/a": {"get": {},\n'
                    '"get": {}}}}', encoding="utf-8")  # fmt: skip
    code, _, err = squall("import", "openapi", str(path), "--out", str(tmp_path / "w"))
    assert code == 2 and " ".join(err.split()) == f"error: {path}#/paths/~1a: key 'get' appears twice (lines 2 and 3)"


def test_problems_past_the_cap_are_counted(tmp_path: Path) -> None:
    spec = small_spec()
    spec["paths"]["/pets"]["get"]["parameters"] = [{"name": f"p{i}", "in": "body"} for i in range(60)]
    out = tmp_path / "w"
    code, _, err = squall("import", "openapi", str(write(tmp_path / "a.json", spec)), "--out", str(out), "--strict")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 51 and lines[-1].endswith("… and 10 more")


def test_named_examples_pair_by_name_and_cookies_are_arguments(tmp_path: Path) -> None:
    spec = small_spec()
    post = spec["paths"]["/pets"]["post"]
    post["parameters"] = [
        {"name": "session", "in": "cookie", "required": True, "schema": {"type": "string"}, "example": "s1"}
    ]
    post["requestBody"]["content"]["application/json"]["examples"] = {"cat": {"value": {"name": "Tom"}}}
    response = post["responses"]["201"]["content"]["application/json"]
    response["examples"] = {"cat": {"value": {"name": "Tom", "id": 2}}}
    api = import_openapi(write(tmp_path / "pets.yaml", spec), "pets")
    create = api.operation("createPet")
    assert create is not None and create.locations == {"session": "cookie", "name": "body"}
    by_source = {example.source.rsplit("/", 1)[-1]: example for example in create.examples}
    assert by_source["example"].arguments == {"session": "s1", "name": "Rex"}
    assert by_source["cat"].arguments == {"session": "s1", "name": "Tom"}
    assert by_source["cat"].response == {"name": "Tom", "id": 2}


def doubling_spec() -> dict[str, Any]:
    """The small spec with Pet holding a tree of references used twice per level: 2^20 values expanded."""
    schemas = {
        f"S{i}": {
            "type": "object",
            "properties": {
                "a": {"$ref": f"#/components/schemas/S{i + 1}"},
                "b": {"$ref": f"#/components/schemas/S{i + 1}"},
            },
        }
        for i in range(20)
    }
    schemas["S20"] = {"type": "string"}
    spec = small_spec()
    spec["components"]["schemas"].update(schemas)
    spec["components"]["schemas"]["Pet"]["properties"]["tree"] = {"$ref": "#/components/schemas/S0"}
    return spec


def test_a_schema_too_big_to_expand_shares_its_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("worlds.simulated.refs.MAX_EXPANDED_NODES", 2_000)  # 2^20 values; the real limit is slow
    out = tmp_path / "w"
    code, _, err = squall("import", "openapi", str(write(tmp_path / "a.json", doubling_spec())), "--out", str(out))
    assert code == 0, err
    api = ApiSpec.model_validate_json((out / "operations.json").read_text(encoding="utf-8"))
    create = api.operation("createPet")
    assert create is not None
    tree_ = create.parameters["properties"]["tree"]
    assert tree_ == {"$ref": "#/$defs/S0"}  # each part once, by reference, instead of 2^20 values
    assert sorted(create.parameters["$defs"]) == sorted(f"S{i}" for i in range(21))
    checker = ArgumentChecker(dict(create.parameters))
    assert checker.problems({"name": "Rex", "tree": {"a": {"b": {}}}}) is None
    assert checker.problems({"name": "Rex", "tree": {"a": {"b": 5}}}) is not None  # S2 is an object
    listing = api.operation("listPets")  # the response schema's own $defs
    assert listing is not None and listing.response_schema is not None
    assert listing.response_schema["items"] == {"$ref": "#/$defs/Pet"}
    assert listing.response_schema["$defs"]["Pet"]["properties"]["tree"] == {"$ref": "#/$defs/S0"}
    assert "S20" in listing.response_schema["$defs"]


def test_an_operation_too_big_even_shared_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("worlds.simulated.refs.MAX_EXPANDED_NODES", 60)
    monkeypatch.setattr("worlds.simulated.refs.MAX_SHARED_NODES", 60)  # under the 21 shared parts' size
    spec = doubling_spec()
    spec["paths"]["/health"] = {"get": {"operationId": "health", "responses": {"200": {"description": "ok"}}}}
    out = tmp_path / "w"
    code, stdout, err = squall("import", "openapi", str(write(tmp_path / "a.json", spec)), "--out", str(out))
    assert code == 0, err
    api = ApiSpec.model_validate_json((out / "operations.json").read_text(encoding="utf-8"))
    assert [operation.name for operation in api.operations] == ["health"]  # the only one not using Pet
    assert "1 operations (0 writes); 3 skipped" in stdout
    assert "warning: skipped get /pets (a.json#/paths/~1pets/get): " in " ".join(err.split())
    assert "expanding the $refs gives over 60 values; with its parts shared as $defs, over 60 values; refused" in err
    report = json.loads((out / "import_report.json").read_text(encoding="utf-8"))
    assert [skip["source"] for skip in report["skipped"]] == [
        "a.json#/paths/~1pets/get",
        "a.json#/paths/~1pets/post",
        "a.json#/paths/~1pets~1{petId}/get",
    ]
    strict = tmp_path / "strict"
    code, _, err = squall("import", "openapi", str(write(tmp_path / "a.json", spec)), "--out", str(strict), "--strict")
    assert code == 2 and "expanding the $refs gives over 60 values" in err and not strict.exists()


def test_a_dangling_reference_is_one_problem_wherever_it_stands(tmp_path: Path) -> None:
    nope = "#/components/{}/Nope"
    spec = {
        "openapi": "3.0.0",
        "info": {"title": "x", "version": "1"},
        "paths": {
            "/a": {
                "get": {
                    "parameters": [{"$ref": nope.format("parameters")}],
                    "requestBody": {"$ref": nope.format("requestBodies")},
                    "responses": {"200": {"$ref": nope.format("responses")}},
                }
            },
            "/b": {"$ref": nope.format("pathItems")},
        },
    }
    code, _, err = squall("import", "openapi", str(write(tmp_path / "a.json", spec)), "--out", str(tmp_path / "w"))
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 4 and all("does not resolve" in line for line in lines)
