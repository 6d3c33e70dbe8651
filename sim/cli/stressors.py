"""`squall stressors list [--json]`: every complexity scenario with its name, type, level, tools and effect;
`squall stressors assign` (``sim.cli.assign``): new rows drafted by a model; `squall stressors paraphrase`
(``sim.cli.paraphrase``): model-written wordings of the user's requests."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from sim.cli.assign import assign_command
from sim.cli.paraphrase import paraphrase_command

stressors_app = typer.Typer(
    help="List the complexity stressors, draft new scenario rows with a model, or have a model paraphrase requests.",
    no_args_is_help=True,
    add_completion=False,
)
stressors_app.command("assign")(assign_command)
stressors_app.command("paraphrase")(paraphrase_command)


@stressors_app.command(
    "expand", context_settings={"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []}
)
def expand_command(ctx: typer.Context) -> None:
    """Build or check the toolkit-expansion catalogs (options: squall stressors expand --help)."""
    from sim.cli.expand import main

    raise typer.Exit(main(ctx.args))


@stressors_app.command("list")
def list_stressors(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON: one object per scenario.")] = False,
    kind: Annotated[str | None, typer.Option("--type", help="Only this complexity type (e.g. failure).")] = None,
) -> None:
    """Every scenario, then what each group selects (`squall run --stressors NAME|TYPE|spec|exec|user|all[:key=value,
    ...]`). Rows marked 'by name' are in no group: they make a goal impossible on every task they touch."""
    from worlds.stressors import builtin_scenarios
    from worlds.stressors.catalog import GROUPS, group_members, groups_of
    from worlds.stressors.scenario import LEVEL

    table = builtin_scenarios()
    rows = [s for s in table if kind is None or s.type == kind]
    if kind is not None and not rows:
        sys.stderr.write(f"error: --type: no scenario of type {kind!r}\n")
        raise typer.Exit(2)
    if as_json:
        out = [
            {"name": s.name, "level": s.level, **s.model_dump(exclude={"name"}), "groups": groups_of(s)} for s in rows
        ]
        sys.stdout.write(json.dumps(out, indent=2) + "\n")
        return
    from rich.table import Table

    from sim.cli.common import make_console

    console = make_console()
    listing = Table(title=f"{len(rows)} scenarios", header_style="bold", expand=True)
    listing.add_column("scenario", overflow="fold", ratio=3)
    listing.add_column("level", no_wrap=True)
    listing.add_column("tools", overflow="fold", ratio=2)
    listing.add_column("effect", overflow="fold", ratio=4)
    for s in rows:
        level = f"{s.level}, by name" if s.by_name_only else s.level
        listing.add_row(s.name, level, ", ".join(s.tools), s.effect)
    console.print(listing, highlight=False)
    note = "\ngroups (a row marked 'by name' is in none: name it, optionally with rate=SHARE of tasks):"
    console.print(note, highlight=False)
    for group in [g for g in GROUPS if kind is None or g in (kind, LEVEL[kind], "all")]:
        members = [s.name for s in group_members(group, table)]
        named = [s.name for s in table if s.by_name_only and group in ("all", s.type, s.level)]
        listed = ", ".join(members) if len(members) <= 6 else f"{len(members)} rows ({', '.join(members[:2])}, ...)"
        console.print(f"  {group:<11} {listed}" + (f"; not {', '.join(named)}" if named else ""), highlight=False)
