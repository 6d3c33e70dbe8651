"""Values of `squall run` options that need parsing beyond their type: each malformed one exits 2 naming it."""

from __future__ import annotations

from pathlib import Path

from sim.cli.common import fail


def endpoint_options(items: list[str] | None) -> dict[str, dict[str, object]] | None:
    """``--endpoint`` options as the config's ``endpoints`` table; a malformed one exits 2."""
    from sim.llm.endpoints import parse_endpoint_options

    if not items:
        return None
    try:
        return parse_endpoint_options(items)
    except ValueError as exc:
        fail(f"--endpoint: {exc}")


def text_or_file(option: str, value: str | None) -> str | None:
    """TEXT, or the contents of FILE for @FILE (bounded, UTF-8); an unreadable file exits 2."""
    if value is None or not value.startswith("@"):
        return value
    from sim.core.bounded_read import SETTINGS_LIMIT, InputFileError, read_text

    try:
        return read_text(Path(value[1:]), SETTINGS_LIMIT)
    except InputFileError as exc:
        fail(f"{option}: {exc}")


def thresholds(items: list[str] | None) -> dict[str, float] | None:
    """``--fail-under METRIC=VALUE`` options; a malformed one exits 2."""
    if not items:
        return None
    out: dict[str, float] = {}
    for item in items:
        metric, sep, value = item.partition("=")
        try:
            out[metric.strip()] = float(value)
        except ValueError:
            fail(f"--fail-under: expected METRIC=NUMBER (e.g. core_api_accuracy=0.8), got {item!r}")
        if not sep or not metric.strip():
            fail(f"--fail-under: expected METRIC=NUMBER (e.g. core_api_accuracy=0.8), got {item!r}")
    return out
