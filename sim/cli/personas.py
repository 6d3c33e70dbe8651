"""`squall personas list | show NAME|PATH`: the personas users play and the styles they can be given."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

personas_app = typer.Typer(help="List and show user personas and styles.", no_args_is_help=True, add_completion=False)


@personas_app.command("list")
def list_personas(as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """The shipped personas (personas/data/*.yaml) and every user style."""
    from personas.persona import load_persona, persona_names
    from personas.styles import STYLES

    rows = [load_persona(name) for name in persona_names()]
    if as_json:
        print(json.dumps({"personas": [p.model_dump() for p in rows], "styles": list(STYLES)}, indent=2))
        return
    for p in rows:
        print(f"{p.name:<20} [{'+'.join(p.styles)}] {p.description}")
    print(f"\nstyles: {', '.join(STYLES)}  (compose with +, e.g. --user scripted:coreferential+terse@busy_parent)")


@personas_app.command("show")
def show_persona(name: Annotated[str, typer.Argument(help="A persona name, or a YAML file's path.")]) -> None:
    """One persona in full; a file given by path is validated (errors name the file, line or field)."""
    from personas.persona import PersonaError, load_persona

    try:
        persona = load_persona(name)
    except PersonaError as error:
        sys.stderr.write(f"error: {error}\n")
        raise typer.Exit(2) from error
    print(json.dumps(persona.model_dump(), indent=2, ensure_ascii=False))
