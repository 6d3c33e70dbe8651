"""The toolkits ``tool_search_recall.py`` measures: synthetic and Spider-derived, plain or obfuscated, cut to a size.

A toolkit is its tools and its queries: (request, gold tools, core tools) per turn with gold calls.

- ``synthetic``: multidomain's tools and tasks; every other built-in world's tools; related-but-different templated
  neighbours of all of them (hard distractors, ``worlds.stressors.expand.templates``); generated tools of unrelated
  business domains (easy distractors). 4,434 tools before the cut.
- ``spider``: a Spider-layout folder imported twice, per question (its tasks are the queries: each question's own
  functions are its gold) and in the SEL style (per-table selectors, getters and sorts over the same databases), plus
  the templated neighbours of the per-question functions. 5,144 tools from the Spider sample's dev set.

``obfuscated``: Spider's own ``--obfuscate`` (``function_<n>``, Greek arguments, descriptions naming no table or
column); every tool not named so yet (neighbours, synthetic tools) renamed the same way, its description kept.
``cut``: the gold tools of every query plus distractors drawn by a seeded shuffle, ``size`` in all.

Each builder also returns every tool's ``Origin`` (``tool_search_misses.py``): what made it, its database or domain,
the original a neighbour was written from, the tables a Spider function reads. The misses are classified by it.
"""

from __future__ import annotations

import random
import re
import tempfile
from itertools import product
from pathlib import Path

from tool_search_misses import Origin

from sim.core import Task, ToolSpec
from worlds.registry import known_worlds, load_world
from worlds.stressors.expand.templates import templated_candidates

Query = tuple[str, set[str], set[str]]
Origins = dict[str, Origin]
Built = tuple[list[ToolSpec], list[Query], Origins]
_OBJECTS = (
    *("invoice", "payment", "refund", "customer", "supplier", "purchase_order", "shipment", "warehouse"),
    *("inventory", "product_sku", "employee", "payroll", "timesheet", "expense_report", "budget", "ledger_entry"),
    *("tax_filing", "contract", "lease", "vendor", "ticket", "incident", "deployment", "server", "container"),
    *("database_backup", "dns_record", "ssl_certificate", "api_key", "user_account", "role", "permission"),
    *("audit_log", "compliance_report", "lab_result", "patient_record", "prescription", "insurance_claim"),
    *("course", "enrollment", "grade", "library_loan", "parking_permit", "fleet_vehicle", "maintenance_job"),
    *("work_order", "crop_yield", "irrigation_zone", "fishing_license", "court_case", "legal_hold", "patent"),
    *("trademark", "grant_application", "donation", "volunteer_shift"),
)
_VERBS = (
    ("create", "Create a new {o}."),
    ("get", "Get one {o} by its id."),
    ("list", "List {o}s, newest first, with optional filters."),
    ("update", "Change fields of an existing {o}."),
    ("delete", "Delete a {o} permanently."),
    ("archive", "Archive a {o} so it no longer shows in listings."),
    ("approve", "Approve a pending {o}."),
    ("export", "Export {o}s as a CSV file."),
    ("search", "Search {o}s by free text."),
    ("assign", "Assign a {o} to a person or team."),
    ("count", "Count {o}s matching the filters."),
    ("audit", "Show the change history of a {o}."),
)
_SCOPES = ("", "regional", "internal", "partner", "archived")
_GREEK = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu")
_OBFUSCATED = re.compile(r"function_\d+")
_TABLE = re.compile(r"\b(?:FROM|JOIN)\s+[\"`\[]?(\w+)", re.IGNORECASE)


def generated_tools() -> list[ToolSpec]:
    """Tools of unrelated business domains, ``verb_[scope_]object``: 56 objects x 12 verbs x 5 scopes."""
    out = []
    for (verb, text), noun, scope in product(_VERBS, _OBJECTS, _SCOPES):
        words = noun.replace("_", " ")
        name = "_".join(p for p in (verb, scope, noun) if p)
        description = text.format(o=f"{scope} {words}".strip()) + (f" Only {scope} records." if scope else "")
        properties = {f"{noun}_id": {"type": "string"}} if verb not in ("create", "list", "search", "count") else {}
        out.append(
            ToolSpec(name=name, description=description, parameters={"type": "object", "properties": properties})
        )
    return out


def with_neighbours(specs: list[ToolSpec], origins: Origins) -> list[ToolSpec]:
    """``specs`` and their templated neighbours; each neighbour's origin (its source's group and tables) added."""
    candidates = templated_candidates(specs, [s.name for s in specs])
    for c in candidates:
        source = origins[c.source]
        origins.setdefault(c.spec.name, Origin("neighbour", source.group, c.source, source.tables))
    return [*specs, *(c.spec for c in candidates)]


def world_origins(world: str, kind: str) -> Origins:
    """A world's tools by name: multidomain's grouped by their domain, any other world's by the world."""
    pack = load_world(world)
    toolkit = getattr(pack, "toolkit", None)
    domains = {name: tool.domain for name, tool in toolkit.tools.items()} if toolkit is not None else {}
    return {s.name: Origin(kind, domains.get(s.name, world), s.name) for s in pack.tool_specs()}


