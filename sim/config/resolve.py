"""A run's settings from their sources: the TOML file, the options given, and on --resume the run's stored
manifest; every error names where the bad value came from."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sim.config.errors import ConfigError
from sim.config.identity import IDENTITY_FIELDS
from sim.config.run_config import QUICKSTART, RUN_ID, RunConfig, option_name
from sim.config.toml_file import TomlSettings
from sim.core.suggest import did_you_mean
from sim.llm.endpoints import EndpointSettings
from sim.llm.retry_policy import RetryPolicy


def load_config(path: Path | None, overrides: dict[str, Any]) -> RunConfig:
    """The validated config; see ``resolve_config``."""
    return resolve_config(path, overrides)[0]


def resolve_config(path: Path | None, overrides: dict[str, Any]) -> tuple[RunConfig, bool]:
    """Merge a TOML file (optional) with overrides (options the user actually gave) and validate.

    On --resume, the settings stored in the run's manifest are the base, so ``--resume --run-id ID``
    alone continues a run as it was started. With neither an agent nor a world given anywhere, the
    quickstart suite on the embedded model runs. Returns the config and whether that preset applied.
    """
    file = TomlSettings.read(path) if path is not None else None
    cli = {k: v for k, v in overrides.items() if v is not None}
    given = {**(file.settings if file else {}), **cli}
    if file is not None and isinstance(file.settings.get("endpoints"), dict) and isinstance(cli.get("endpoints"), dict):
        # --endpoint NAME.KEY=VALUE sets one key of a table the file may hold: merged per endpoint, not replaced
        tables = {**file.settings["endpoints"]}
        for name, table in cli["endpoints"].items():
            tables[name] = {**(tables.get(name) or {}), **table}
        given["endpoints"] = tables
    stored = _stored_settings(given) if given.get("resume") else {}
    merged = {**stored, **given}
    quickstart = "agent" not in merged and "world" not in merged
    if quickstart:
        merged = {**QUICKSTART, **merged}

    def source(field: str, subfield: str = "") -> str:
        if field in cli:
            return option_name(field)
        if file is not None and field in file.settings:
            return file.describe(field, subfield)
        if field in stored:
            return f"the resumed run's manifest.json: field '{field}'"
        return f"field '{field}'"

    try:
        cfg = RunConfig.model_validate(merged)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        loc = [str(p) for p in err["loc"]]
        top = loc[0] if loc else ""
        msg = "unknown setting" if err["type"] == "extra_forbidden" else err["msg"].removeprefix("Value error, ")
        if err["type"] == "literal_error" and isinstance(err.get("input"), str):
            msg += did_you_mean(err["input"], re.findall(r"'([^']*)'", str((err.get("ctx") or {}).get("expected", ""))))
        elif err["type"] == "extra_forbidden" and len(loc) == 1:
            msg += did_you_mean(top, RunConfig.model_fields)
        if err["type"] == "extra_forbidden" and len(loc) == 1:
            msg += f" (known: {', '.join(RunConfig.model_fields)})"
        elif err["type"] == "extra_forbidden" and top == "endpoints":
            msg += f" (known: {', '.join(EndpointSettings.model_fields)})"
        elif err["type"] == "extra_forbidden":
            msg += f" (known: {', '.join(RetryPolicy.model_fields)})"
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        where = source(top, ".".join(loc[1:]))
        if top == "endpoints" and top in cli and len(loc) > 1:  # which endpoint and key: --endpoint x.sampling
            where += " " + ".".join(loc[1:])
        raise ConfigError(f"{where}: {msg}{more}") from exc
    cfg._sources = {name: source(name) for name in RunConfig.model_fields if name in cli or name in given}
    try:
        out_is_file = cfg.out.exists() and not cfg.out.is_dir()
    except OSError as exc:
        raise cfg.problem("out", f"{cfg.out}: unusable path: {exc.strerror or exc}") from exc
    if out_is_file:
        raise cfg.problem("out", f"{cfg.out} exists and is not a directory")
    return cfg, quickstart


def _stored_settings(given: dict[str, Any]) -> dict[str, Any]:
    """The config a run was started with (for --resume), minus what may change between sessions."""
    run_id, out = given.get("run_id"), given.get("out") or "runs"
    if not isinstance(run_id, str) or not RUN_ID.fullmatch(run_id) or not isinstance(out, str | Path):
        return {}  # validation names the bad run id or folder
    manifest = Path(out) / run_id / "manifest.json"
    try:
        if not manifest.is_file():
            return {}
    except (OSError, ValueError):
        return {}  # an unusable path: validation of 'out' names it
    try:
        config = json.loads(manifest.read_text(encoding="utf-8"))["config"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"{manifest}: unreadable manifest: {exc}") from exc
    return {k: v for k, v in config.items() if k in IDENTITY_FIELDS}
