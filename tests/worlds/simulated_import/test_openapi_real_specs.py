"""What real services publish imports: a slip costs only its operation (skipped with a warning naming the pointer,
listed in import_report.json; --strict refuses), obvious schema slips are relaxed, a document whose expansion is
large in all but small per operation imports whole, a large YAML without aliases imports, a spec split over files
in its folder is read (a path out of it or a URL refused), and webhooks and callbacks are counted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from sim.core import structured
from tests.support.cli import squall
from tests.worlds.simulated_import.specs import small_spec
from worlds.simulated.operations import ApiSpec


def write(path: Path, document: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(document) if path.suffix == ".json" else yaml.safe_dump(document, sort_keys=False)
    path.write_text(text, encoding="utf-8")
    return path


def imported(out: Path) -> tuple[ApiSpec, dict[str, Any]]:
    api = ApiSpec.model_validate_json((out / "operations.json").read_text(encoding="utf-8"))
    return api, json.loads((out / "import_report.json").read_text(encoding="utf-8"))


def one_line(text: str) -> str:
    return " ".join(text.split())


def test_a_slip_in_one_operation_skips_it_only(tmp_path: Path) -> None:
    spec = small_spec()
    spec["paths"]["/pets"]["get"]["parameters"][0]["schema"] = {"type": "strin"}
    path, out = write(tmp_path / "api.json", spec), tmp_path / "w"
    code, stdout, err = squall("import", "openapi", str(path), "--out", str(out))
    assert code == 0, err
    api, report = imported(out)
    assert [operation.name for operation in api.operations] == ["createPet", "showPet"]
    assert "2 operations (1 writes); 1 skipped" in stdout
    where = "api.json#/paths/~1pets/get"
    assert f"warning: skipped get /pets ({where}): {path}#/paths/~1pets/get/parameters/0/schema: not a valid" in (
        one_line(err)
    )
    assert [skip["source"] for skip in report["skipped"]] == [where]
    assert "/parameters/0/schema: not a valid schema" in report["skipped"][0]["problems"][0]
    strict = tmp_path / "strict"
    code, _, err = squall("import", "openapi", str(path), "--out", str(strict), "--strict")
    assert code == 2 and not strict.exists() and "/parameters/0/schema: not a valid schema" in err


def test_obvious_schema_slips_are_relaxed_and_noted(tmp_path: Path) -> None:
    spec = small_spec()
    pet = spec["components"]["schemas"]["Pet"]
    pet["required"] = ["name", "name"]  # OpenAI's spec lists some names twice
    pet["properties"]["tag"] = {"type": "string", "required": True}  # draft 3's form (Spotify's spec)
    pet["$recursiveAnchor"] = True  # 2019-09's form (OpenAI's spec)
    path, out = write(tmp_path / "api.json", spec), tmp_path / "w"
    code, _, err = squall("import", "openapi", str(path), "--out", str(out))
    assert code == 0, err
    api, report = imported(out)
    assert len(api.operations) == 3
    create = api.operation("createPet")
    assert create is not None and create.parameters["required"] == ["name"]
    assert create.parameters["properties"]["tag"] == {"type": "string"}
    pet_at = f"{path}#/components/schemas/Pet"
    assert report["relaxed"] == [
        f"{pet_at}/required: 'required' lists name more than once",
        f"{pet_at}/$recursiveAnchor: 2019-09's boolean '$recursiveAnchor' dropped",
        f"{pet_at}/properties/tag/required: 'required: true' inside a schema dropped",
    ]
    assert all(f"warning: relaxed: {line}" in one_line(err) for line in report["relaxed"])
    strict = tmp_path / "strict"
    code, _, err = squall("import", "openapi", str(path), "--out", str(strict), "--strict")
    assert code == 2 and f"{pet_at}/required: 'required' lists name more than once" in one_line(err)


def test_the_bound_is_per_operation_not_per_document(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("worlds.simulated.refs.MAX_EXPANDED_NODES", 300)
    spec = small_spec()
    fields = {f"f{i}": {"$ref": "#/components/schemas/Field"} for i in range(20)}
    spec["components"]["schemas"]["Field"] = {"type": "object", "properties": {"v": {"type": "string"}}}
    for index in range(40):  # 40 operations of ~100 values each: 4,000 in all, over the bound
        spec["components"]["schemas"][f"R{index}"] = {"type": "object", "properties": fields}
        body = {"content": {"application/json": {"schema": {"$ref": f"#/components/schemas/R{index}"}}}}
        spec["paths"][f"/r{index}"] = {"post": {"operationId": f"r{index}", "requestBody": body}}
    out = tmp_path / "w"
    code, _, err = squall("import", "openapi", str(write(tmp_path / "api.json", spec)), "--out", str(out))
    assert code == 0, err
    api, report = imported(out)
    assert len(api.operations) == 43 and report["skipped"] == []
    r7 = api.operation("r7")
    assert r7 is not None and r7.parameters["properties"]["f3"]["properties"]["v"] == {"type": "string"}


def test_a_large_yaml_spec_without_aliases_imports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Once refused as "aliases expand to more than 100,000 nodes": a spec past the bound must import. Its size
    # relative to the bound is what is tested, so the bound is lowered (150,000 nodes take seconds to parse).
    monkeypatch.setattr(structured, "MAX_YAML_NODES", 1_000)
    spec = small_spec()
    path = write(tmp_path / "api.yaml", spec)
    count = 1_500
    assert count > structured.MAX_YAML_NODES
    path.write_text(path.read_text(encoding="utf-8") + "x-data: [" + ",".join(["0"] * count) + "]\n")
    code, stdout, err = squall("import", "openapi", str(path), "--out", str(tmp_path / "w"))
    assert code == 0, err
    assert "3 operations" in stdout


def split_spec(root: Path) -> Path:
    """api.yaml whose paths and schemas live in files beside it, named relative to the file that names them."""
    spec = small_spec()
    del spec["components"]
    pets = spec["paths"]["/pets"]
    write(root / "paths" / "pets.yaml", pets)
    spec["paths"]["/pets"] = {"$ref": "paths/pets.yaml"}
    for operation in (pets["get"], pets["post"]):
        for media in [*operation.get("requestBody", {}).get("content", {}).values()] + [
            media for response in operation["responses"].values() for media in response["content"].values()
        ]:
            if "$ref" in media["schema"]:
                media["schema"] = {"$ref": "../schemas/pet.yaml#/Pet"}
            else:
                media["schema"]["items"] = {"$ref": "../schemas/pet.yaml#/Pet"}
    write(root / "paths" / "pets.yaml", pets)
    owner = {"type": "object", "properties": {"email": {"type": "string"}}}
    pet = {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}
    pet["properties"]["owner"] = {"$ref": "#/Owner"}  # local to pet.yaml
    write(root / "schemas" / "pet.yaml", {"Pet": pet, "Owner": owner})
    shown = spec["paths"]["/pets/{petId}"]["get"]["responses"]["200"]["content"]["application/json"]
    shown["schema"] = {"$ref": "schemas/pet.yaml#/Pet"}
    return write(root / "api.yaml", spec)


def test_a_split_spec_reads_the_files_beside_it(tmp_path: Path) -> None:
    path, out = split_spec(tmp_path / "spec"), tmp_path / "w"
    code, _, err = squall("import", "openapi", str(path), "--out", str(out))
    assert code == 0, err
    api, report = imported(out)
    assert report["skipped"] == [] and sorted(report["files"]) == ["paths/pets.yaml", "schemas/pet.yaml"]
    create, show = api.operation("createPet"), api.operation("showPet")
    assert create is not None and show is not None
    assert create.parameters["properties"]["owner"]["properties"]["email"] == {"type": "string"}
    assert create.parameters["required"] == ["name"]
    assert create.source == "paths/pets.yaml#/post"  # where it is defined
    assert show.response_schema is not None and show.response_schema["properties"]["owner"]["type"] == "object"


@pytest.mark.parametrize(
    ("ref", "reason"),
    [
        ("../../outside.yaml#/Pet", "leaves the spec's folder: only files in it are read"),
        ("https://example.com/pet.yaml#/Pet", "remote references are not fetched"),
        ("missing.yaml#/Pet", "cannot be read"),
    ],
)
def test_a_reference_out_of_the_folder_is_refused(tmp_path: Path, ref: str, reason: str) -> None:
    path = split_spec(tmp_path / "spec")
    write(tmp_path / "outside.yaml", {"Pet": {"type": "object"}})
    pets = yaml.safe_load((path.parent / "paths" / "pets.yaml").read_text(encoding="utf-8"))
    pets["post"]["requestBody"]["content"]["application/json"]["schema"] = {"$ref": ref}
    write(path.parent / "paths" / "pets.yaml", pets)
    out = tmp_path / "w"
    code, _, err = squall("import", "openapi", str(path), "--out", str(out))
    assert code == 0, err
    api, report = imported(out)
    assert api.operation("createPet") is None and len(api.operations) == 2
    (skip,) = report["skipped"]
    assert skip["source"] == "paths/pets.yaml#/post"
    place = f"{path.parent / 'paths' / 'pets.yaml'}#/post/requestBody/content/application~1json/schema/$ref"
    assert skip["problems"][0].startswith(f"{place}: $ref '{ref}' is refused: {reason}")
    code, _, err = squall("import", "openapi", str(path), "--out", str(tmp_path / "s"), "--strict")
    assert code == 2 and reason in one_line(err)


def test_a_webhook_only_document_imports_nothing_without_error(tmp_path: Path) -> None:
    hook = {"post": {"requestBody": {"content": {"application/json": {"schema": {"type": "object"}}}}}}
    spec = {"openapi": "3.1.0", "info": {"title": "Hooks", "version": "1"}, "webhooks": {"newPet": hook, "gone": hook}}
    out = tmp_path / "w"
    code, stdout, err = squall("import", "openapi", str(write(tmp_path / "api.json", spec)), "--out", str(out))
    assert code == 0, err
    assert f"{out}: 0 operations; 2 webhooks not imported" in stdout
    api, report = imported(out)
    assert api.operations == () and report["webhooks_not_imported"] == 2


def test_callbacks_and_webhooks_beside_paths_are_counted(tmp_path: Path) -> None:
    spec = small_spec()
    spec["webhooks"] = {"newPet": {"post": {}}}
    spec["paths"]["/pets"]["post"]["callbacks"] = {"onAdopted": {"{$request.body#/url}": {"post": {}}}}
    out = tmp_path / "w"
    code, stdout, err = squall("import", "openapi", str(write(tmp_path / "api.json", spec)), "--out", str(out))
    assert code == 0, err
    assert "3 operations (1 writes); 1 webhooks not imported; 1 callbacks not imported" in stdout
    _, report = imported(out)
    assert report["callbacks_not_imported"] == ["api.json#/paths/~1pets/post/callbacks/onAdopted"]
