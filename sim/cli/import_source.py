"""`squall import SOURCE ...`: a world folder from another benchmark's files; ``IMPORTERS`` says which SOURCEs.

Each source is its own subcommand with its own options, so a new benchmark is a module with its command (the
world folder it writes names a ``kind`` in ``worlds.registry.WORLD_KINDS``) and one ``IMPORTERS`` line.

Today's sources are text-to-SQL sets (`squall import spider|bird --db-dir DIR --questions FILE --out PATH`): every
question whose solution paths reproduce its SQL's result becomes a task; the rest are listed with reasons in
``import_report.json``. Bad input prints one line naming the file, item and field, exits 2, and writes nothing.
`squall import openapi|toolbench` (``sim.cli.import_openapi``, ``sim.cli.import_toolbench``) write simulated worlds
from API descriptions; their bad input is listed one problem per line (file and JSON pointer), exit 2.
`squall import bfcl-results` (``sim.cli.import_bfcl_results``) writes runs, not a world: another harness's results
scored by squall's judges.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Annotated

import typer

from sim.cli.common import fail
from sim.cli.generator import DEFAULT_CACHE_DIR, CacheDirOption, CacheOption
from sim.cli.import_bfcl_results import bfcl_results_command
from sim.cli.import_openapi import openapi_command
from sim.cli.import_toolbench import toolbench_command

if TYPE_CHECKING:
    from sim.config.run_config import RunConfig
    from worlds.sql.describe.describe_model import DescribeReport
    from worlds.sql.engine.formats import SourceFormat
    from worlds.sql.engine.model import ImportOptions
    from worlds.sql.ingest.importer import ImportedWorld


DbDirOption = Annotated[Path, typer.Option("--db-dir", help="Folder with <db_id>/<db_id>.sqlite per database.")]
QuestionsOption = Annotated[Path, typer.Option("--questions", help="JSON list of question/SQL pairs (e.g. dev.json).")]
OutOption = Annotated[Path, typer.Option("--out", help="World folder to write (run it with --world PATH).")]
NameOption = Annotated[str | None, typer.Option("--name", help="World name (default: the folder's name).")]
DbOption = Annotated[list[str] | None, typer.Option("--db", help="Only questions on this database (repeatable).")]
ObfuscateOption = Annotated[
    bool,
    typer.Option(
        "--obfuscate",
        help="Name functions function_<n> and arguments <greek>_<greek>; descriptions name no table or column "
        "(table <n>, field <n>; slot: table_<n>). Any style.",
    ),
]
AugmentOption = Annotated[
    int, typer.Option("--augment", min=0, help="Extra tasks per question with literals swapped (same column).")
]
SeedOption = Annotated[int, typer.Option("--seed", help="Seed of obfuscation and augmentation.")]
ForceOption = Annotated[bool, typer.Option("--force", help="Replace an existing --out folder.")]
StyleOption = Annotated[
    str,
    typer.Option(
        "--style",
        help="API style: per_question (one function per query) | sel (selectors and "
        "getters per table) | slot (generic retrieve/filter/sort/... tools chained by labels).",
    ),
]
DropEmptyOption = Annotated[
    bool,
    typer.Option(
        "--drop-empty/--keep-empty",
        help="Leave out questions whose SQL returns nothing (no rows, or an aggregate's NULLs), as the study did.",
    ),
]
MaxRowsOption = Annotated[
    int, typer.Option("--max-rows", min=0, help="Leave out questions whose SQL returns more rows (0: no limit).")
]
OnlySplitOption = Annotated[
    bool, typer.Option("--only-split", help="Keep only questions with two solution paths (per_question style).")
]
QueryTimeLimitOption = Annotated[
    float,
    typer.Option(
        "--query-time-limit",
        help="Seconds any one query may run while verifying; past it the import stops naming the question.",
    ),
]
DescribeModelOption = Annotated[
    str | None,
    typer.Option(
        "--describe-model",
        help="Model spec (e.g. openai-chat:NAME@BASE_URL) asked for each function's description; "
        "kept only when it checks out against the code, else the offline one stays.",
    ),
]


def sql_importer(source: SourceFormat, title: str) -> Callable[..., None]:
    """The `squall import SOURCE` command of a text-to-SQL format ``worlds.sql.engine.formats`` reads."""

    def command(
        db_dir: DbDirOption,
        questions: QuestionsOption,
        out: OutOption,
        name: NameOption = None,
        db: DbOption = None,
        obfuscate: ObfuscateOption = False,
        augment: AugmentOption = 0,
        seed: SeedOption = 0,
        force: ForceOption = False,
        style: StyleOption = "per_question",
        describe_model: DescribeModelOption = None,
        cache: CacheOption = "read-write",
        cache_dir: CacheDirOption = DEFAULT_CACHE_DIR,
        drop_empty: DropEmptyOption = True,
        max_rows: MaxRowsOption = 100,
        only_split: OnlySplitOption = False,
        query_time_limit: QueryTimeLimitOption = 30.0,  # the importer's own default (not imported here: start-up)
    ) -> None:
        from worlds.sql.engine.model import ImportOptionError, ImportOptions

        try:
            options = ImportOptions(
                world=name or out.name,
                db_ids=frozenset(db) if db else None,
                augment=augment,
                obfuscate=obfuscate,
                seed=seed,
                style=style,
                drop_empty=drop_empty,
                max_rows=max_rows or None,
                only_split=only_split,
                query_time_limit_s=query_time_limit,
                describe_model=describe_model,
            )
        except ImportOptionError as error:
            fail(f"{OPTION_OF_FIELD.get(error.field, '--' + error.field.replace('_', '-'))}: {error.reason}")
        import_sql(source, db_dir, questions, out, options, force=force, cache=cache, cache_dir=cache_dir)

    command.__doc__ = f"A world of read-only query functions with verified tasks from a {title} question set."
    return command


OPTION_OF_FIELD = {"world": "--name", "db_ids": "--db", "query_time_limit_s": "--query-time-limit"}
"""``ImportOptions`` fields whose option is not ``--`` + the field's name with dashes."""


