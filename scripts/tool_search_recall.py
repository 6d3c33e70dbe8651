"""Recall@k of tool search: does ``search_tools(<the user's request>)`` return the tools the turn's gold calls?

For every turn with gold calls, the query is the user's explicit request and the relevant tools are the names on
the turn's primary gold path (core and support). Reported per toolset and ranker: recall@k (the mean share of a
turn's gold tools in the top k), all@k (turns whose every gold tool is in the top k), core@k (turns whose core
tools all are), the index build time cold (embedding every signature) and warm (from the disk cache), and the
per-query latency once the index is built. Each is measured twice: one search per request, and one per sentence of
it (most requests are "X. Also, Y.": an agent searches for each).

Toolsets: a world's own tools; ``+large``: the world's tools plus related-but-different templated neighbours of
every tool (hard distractors, ``worlds.stressors.expand.templates``), smart_home's tools and theirs, and generated
tools of unrelated business domains (easy distractors), a few thousand in all.

    .venv/bin/python scripts/tool_search_recall.py --world multidomain --large --k 9
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from itertools import product
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim.core import Task, ToolSpec
from sim.core.embedding import embedding_available
from worlds.registry import load_world
from worlds.stressors.expand.templates import signature, templated_candidates
from worlds.stressors.search.index import Encode, IndexCache, RankerName

_OBJECTS = (
    "invoice",
    "payment",
    "refund",
    "customer",
    "supplier",
    "purchase_order",
    "shipment",
    "warehouse",
    "inventory",
    "product_sku",
    "employee",
    "payroll",
    "timesheet",
    "expense_report",
    "budget",
    "ledger_entry",
    "tax_filing",
    "contract",
    "lease",
    "vendor",
    "ticket",
    "incident",
    "deployment",
    "server",
    "container",
    "database_backup",
    "dns_record",
    "ssl_certificate",
    "api_key",
    "user_account",
    "role",
    "permission",
    "audit_log",
    "compliance_report",
    "lab_result",
    "patient_record",
    "prescription",
    "insurance_claim",
    "course",
    "enrollment",
    "grade",
    "library_loan",
    "parking_permit",
    "fleet_vehicle",
    "maintenance_job",
    "work_order",
    "crop_yield",
    "irrigation_zone",
    "fishing_license",
    "court_case",
    "legal_hold",
    "patent",
    "trademark",
    "grant_application",
    "donation",
    "volunteer_shift",
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
_SCOPES = ("", "regional", "internal")
SENTENCE = re.compile(r"(?<=[.?!])\s+")


def generated_tools() -> list[ToolSpec]:
    """Tools of unrelated business domains, ``verb_[scope_]object``: 53 objects x 12 verbs x 3 scopes."""
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


def toolset(world: str, large: bool) -> list[ToolSpec]:
    specs = load_world(world).tool_specs()
    if not large:
        return specs
    extra = [*specs, *(c.spec for c in templated_candidates(specs, [s.name for s in specs]))]
    other = load_world("smart_home").tool_specs() if world != "smart_home" else []
    extra += [*other, *(c.spec for c in templated_candidates(other, [s.name for s in other]))]
    extra += generated_tools()
    return list({s.name: s for s in extra}.values())  # the world's own tools win a name clash


def queries(tasks: list[Task]) -> list[tuple[str, set[str], set[str]]]:
    """(request, gold tools, core tools) per turn with gold calls."""
    out = []
    for task in tasks:
        for turn in task.goals:
            if turn.gold:
                names = {c.name for c in turn.gold}
                out.append((turn.user.explicit, names, {c.name for c in turn.gold if c.role == "core"}))
    return out


def fresh_encoder() -> Encode | None:
    """An embedder with no text cache (a query seen before must not look instant), model loaded before timing."""
    if embedding_available():
        return None
    from sim.core.embedding import Embedder

    embedder = Embedder(max_cache=0)
    embedder.encode(["load the model"])
    return embedder.encode


def measure(
    specs: list[ToolSpec], asks: list[tuple[str, set[str], set[str]]], ranker: RankerName, k: int, split: bool
) -> dict[str, object]:
    names = [s.name for s in specs]
    texts = [signature(s) for s in specs]
    encode = fresh_encoder() if ranker == "embedding" else None
    with tempfile.TemporaryDirectory() as cache:
        started = time.perf_counter()
        IndexCache().get(texts, ranker, Path(cache), encode)  # cold: embeds every signature (lexical: builds BM25)
        cold = time.perf_counter() - started
        started = time.perf_counter()
        index = IndexCache().get(texts, ranker, Path(cache), encode)  # warm: what a new process does (reads .npy)
        warm = time.perf_counter() - started
    recalls, every, core, latencies = [], 0, 0, []
    for request, gold, core_names in asks:
        top = set()
        # split: one search per sentence, as an agent handling "X. Also, Y." would search for X and for Y
        for part in SENTENCE.split(request) if split else [request]:
            started = time.perf_counter()
            top |= {names[row] for row, _ in index.rank(part, k)}
            latencies.append((time.perf_counter() - started) * 1000)
        recalls.append(len(gold & top) / len(gold))
        every += gold <= top
        core += core_names <= top
    latencies.sort()
    return {
        "tools": len(specs),
        "per": "sentence" if split else "request",
        "queries": len(asks),
        f"recall@{k}": round(statistics.mean(recalls), 3),
        f"all@{k}": round(every / len(asks), 3),
        f"core@{k}": round(core / len(asks), 3),
        "build_cold_s": round(cold, 2),
        "build_warm_s": round(warm, 3),
        "query_ms_p50": round(latencies[len(latencies) // 2], 2),
        "query_ms_p95": round(latencies[int(len(latencies) * 0.95)], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world", action="append", help="world(s) to measure (default multidomain)")
    parser.add_argument("--large", action="store_true", help="also the large synthetic toolset")
    parser.add_argument("--k", type=int, default=9)
    parser.add_argument("--ranker", choices=("embedding", "lexical"), action="append")
    args = parser.parse_args()
    rankers: list[RankerName] = args.ranker or (["lexical"] if embedding_available() else ["embedding", "lexical"])
    for world in args.world or ["multidomain"]:
        asks = queries(load_world(world).tasks())
        for large in (False, True) if args.large else (False,):
            specs = toolset(world, large)
            for ranker, split in product(rankers, (False, True)):
                row = measure(specs, asks, ranker, args.k, split)
                label = f"{world}{'+large' if large else ''}"
                print(f"{label:22} {ranker:9} " + "  ".join(f"{key}={value}" for key, value in row.items()), flush=True)


if __name__ == "__main__":
    main()
