"""An OpenAPI 3.0/3.1 document (JSON or YAML) as an ``ApiSpec``: one operation per path and method.

Names: the ``operationId`` sanitised to ``[A-Za-z0-9_-]`` (64 characters at most), or ``<method>_<path>``
(``get_pets_petId``) where there is none; two operations whose names sanitise alike get ``_2``, ``_3``. Arguments:
``openapi_params``. Response and examples: ``openapi_responses``. ``writes``: the operation's ``x-squall-writes``
(true/false) where given, else whether the method is a write (``WRITE_METHODS``).

Real specs are large and rarely spotless (Stripe's, OpenAI's), so a problem costs only its operation: an operation
(or path item) with any problem is skipped, its problems kept with their pointers (``OpenApiImport.skipped``), and
the rest imported; obvious schema slips are relaxed and noted (``refs``). ``strict=True`` refuses the document
instead, every problem and relaxation listed (``SpecError``), as does a problem with the document itself or an
import where every operation was skipped. Webhooks and callbacks (requests the service sends, not tools an agent
calls) are counted, not imported: a 3.1 document of webhooks only imports as no operations. A ``Selection``
(``--include``/``--exclude``: ``worlds.simulated.selection``) keeps some operations only; the rest are not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from worlds.simulated.openapi_operation import MAX_NAME, SharedSchemas, build_operation, sanitise, source_of
from worlds.simulated.operations import ApiOperation, ApiSpec
from worlds.simulated.problems import Problems, extend, pointer
from worlds.simulated.ref_files import RefFiles, split_where
from worlds.simulated.refs import RefResolver
from worlds.simulated.selection import Selection
from worlds.simulated.spec_files import load_document

__all__ = ["METHODS", "OpenApiImport", "import_openapi", "read_openapi", "sanitise"]

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


@dataclass(frozen=True)
class Skipped:
    """An operation (or a whole path item) left out, and why: problem lines naming file and pointer."""

    source: str
    operation: str
    problems: tuple[str, ...]


@dataclass
class OpenApiImport:
    """What an import made of a document: the operations, and what it left out or changed."""

    api: ApiSpec
    skipped: list[Skipped] = field(default_factory=list)
    relaxed: list[str] = field(default_factory=list)
    webhooks: int = 0
    callbacks: list[str] = field(default_factory=list)
    """Each callback's place (``api.yaml#/paths/~1subscribe/post/callbacks/onEvent``)."""
    files: list[str] = field(default_factory=list)
    """Other files of the spec its references were read from, relative to its folder."""
    selection: Selection = field(default_factory=Selection)
    left_out: int = 0
    """Operations ``selection`` (--include/--exclude) left out."""

    def report(self) -> dict[str, Any]:
        """The import report (import_report.json)."""
        return {
            "source": "openapi",
            "operations": len(self.api.operations),
            "skipped": [
                {"operation": skip.operation, "source": skip.source, "problems": list(skip.problems)}
                for skip in self.skipped
            ],
            "relaxed": self.relaxed,
            "webhooks_not_imported": self.webhooks,
            "callbacks_not_imported": self.callbacks,
            "files": self.files,
            **(
                {
                    "include": list(self.selection.include),
                    "exclude": list(self.selection.exclude),
                    "left_out_by_selection": self.left_out,
                }
                if self.selection.active
                else {}
            ),
        }


def import_openapi(path: Path, world: str) -> ApiSpec:
    """The operations of the document at ``path``, strictly. Raises SpecError listing every problem."""
    return read_openapi(path, world, strict=True).api