IMPORTERS: MappingProxyType[str, Callable[..., None]] = MappingProxyType(
    {
        "spider": sql_importer("spider", "Spider (dev.json: db_id, question, query)"),
        "bird": sql_importer("bird", "BIRD (dev.json: db_id, question, SQL, evidence)"),
        "openapi": openapi_command,
        "toolbench": toolbench_command,
        "bfcl-results": bfcl_results_command,
    }
)
"""SOURCE -> its `squall import SOURCE` command. A plain constant: a new source is one line here."""


def _import_app() -> typer.Typer:
    group = typer.Typer(
        help="Import another benchmark's files as a world folder (run it with --world PATH); bfcl-results: another "
        "harness's results as scored runs.",
        no_args_is_help=True,
        add_completion=False,
    )
    for source, command in IMPORTERS.items():
        group.command(source)(command)
    return group


import_app = _import_app()


def import_sql(
    source: SourceFormat,
    db_dir: Path,
    questions: Path,
    out: Path,
    options: ImportOptions,
    *,
    force: bool = False,
    cache: str = "read-write",
    cache_dir: Path = DEFAULT_CACHE_DIR,
) -> None:
    """Import a text-to-SQL set of format ``source`` into the world folder ``out``; ``force`` replaces an existing
    folder, ``cache`` and ``cache_dir`` are the response cache of ``options.describe_model``."""
    from worlds.sql.engine.formats import FormatError
    from worlds.sql.ingest.folder import write_world
    from worlds.sql.ingest.importer import import_world

    describe_model = options.describe_model
    config = None
    if describe_model is not None:
        from sim.cli.generator import generator_config

        config = generator_config(options.world, options.seed, cache, cache_dir)
    started = time.perf_counter()
    described: DescribeReport | None = None
    try:
        world = import_world(source, db_dir, questions, options)
        if not world.tasks:
            fail(f"{questions}: no question survived verification; see the reasons with --out on a smaller set")
        if config is not None and describe_model is not None:
            world, described = asyncio.run(_describe(config, describe_model, world))
        write_world(world, out, replace=force)
        if described is not None and describe_model is not None:
            _record(out, described.as_json(describe_model))
    except (FormatError, FileExistsError) as error:
        fail(str(error))
    except OSError as error:
        fail(f"{out}: cannot write: {error.strerror or error}")
    report = world.report
    elapsed = time.perf_counter() - started
    sys.stdout.write(
        f"{out}: {options.style} style, {report.kept} of {report.questions} questions kept "
        f"({report.split} with two solution paths), "
        f"{report.rejected} rejected, {report.augmented} augmented, {report.functions} functions, {elapsed:.1f}s\n"
    )
    if report.toolkit_mean is not None:
        sys.stdout.write(f"  {report.toolkit_mean} functions offered per question on average\n")
    for reason, count in report.rejected_by_reason.items():
        sys.stdout.write(f"  rejected {count:>4}  {reason}\n")
    if described is not None:
        sys.stdout.write(
            f"  model descriptions: {described.kept} of {described.asked} kept, "
            f"{described.request_failures} request failures\n"
        )
        for reason, count in sorted(described.rejected_by_reason.items()):
            sys.stdout.write(f"  description rejected {count:>4}  {reason}\n")


async def _describe(config: RunConfig, model: str, world: ImportedWorld) -> tuple[ImportedWorld, DescribeReport]:
    from sim.agents.factory import AgentUnavailable
    from sim.cli.generator import model_handle
    from sim.core import ModelRequest
    from worlds.sql.describe.describe_model import describe_functions, read_schema

    schemas = {db_id: read_schema(path) for db_id, path in world.databases.items()}
    try:
        async with model_handle(config, model) as handle:

            async def complete(request: ModelRequest) -> str | None:
                try:
                    return (await handle.complete(request)).text
                except Exception:  # a provider fault past the gateway's retries: counted, the offline text stays
                    return None

            functions, report = await describe_functions(complete, model, world.functions, schemas, config.seed)
    except AgentUnavailable as exc:
        fail(f"--describe-model: {exc}")
    return replace(world, functions=functions), report


def _record(out: Path, described: dict[str, object]) -> None:
    """Add the description counts to the written report (ImportReport itself knows nothing of models)."""
    from sim.core.files import write_text_atomic

    path = out / "import_report.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["model_descriptions"] = described
    write_text_atomic(path, json.dumps(data, indent=1) + "\n")