def queries(tasks: list[Task]) -> list[Query]:
    """(request, gold tools, core tools) per turn with gold calls."""
    out = []
    for task in tasks:
        for turn in task.goals:
            if turn.gold:
                names = {c.name for c in turn.gold}
                out.append((turn.user.explicit, names, {c.name for c in turn.gold if c.role == "core"}))
    return out


def synthetic(world: str = "multidomain") -> Built:
    origins = world_origins(world, "own")
    specs = with_neighbours(load_world(world).tool_specs(), origins)
    for other in known_worlds():
        if other != world:
            origins |= {n: o for n, o in world_origins(other, "world").items() if n not in origins}
            specs += with_neighbours(load_world(other).tool_specs(), origins)
    generated = generated_tools()
    origins |= {s.name: Origin("generated", "generated", s.name) for s in generated if s.name not in origins}
    specs += generated
    unique = list({s.name: s for s in reversed(specs)}.values())[::-1]  # the world's own tools win a name clash
    return unique, queries(load_world(world).tasks()), origins


def spider(folder: Path, obfuscate: bool) -> Built:
    """``folder`` has Spider's layout: ``database/`` and ``dev.json`` (or the built-in sample's ``questions.json``)."""
    from worlds.sql.engine.model import ImportOptions
    from worlds.sql.ingest.folder import write_world
    from worlds.sql.ingest.importer import import_world

    questions = folder / "dev.json" if (folder / "dev.json").is_file() else folder / "questions.json"
    worlds = []
    origins: Origins = {}
    with tempfile.TemporaryDirectory() as tmp:
        for style in ("per_question", "sel"):
            options = ImportOptions(style=style, obfuscate=obfuscate, drop_empty=False, max_rows=None)
            built = import_world("spider", folder / "database", questions, options)
            kind = "own" if style == "per_question" else "sel"
            for function in built.functions:
                origins.setdefault(function.name, Origin(kind, function.db_id, function.name, tables(function.sql)))
            worlds.append(load_world(str(write_world(built, Path(tmp) / style))))
        own, sel = worlds[0].tool_specs(), worlds[1].tool_specs()
        asks = queries(worlds[0].tasks())
    neighbours = with_neighbours(own, origins)[len(own) :]
    if obfuscate:
        renamed = rename(neighbours, {s.name for s in [*own, *sel]})
        origins |= {new.name: origins[old.name] for old, new in zip(neighbours, renamed, strict=True)}
        neighbours = renamed
    return list({s.name: s for s in [*own, *sel, *neighbours]}.values()), asks, origins


def tables(sql: str) -> frozenset[str]:
    """The tables a query reads, lower-cased (what follows FROM or JOIN)."""
    return frozenset(t.lower() for t in _TABLE.findall(sql))


def rename(specs: list[ToolSpec], taken: set[str], seed: int = 0) -> list[ToolSpec]:
    """Every tool not named ``function_<n>`` yet renamed so, its arguments ``<greek>_<greek>`` (Spider's
    ``--obfuscate`` naming); descriptions are kept. Seeded: the same names on every run."""
    rng, out, used = random.Random(seed), [], set(taken)
    for spec in specs:
        if _OBFUSCATED.fullmatch(spec.name):
            out.append(spec)
            continue
        name = spec.name
        while name in used or not _OBFUSCATED.fullmatch(name):
            name = f"function_{rng.randrange(100_000, 1_000_000)}"
        used.add(name)
        properties = spec.parameters.get("properties", {})
        names = [f"{rng.choice(_GREEK)}_{rng.choice(_GREEK)}_{i}" for i in range(len(properties))]
        parameters = {**spec.parameters, "properties": dict(zip(names, properties.values(), strict=True))}
        required = set(spec.parameters.get("required", []))
        parameters["required"] = [new for new, old in zip(names, properties, strict=True) if old in required]
        out.append(replace_spec(spec, name, parameters))
    return out


def replace_spec(spec: ToolSpec, name: str, parameters: dict[str, object]) -> ToolSpec:
    return spec.model_copy(update={"name": name, "parameters": parameters})


def obfuscated_synthetic(world: str = "multidomain") -> Built:
    specs, asks, origins = synthetic(world)
    renamed = rename(specs, set())
    names = {old.name: new.name for old, new in zip(specs, renamed, strict=True)}
    moved = [(request, {names[n] for n in gold}, {names[n] for n in core}) for request, gold, core in asks]
    kept = {names[n]: Origin(o.kind, o.group, names.get(o.source, o.source), o.tables) for n, o in origins.items()
            if n in names}  # fmt: skip
    return renamed, moved, kept


def cut(specs: list[ToolSpec], asks: list[Query], size: int, seed: int = 0) -> list[ToolSpec]:
    """Every gold tool, then distractors by a seeded shuffle, ``size`` in all (all of them when fewer)."""
    gold = set().union(*(g for _, g, _ in asks)) if asks else set()
    rest = [s for s in specs if s.name not in gold]
    random.Random(seed).shuffle(rest)
    kept = {s.name for s in specs if s.name in gold} | {s.name for s in rest[: max(0, size - len(gold))]}
    return [s for s in specs if s.name in kept]
