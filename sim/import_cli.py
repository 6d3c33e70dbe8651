"""`squall import spider|bird --db-dir DIR --questions FILE --out PATH`: a world folder from a text-to-SQL set.

Every question whose solution paths reproduce its SQL's result becomes a task; the rest are listed with reasons
in ``import_report.json``. Bad input prints one line naming the file, item and field, exits 2, and writes nothing.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated, NoReturn

import typer


def import_command(
    source: Annotated[str, typer.Argument(help="Format of the set: spider | bird.")],
    db_dir: Annotated[Path, typer.Option("--db-dir", help="Folder with <db_id>/<db_id>.sqlite per database.")],
    questions: Annotated[Path, typer.Option("--questions", help="JSON list of question/SQL pairs (e.g. dev.json).")],
    out: Annotated[Path, typer.Option("--out", help="World folder to write (run it with --world PATH).")],
    name: Annotated[str | None, typer.Option("--name", help="World name (default: the folder's name).")] = None,
    db: Annotated[list[str] | None, typer.Option("--db", help="Only questions on this database (repeatable).")] = None,
    obfuscate: Annotated[
        bool, typer.Option("--obfuscate", help="Name functions function_<n> and arguments <greek>_<greek>.")
    ] = False,
    augment: Annotated[
        int, typer.Option("--augment", min=0, help="Extra tasks per question with literals swapped (same column).")
    ] = 0,
    seed: Annotated[int, typer.Option("--seed", help="Seed of obfuscation and augmentation.")] = 0,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing --out folder.")] = False,
    style: Annotated[
        str,
        typer.Option(
            "--style",
            help="API style: per_question (one function per query) | sel (selectors and "
            "getters per table) | slot (generic retrieve/filter/sort/... tools chained by labels).",
        ),
    ] = "per_question",
) -> None:
    """Generate a world of read-only query functions with verified tasks from a text-to-SQL question set."""
    from worlds.sql.folder import write_world
    from worlds.sql.formats import FORMATS, FormatError
    from worlds.sql.importer import ImportOptions, import_world

    if source not in FORMATS:
        _fail(f"source: unknown format '{source}' (one of {', '.join(FORMATS)})")
    from worlds.sql.style_import import STYLES

    if style not in STYLES:
        _fail(f"--style: unknown style '{style}' (one of {', '.join(STYLES)})")
    if style != "per_question" and (augment or obfuscate):
        _fail(f"--augment and --obfuscate work with --style per_question only, not '{style}'")
    options = ImportOptions(
        world=name or out.name,
        db_ids=frozenset(db) if db else None,
        augment=augment,
        obfuscate=obfuscate,
        seed=seed,
        style=style,
    )
    started = time.perf_counter()
    try:
        world = import_world(source, db_dir, questions, options)
        if not world.tasks:
            _fail(f"{questions}: no question survived verification; see the reasons with --out on a smaller set")
        write_world(world, out, replace=force)
    except (FormatError, FileExistsError) as error:
        _fail(str(error))
    except OSError as error:
        _fail(f"{out}: cannot write: {error.strerror or error}")
    report = world.report
    elapsed = time.perf_counter() - started
    sys.stdout.write(
        f"{out}: {style} style, {report.kept} of {report.questions} questions kept "
        f"({report.split} with two solution paths), "
        f"{report.rejected} rejected, {report.augmented} augmented, {report.functions} functions, {elapsed:.1f}s\n"
    )
    for reason, count in report.rejected_by_reason.items():
        sys.stdout.write(f"  rejected {count:>4}  {reason}\n")


def _fail(message: str) -> NoReturn:
    sys.stderr.write(f"error: {' '.join(message.split())}\n")
    raise typer.Exit(2)