def read_openapi(path: Path, world: str, strict: bool = False, selection: Selection | None = None) -> OpenApiImport:
    """The import of the document at ``path`` (see the module's doc), of the operations ``selection`` keeps (all
    without one). Raises SpecError, also naming a selector that matched no operation."""
    path = Path(path)
    document = load_document(path)
    problems = Problems(str(path))
    if not isinstance(document, dict):
        problems.add("", "an OpenAPI document must be an object (with 'openapi', 'info' and 'paths')")
        problems.raise_if_any()
    _check_version(document, problems)
    info = document.get("info") if isinstance(document.get("info"), dict) else {}
    webhooks = document.get("webhooks")
    hooks = len(webhooks) if isinstance(webhooks, dict) else 0
    paths = document.get("paths", {} if hooks else None)  # 3.1: a document of webhooks needs no paths
    if not isinstance(paths, dict) or not (paths or hooks):
        problems.add(pointer("paths"), "'paths' must be an object with at least one path")
    problems.raise_if_any()
    assert isinstance(paths, dict)
    files = RefFiles(path, document)
    resolver = RefResolver(document, problems, files)
    shared_schemas = SharedSchemas(resolver)
    used: set[str] = set()
    selection = selection or Selection()
    result = OpenApiImport(ApiSpec(name=world, source="openapi", operations=()), webhooks=hooks, selection=selection)
    operations: list[ApiOperation] = []
    seen_ids: dict[str, str] = {}
    for raw_path, raw_item in paths.items():
        item_problems, notes = Problems(str(path)), Problems(str(path))
        resolver.begin(item_problems, notes)
        item_where = pointer("paths", raw_path)
        item = _path_item(resolver, raw_path, raw_item, item_where)
        if item is None:
            result.skipped.append(Skipped(source_of(path, item_where), raw_path, tuple(item_problems.lines)))
            continue
        item_value, resolved_where = item
        shared = (item_value.get("parameters"), extend(resolved_where, "parameters"))
        for method in METHODS:
            if method not in item_value:
                continue
            where = extend(resolved_where, method)
            op_problems, notes = Problems(str(path)), Problems(str(path))
            resolver.begin(op_problems, notes)
            raw = item_value[method]
            if selection.active and not _selected(selection, raw_path, method, raw):
                result.left_out += 1
                continue
            operation = None
            if _operation_id_ok(raw, where, seen_ids, op_problems):
                operation = build_operation(shared_schemas, op_problems, path, raw_path, method, raw, where, shared)
                result.callbacks.extend(_callbacks(path, raw, where))
            result.relaxed.extend(notes.lines)
            if operation is None:
                result.skipped.append(Skipped(source_of(path, where), f"{method} {raw_path}", tuple(op_problems.lines)))
            else:
                operations.append(operation)
                used |= resolver.used
    result.files = files.labels
    result.relaxed = list(dict.fromkeys(result.relaxed))  # a shared component's slip, once
    for line in selection.unmatched():
        problems.add(pointer("paths"), line)
    if selection.active and not operations and not result.skipped and not problems:
        problems.add(pointer("paths"), "--include/--exclude left no operations")
    if strict or not operations:
        for line in [*(line for s in result.skipped for line in s.problems), *(result.relaxed if strict else [])]:
            problems.add_line(line)
    if not operations and not problems and not hooks:
        problems.add(pointer("paths"), "no operations: no path has get, put, post, delete, patch, ... under it")
    problems.raise_if_any()
    title, version = str(info.get("title", "")), str(info.get("version", ""))
    schemas = {name: shared_schemas.schemas[name] for name in sorted(used)}
    result.api = ApiSpec(
        name=world,
        title=title,
        version=version,
        source="openapi",
        operations=tuple(_unique_names(operations)),
        schemas=schemas,
    )
    return result


def _selected(selection: Selection, raw_path: str, method: str, raw: Any) -> bool:
    """Whether ``selection`` keeps the operation ``raw`` (an operation that is not an object is kept, to be
    reported as the problem it is)."""
    if not isinstance(raw, dict):
        return True
    op_id = raw.get("operationId")
    ids = [op_id, sanitise(op_id)] if isinstance(op_id, str) else [sanitise(f"{method}_{raw_path}")]
    tags = raw.get("tags")
    return selection.keeps(
        raw_path, ids, [tag for tag in tags if isinstance(tag, str)] if isinstance(tags, list) else []
    )


def _check_version(document: dict[str, Any], problems: Problems) -> None:
    if "swagger" in document:
        problems.add(pointer("swagger"), "Swagger 2.0 is not supported: convert the document to OpenAPI 3 first")
        return
    version = document.get("openapi")
    if not isinstance(version, str) or not re.fullmatch(r"3\.[01](\.\d+)?(-.*)?", version):
        problems.add(pointer("openapi"), "'openapi' must be a 3.0.x or 3.1.x version string, such as \"3.1.0\"")


def _path_item(resolver: RefResolver, raw_path: str, raw: Any, where: str) -> tuple[dict[str, Any], str] | None:
    """The path item (its reference followed) and its place; None with a problem in the resolver's scope."""
    if not raw_path.startswith("/"):
        resolver.problems.add(where, "a path must start with '/'")
        return None
    item, resolved_where = resolver.deref(raw, where)
    if item is None:
        return None
    if not isinstance(item, dict):
        resolver.problems.add(where, "a path item must be an object")
        return None
    return item, resolved_where


def _operation_id_ok(raw: Any, where: str, seen_ids: dict[str, str], problems: Problems) -> bool:
    if not isinstance(raw, dict):
        problems.add(where, "an operation must be an object")
        return False
    op_id = raw.get("operationId")
    if op_id is not None and (not isinstance(op_id, str) or not op_id):
        problems.add(extend(where, "operationId"), "'operationId' must be a non-empty string")
        return False
    if isinstance(op_id, str):
        if op_id in seen_ids:
            problems.add(extend(where, "operationId"), f"'{op_id}' is also the operationId of {seen_ids[op_id]}")
            return False
        label, at = split_where(where)
        seen_ids[op_id] = f"{label}#{at}"
    return True


def _callbacks(file: Path, raw: dict[str, Any], where: str) -> list[str]:
    callbacks = raw.get("callbacks")
    if not isinstance(callbacks, dict):
        return []
    return [source_of(file, extend(where, "callbacks", name)) for name in callbacks]


def _unique_names(operations: list[ApiOperation]) -> list[ApiOperation]:
    """Names that sanitise alike (``pets.list`` and ``pets_list``) made unique with a suffix, spec order."""
    taken: set[str] = set()
    unique: list[ApiOperation] = []
    for operation in operations:
        name, number = operation.name, 2
        while name in taken:
            tail = f"_{number}"
            name = operation.name[: MAX_NAME - len(tail)] + tail
            number += 1
        taken.add(name)
        unique.append(operation if name == operation.name else operation.model_copy(update={"name": name}))
    return unique
