"""How a run setting is given on the command line, declared on the setting itself.

``RunConfig`` is the one declaration of a run's settings: each field's name is its TOML key, its description is its
help (in ``--help`` and the docs), and an ``Option`` in its annotation says whatever about its command-line option is
not simply ``--field-name VALUE`` of the field's type. ``sim.cli.settings`` builds the options from it; nothing else
lists the settings. Parsers raise ValueError with what is wrong; the command line adds the option's name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Option:
    """A setting's command-line option, where it differs from ``--field-name VALUE``."""

    flag: str | None = None
    """The option's name (``--episode-timeout``); None: ``--`` + the field name with dashes."""
    short: str | None = None
    """A one-letter alias (``-q``)."""
    repeat: bool = False
    """Given once per value (``--task A --task B``): ``parse`` (or the field) gets the list."""
    parse: Callable[[Any], Any] | None = None
    """The option's text (or list of texts, with ``repeat``) -> the field's value; raises ValueError."""
    switch: Any = None
    """Not None: a flag taking no value; given, the field is set to this (``--no-preflight``: False)."""
    cli: bool = True
    """False: a config-file-only setting (the retry policy's table)."""


CONFIG_FILE_ONLY = Option(cli=False)


def stressor_items(text: str) -> list[str]:
    """``adhoc,failure:rate=0.1,transient=1`` -> the stressor items (``worlds.stressors.catalog.split_items``)."""
    from worlds.stressors.catalog import split_items  # the stressor catalogue loads only when the option is given

    return split_items(text)


def param_modes(items: list[str]) -> dict[str, str]:
    """``--arg-match-param TOOL.PARAM=MODE`` options as the config's table."""
    modes: dict[str, str] = {}
    for item in items:
        key, sep, mode = item.partition("=")
        if not sep or "." not in key or not mode:
            raise ValueError(f"expected TOOL.PARAM=MODE, got {item!r}")
        modes[key.strip()] = mode.strip()
    return modes


def endpoint_tables(items: list[str]) -> dict[str, dict[str, object]]:
    """``--endpoint NAME=URL`` / ``NAME.KEY=VALUE`` options as the config's ``endpoints`` tables."""
    from sim.llm.endpoints import parse_endpoint_options

    return parse_endpoint_options(items)


def text_or_file(value: str) -> str:
    """TEXT, or the contents of FILE for @FILE (bounded, UTF-8)."""
    if not value.startswith("@"):
        return value
    from pathlib import Path

    from sim.core.bounded_read import SETTINGS_LIMIT, InputFileError, read_text

    try:
        return read_text(Path(value[1:]), SETTINGS_LIMIT)
    except InputFileError as exc:
        raise ValueError(str(exc)) from None


def thresholds(items: list[str]) -> dict[str, float]:
    """``--fail-under METRIC=VALUE`` options."""
    out: dict[str, float] = {}
    for item in items:
        metric, sep, value = item.partition("=")
        try:
            number = float(value)
        except ValueError:
            number = None
        if not sep or not metric.strip() or number is None:
            raise ValueError(f"expected METRIC=NUMBER (e.g. core_api_accuracy=0.8), got {item!r}")
        out[metric.strip()] = number
    return out
