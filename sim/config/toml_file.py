"""A run config file: its settings, and the line each is on (for error messages naming file and line)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from sim.config.errors import ConfigError
from sim.core.bounded_read import SETTINGS_LIMIT, InputFileError, read_text
from sim.core.structured import check_depth


class TomlSettings:
    """A config file's settings, with the line each setting is on (for error messages)."""

    def __init__(self, path: Path, settings: dict[str, Any], text: str, table: str) -> None:
        self.path = path
        self.settings = settings
        self._lines = text.splitlines()
        self._table = table  # "" for top-level settings, "run" for a [run] table

    @classmethod
    def read(cls, path: Path) -> TomlSettings:
        try:
            text = read_text(path, SETTINGS_LIMIT)  # a FIFO, a device or a huge file: refused, not read
        except InputFileError as exc:
            raise ConfigError(str(exc)) from None
        try:
            data = tomllib.loads(text)
        except (ValueError, RecursionError) as exc:  # TOMLDecodeError, an integer too long, nesting too deep
            raise ConfigError(f"{path}: invalid TOML: {exc or type(exc).__name__}") from exc
        try:
            check_depth(data, path)
        except InputFileError as exc:
            raise ConfigError(str(exc)) from None
        if "run" not in data:
            return cls(path, data, text, "")
        if not isinstance(data["run"], dict):
            raise ConfigError(f"{path}: 'run' must be a table ([run]) holding the run settings")
        outside = sorted(k for k in data if k not in ("run", "endpoints"))
        if outside:
            raise ConfigError(
                f"{path}: {', '.join(outside)} outside the [run] table; put every setting in [run] (the retry "
                "policy in [run.retry]) or every setting at top level (the retry policy in [retry]), not both"
            )
        if isinstance(data.get("endpoints"), dict):  # [endpoints.NAME] sits beside [run] as well as inside it
            return cls(
                path,
                {**data["run"], "endpoints": {**data["endpoints"], **data["run"].get("endpoints", {})}},
                text,
                "run",
            )
        return cls(path, data["run"], text, "run")

    def describe(self, field: str, subfield: str = "") -> str:
        """'run.toml:4: [retry] key 'max_attempts'' or 'run.toml:2: field 'trials''."""
        table = ".".join(p for p in (self._table, field if subfield else "") if p)
        key = subfield.split(".")[0] if subfield else field
        line = self._line_of(table, key)
        where = f"{self.path}:{line}" if line else str(self.path)
        return f"{where}: [{table}] key '{key}'" if table and subfield else f"{where}: field '{field}'"

    def _line_of(self, table: str, key: str) -> int | None:
        current = ""
        assignment = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=")
        for number, line in enumerate(self._lines, start=1):
            header = re.match(r"^\s*\[\s*([^\]]+?)\s*\]", line)
            if header:
                current = header.group(1).replace(" ", "")
                if current == ".".join(p for p in (table, key) if p):
                    return number  # the key is itself a table: point at its header
                continue
            if current == table and assignment.match(line):
                return number
        # A table given as a whole line (retry = {...}) or a dotted key: point at the table's own line.
        return self._line_of(table.rpartition(".")[0], table.rpartition(".")[2]) if table and key else None
