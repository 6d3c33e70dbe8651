"""Command-line options made from ``RunConfig``, the one declaration of a run's settings (``sim.config.options``).

``with_settings(fields)`` gives a command one option per named field: the option's name, type and help come from the
field, every option defaults to None (so a config file's value is not overridden by an option nobody gave), and the
command receives the options given as ``settings``, a dict of field -> value ready to merge over the config file.
Adding a setting is one field on ``RunConfig``: ``squall run`` and the TOML file take it from there.
"""

from __future__ import annotations

import functools
import inspect
import types
import typing
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from sim.cli.common import fail
from sim.config.options import Option
from sim.config.run_config import RunConfig, option_name, option_of

SETTINGS = "settings"
"""The parameter a command built ``with_settings`` receives the options given in."""


def cli_fields() -> list[str]:
    """Every RunConfig field that has a command-line option, in declaration order."""
    return [name for name in RunConfig.model_fields if option_of(name).cli]


def _value_type(field: str, option: Option) -> type:
    """The type the option's text converts to before validation: the field's scalar type; text where a parser or
    the config's validation (a Literal's choices, a named table) reads it."""
    if option.switch is not None:
        return bool
    if option.parse is not None:
        return str
    annotation = _bare(RunConfig.model_fields[field].annotation)
    if option.repeat:
        inner = typing.get_args(annotation)
        return inner[0] if inner else str
    if annotation in (int, float, Path, bool):
        return annotation
    if annotation is str or typing.get_origin(annotation) is Literal:
        return str
    raise TypeError(f"RunConfig.{field}: give it an Option(parse=...) to read {annotation} from the command line")


def _bare(annotation: Any) -> Any:
    """``StrictInt | None`` -> ``int``: without Optional and Annotated's constraints."""
    if typing.get_origin(annotation) is Annotated:
        return _bare(typing.get_args(annotation)[0])
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (types.UnionType, typing.Union) and len(args) == 1:
        return _bare(args[0])
    return annotation


def _parameter(field: str, note: str) -> inspect.Parameter:
    option = option_of(field)
    kind = _value_type(field, option)
    names = [option_name(field)] + ([option.short] if option.short else [])
    help_text = ((RunConfig.model_fields[field].description or "") + note).replace("[", "\\[")  # not rich markup
    if option.switch is not None:
        annotation: Any = Annotated[bool, typer.Option(*names, help=help_text)]
        return inspect.Parameter(field, inspect.Parameter.KEYWORD_ONLY, default=False, annotation=annotation)
    shape: Any = list[kind] if option.repeat else kind  # type: ignore[valid-type]
    annotation = Annotated[shape | None, typer.Option(*names, help=help_text)]
    return inspect.Parameter(field, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=annotation)


def given_settings(raw: dict[str, Any]) -> dict[str, Any]:
    """The options' values as config fields: parsed, switches applied; None for an option not given. A value
    its parser refuses exits 2 naming the option."""
    settings: dict[str, Any] = {}
    for field, value in raw.items():
        option = option_of(field)
        if option.switch is not None:
            settings[field] = option.switch if value else None
        elif value is None or (option.repeat and not value):
            settings[field] = None
        elif option.parse is not None:
            try:
                settings[field] = option.parse(value)
            except ValueError as exc:
                fail(f"{option_name(field)}: {exc}")
        else:
            settings[field] = value
    return settings


def with_settings(fields: Iterable[str] | None = None, note: str = "") -> Callable[[Callable[..., Any]], Any]:
    """Decorate a command taking ``settings`` (and its own parameters) with one option per RunConfig field named
    (default: every field that has an option); ``note`` ends each option's help."""
    names = list(cli_fields() if fields is None else fields)

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        own = [p for p in inspect.signature(command, eval_str=True).parameters.values() if p.name != SETTINGS]

        @functools.wraps(command)
        def wrapper(**given: Any) -> Any:
            raw = {name: given.pop(name) for name in names}
            return command(**given, settings=given_settings(raw))

        wrapper.__signature__ = inspect.Signature(own + [_parameter(n, note) for n in names])  # type: ignore[attr-defined]
        wrapper.__annotations__ = {}  # typer reads the signature above, not the command's own hints
        return wrapper

    return decorate
