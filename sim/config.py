"""Run configuration: defaults, a TOML file, then command-line overrides, validated in one place."""

from __future__ import annotations

import hashlib
import json
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sim.llm.gateway import RetryPolicy

DEFAULT_AGENT = "text:local"
"""The embedded default: SmolLM2-135M served by llama.cpp, started by squall, via the text protocol."""

QUICKSTART: dict[str, Any] = {
    "agent": DEFAULT_AGENT,
    "world": "smart_home",
    "tasks": ["sh-001", "sh-005", "sh-008"],
    "max_steps": 4,
    "max_tokens": 160,
    "concurrency": 1,  # llama.cpp serves one request at a time; more would only queue
}
"""What ``squall run`` does when neither an agent nor a world is configured: a small suite on the embedded
model (measured: ~1 min on a quiet 2-core machine, 3-4 min on a loaded one). Any field given explicitly wins."""


# Fields that change what is measured; the rest (where, how fast) may differ on --resume.
IDENTITY_FIELDS = (
    "world",
    "agent",
    "user",
    "stressors",
    "tasks",
    "limit",
    "trials",
    "seed",
    "max_steps",
    "max_turns",
    "max_tokens",
    "temperature",
    "arg_match",
    "embedding_threshold",
)


class ConfigError(Exception):
    """Bad configuration; the message names the file (or option) and the field."""


class RunConfig(BaseModel):
    """Everything that defines a run. Every field can be set in TOML or on the command line."""

    model_config = ConfigDict(extra="forbid")

    world: str = Field(default="smart_home", description="Built-in world name, task file, or world directory.")
    agent: str = Field(
        default=DEFAULT_AGENT,
        description="oracle | null | MODEL | native:MODEL | text:MODEL; MODEL is a pydantic-ai model string, "
        "openai-chat:NAME@BASE_URL, or 'local' (the embedded model).",
    )
    user: str = Field(default="scripted", description="scripted | scripted:coreferential")
    stressors: list[str] = Field(default_factory=list, description="Stressor names, applied in order.")
    tasks: list[str] = Field(default_factory=list, description="Only these task ids (default: all).")
    limit: int | None = Field(default=None, ge=1, description="Only the first N tasks.")
    trials: int = Field(default=1, ge=1, description="Episodes per task.")
    seed: int = Field(default=0, description="Root seed; each episode's seed derives from it.")
    concurrency: int = Field(default=4, ge=1, description="Episodes in flight.")
    endpoint_concurrency: int = Field(default=16, ge=1, description="Concurrent requests per LLM endpoint.")
    out: Path = Field(default=Path("runs"), description="Folder that holds run directories.")
    run_id: str | None = Field(default=None, pattern=r"^[A-Za-z0-9._-]+$", description="Default: a timestamp.")
    resume: bool = Field(default=False, description="Continue run_id, skipping finished episodes.")
    max_steps: int = Field(default=15, ge=1, description="Model requests (and tool calls) per turn.")
    max_turns: int = Field(default=20, ge=1, description="User turns per episode.")
    episode_timeout_s: float = Field(default=600.0, gt=0, description="Wall-clock budget per episode.")
    request_timeout_s: float = Field(default=120.0, gt=0, description="HTTP timeout per LLM request.")
    max_tokens: int | None = Field(default=512, ge=1, description="Completion cap per model request.")
    temperature: float | None = Field(default=0.0, ge=0, description="Sampling temperature (None: provider's).")
    arg_match: Literal["exact", "embedding"] = Field(default="exact", description="How argument values match.")
    embedding_threshold: float = Field(default=0.8, gt=0, le=1, description="Cosine threshold in embedding mode.")
    retry: RetryPolicy = Field(default_factory=RetryPolicy)

    def config_hash(self) -> str:
        identity = self.model_dump(mode="json", include=set(IDENTITY_FIELDS))
        return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]


def load_config(path: Path | None, overrides: dict[str, Any]) -> RunConfig:
    """The validated config; see ``resolve_config``."""
    return resolve_config(path, overrides)[0]


def resolve_config(path: Path | None, overrides: dict[str, Any]) -> tuple[RunConfig, bool]:
    """Merge a TOML file (optional) with overrides (options the user actually gave) and validate.

    On --resume, the settings stored in the run's manifest are the base, so ``--resume --run-id ID``
    alone continues a run as it was started. With neither an agent nor a world given anywhere, the
    quickstart suite on the embedded model runs. Returns the config and whether that preset applied.
    """
    given = {**_file_settings(path), **{k: v for k, v in overrides.items() if v is not None}}
    stored = _stored_settings(given) if given.get("resume") else {}
    merged = {**stored, **given}
    quickstart = "agent" not in merged and "world" not in merged
    if quickstart:
        merged = {**QUICKSTART, **merged}
    try:
        return RunConfig.model_validate(merged), quickstart
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"])
        top = str(err["loc"][0]) if err["loc"] else ""
        if top in overrides and overrides[top] is not None:
            source = f"--{top.replace('_', '-')}"
        elif top in stored and top not in given:
            source = "the resumed run's manifest.json"
        else:
            source = str(path)
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise ConfigError(f"{source}: field '{field}': {err['msg']}{more}") from exc


def _stored_settings(given: dict[str, Any]) -> dict[str, Any]:
    """The config a run was started with (for --resume), minus what may change between sessions."""
    if not given.get("run_id"):
        return {}
    manifest = Path(given.get("out") or "runs") / str(given["run_id"]) / "manifest.json"
    if not manifest.exists():
        return {}
    try:
        config = json.loads(manifest.read_text(encoding="utf-8"))["config"]
    except (OSError, ValueError, KeyError) as exc:
        raise ConfigError(f"{manifest}: unreadable manifest: {exc}") from exc
    return {k: v for k, v in config.items() if k in IDENTITY_FIELDS}


def _file_settings(path: Path | None) -> dict[str, Any]:
    if path is None:
        return {}
    data = _read_toml(path)
    run = data.get("run", data)  # accept a [run] table or top-level keys
    if not isinstance(run, dict):
        raise ConfigError(f"{path}: 'run' must be a table")
    return run


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except FileNotFoundError as exc:
        raise ConfigError(f"{path}: config file not found") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc
