"""Run configuration: defaults, a TOML file, then command-line overrides, validated in one place.

The TOML rule (one, documented in docs/configuration.md): run settings are top-level keys and the retry policy
is the ``[retry]`` table; or, equivalently, everything sits in one ``[run]`` table (retry policy in
``[run.retry]``) and nothing else is in the file. Mixing the two, an unknown table or an unknown key
is an error naming the file, the line, the table and the key.

Every error names where the bad value came from: the command-line option (``--episode-timeout``),
the file and line (``run.toml:3``), or the resumed run's manifest.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    StrictFloat,
    StrictInt,
    field_validator,
    model_validator,
)

from sim.config.errors import ConfigError
from sim.config.identity import ENDPOINT_FIELDS, IDENTITY_FIELDS, LATER_IDENTITY_DEFAULTS, without_endpoint
from sim.config.options import (
    CONFIG_FILE_ONLY,
    Option,
    endpoint_tables,
    param_modes,
    stressor_items,
    text_or_file,
    thresholds,
)
from sim.config.task_sample import parse_sample
from sim.core.files import FILE_NAME
from sim.llm.endpoints import ENDPOINT_NAME, EndpointSettings
from sim.llm.retry_policy import RetryPolicy

if TYPE_CHECKING:
    from sim.llm.admission.scheduler import Scheduler

DEFAULT_AGENT = "text:local"
"""The embedded default: SmolLM2-135M served by llama.cpp, started by squall, via the text protocol."""

QUICKSTART: dict[str, Any] = {
    "agent": DEFAULT_AGENT,
    "world": "smart_home",
    "tasks": ["sh-001", "sh-005", "sh-008"],
    "max_steps": 4,
    "max_tokens": 160,
    "concurrency": 4,  # one episode per slot of the embedded llama.cpp server (LocalModelServer, parallel=4)
    # A CPU model on a busy machine is slow, not down: with other jobs on both cores, 120 s per request timed out
    # every episode (measured on a fresh clone while a benchmark and the test suite ran).
    "request_timeout_s": 900.0,
    "episode_timeout_s": 3600.0,
}
"""What ``squall run`` does when neither an agent nor a world is configured: a small suite on the embedded
model, 4 episodes at once on the server's 4 slots (measured: 41 s on a quiet 2-core machine). Any field
given explicitly wins."""

RUN_ID = FILE_NAME  # a run id names the run folder

MAX_PLANNED_EPISODES = 1_000_000
"""Largest plan (tasks × trials) one run accepts; a bigger one is almost surely a typo."""


class RunConfig(BaseModel):
    """Everything that defines a run. Every field can be set in TOML; all but ``retry`` on the command line."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)  # an infinite timeout overflows the HTTP client

    world: str = Field(default="smart_home", description="Built-in world name, task file, or world directory.")
    agent: str = Field(
        default=DEFAULT_AGENT,
        description="oracle | null | naive | obedient | MODEL | native:MODEL | text:MODEL | text:local | code:MODEL "
        "(writes Python programs calling the tools, run in a sandbox) | direct:MODEL (the whole "
        "call sequence in one reply; direct:oracle, direct:null calibrate it); MODEL is a pydantic-ai model string, "
        "openai-chat:NAME@BASE_URL, or 'local' (the embedded model). An agent outside squall, over the squall-agent/1 "
        "protocol with its tools over MCP: http:URL | python:module:function | command:'PROG ARGS'. A,B,C: a sweep, "
        "one run per agent (OUT/RUN_ID-AGENT) over the same plan and seeds, then a leaderboard.",
    )
    text_protocol: Literal["react", "tags"] = Field(
        default="react",
        description="What text: agents are taught: react (Thought / Action / Action Input, then Final Answer) or "
        'tags (one <API_CALL>{"api": ..., "params": {...}}</API_CALL> per step, or a reply ending <End of Turn>). '
        "Either is parsed whatever is taught. Only for text: agents.",
    )
    code_timeout_s: Annotated[StrictFloat, Option("--code-timeout")] = Field(
        default=10.0,
        gt=0,
        le=600,
        description="code: agents only: wall-clock seconds each program may run (its tool calls excluded); CPU time "
        "is capped at the same, rounded up. A program past it is killed and the model told so.",
    )
    code_memory_mb: Annotated[StrictInt, Option("--code-memory")] = Field(
        default=512,
        ge=64,
        le=65_536,
        description="code: agents only: address-space limit (MiB) of each program's process; past it the program "
        "gets a MemoryError or is killed, and the model is told so.",
    )
    user: str = Field(
        default="scripted",
        description="Who plays the user: KIND[:STYLE+STYLE...][@PERSONA], KIND scripted (the task's wordings) or llm "
        "(a model plays the persona: --user-model); styles explicit, coreferential, paraphrased, terse, verbose, "
        "underspecified, impatient, changes_mind; personas under personas/data (or a YAML path). Several users, "
        "comma-separated, each play every task (same seeds): the report compares them.",
    )
    user_model: str = Field(
        default="local",
        description="The model an llm user runs on (any agent MODEL string; 'local' is the embedded model).",
    )
    stressors: Annotated[list[str], Option(parse=stressor_items)] = Field(
        default_factory=list,
        description="Stressors, comma-separated (applied in the order given): scenario names or groups, each "
        "optionally NAME:key=value (more pairs follow after commas), e.g. 'adhoc,failure:rate=0.1,transient=1'. "
        "Groups: a type (adhoc, failure, outage, missing...) holds its rows, spec/exec/user a level's, all every "
        "row; no group holds outage.impossible or missing.removed (they make a goal impossible on every task they "
        "touch: name them, with rate=SHARE of tasks), so outage is outage.backup and missing is "
        "missing.until_later. squall stressors list shows every group's rows.",
    )
    stressor_mode: Literal["cumulative", "isolated", "incremental"] = Field(
        default="cumulative",
        description="cumulative: every selected stressor stacked on every episode, in order; isolated: each selected "
        "scenario alone on the tasks that use its tools, beside an unstressed baseline of the same tasks, and the "
        "report shows accuracy before / after, degradation and retention per scenario and per type; incremental: "
        "every task unstressed, then under the first item, the first two, ... all of them (A; A+B; A+B+C), and the "
        "report shows each prefix's accuracy and the drop from the row before.",
    )
    tasks: Annotated[list[str], Option("--task", repeat=True)] = Field(
        default_factory=list, description="Only these task ids (default: all)."
    )
    limit: StrictInt | None = Field(default=None, ge=1, description="Only the first N tasks.")
    sample: str | None = Field(
        default=None,
        description="stratified:N[:TAG_PREFIX]: N tasks, each stratum (a task's first tag starting with TAG_PREFIX; "
        "default difficulty:, category: or complexity:, the first the world has) in proportion, chosen by --seed.",
    )
    trials: StrictInt = Field(default=1, ge=1, le=MAX_PLANNED_EPISODES, description="Episodes per task.")
    seed: StrictInt = Field(default=0, description="Root seed; each episode's seed derives from it.")
    concurrency: StrictInt = Field(default=4, ge=1, le=100_000, description="Episodes in flight.")
    endpoint_concurrency: StrictInt | None = Field(
        default=None,
        ge=1,
        description="Pins the requests in flight per LLM endpoint; default: adaptive, starting at and never above "
        "the episode concurrency, cut ×0.8 per rate-limit episode.",
    )
    tpm: StrictInt | None = Field(
        default=None, ge=1, description="Tokens per minute per endpoint; default: learned from x-ratelimit-* headers."
    )
    rpm: StrictInt | None = Field(
        default=None, ge=1, description="Requests per minute per endpoint; default: learned from x-ratelimit-* headers."
    )
    max_cost: StrictFloat | None = Field(
        default=None, gt=0, description="USD: once spent, no new episode is admitted (those in flight finish)."
    )
    scheduler: Literal["adaptive", "static"] = Field(
        default="adaptive",
        description="adaptive: squall's scheduler (adaptive connection limit, token budgets, Retry-After honoured); "
        "static: a fixed connection limit and blind exponential backoff, the way peer harnesses run (for comparison).",
    )
    cache: Literal["off", "read-write", "read-only"] = Field(
        default="off",
        description="Response cache, shared by every role: read-write answers repeated requests from disk (a re-run "
        "with the same seed makes no endpoint requests); read-only never writes; off.",
    )
    cache_dir: Path = Field(default=Path(".cache/responses"), description="Folder of the response cache.")
    world_model: str | None = Field(
        default=None,
        description="The model that simulates a simulated world's answers where its cache has none (an imported "
        "OpenAPI or ToolBench world): overrides world.toml's model. --cache read-write needs one.",
    )
    out: Path = Field(default=Path("runs"), description="Folder that holds run directories.")
    run_id: str | None = Field(
        default=None, description="Run directory name (a name, not a path; default: a timestamp)."
    )
    label: str | None = Field(
        default=None,
        min_length=1,
        max_length=60,
        pattern=r"^[^\x00-\x1f]+$",
        description="Short name of the run in reports, compare columns and run lists (default: from the agent and "
        "stressors).",
    )
    resume: Annotated[bool, Option(switch=True)] = Field(
        default=False, description="Continue run_id, skipping finished episodes."
    )
    max_steps: StrictInt = Field(default=15, ge=1, description="Model requests (and tool calls) per turn.")
    max_turns: StrictInt = Field(default=20, ge=1, description="User turns per episode.")
    episode_timeout_s: Annotated[StrictFloat, Option("--episode-timeout")] = Field(
        default=600.0, gt=0, description="Working-time budget per episode, seconds."
    )
    request_timeout_s: Annotated[StrictFloat, Option("--request-timeout")] = Field(
        default=120.0, gt=0, description="HTTP timeout per LLM request, seconds."
    )
    connect_timeout_s: Annotated[StrictFloat | None, Option("--connect-timeout")] = Field(
        default=None, gt=0, description="Seconds to open a connection; None: 10 s + 10 ms per request in flight."
    )
    max_tokens: StrictInt | None = Field(
        default=None,
        ge=1,
        description="Output cap per agent request (max_tokens; max_completion_tokens for sampling = reasoning "
        "endpoints). Default: none sent, so a reply is never cut by squall (an endpoint's max_output_tokens applies "
        "where a provider requires a cap); a reply cut at a limit is recorded as agent:output_truncated.",
    )
    temperature: StrictFloat | None = Field(default=0.0, ge=0, description="Sampling temperature (None: provider's).")
    setup: Literal["cumulative", "isolated"] = Field(
        default="cumulative",
        description="cumulative: the agent lives with its own calls across the conversation; isolated: before each "
        "turn the world and history are the gold ones (gold calls replayed with their real results), so one "
        "mistake does not contaminate the next turn's measurement.",
    )
    arg_match: Literal["exact", "normalised", "embedding", "llm"] = Field(
        default="exact",
        description="How argument values match: exact; normalised (numbers, dates, times, case, punctuation, "
        "state abbreviations written differently); embedding (normalised, then MiniLM similarity for free text); "
        "llm (normalised, then the judge model for free text: --judge-model).",
    )
    arg_match_params: Annotated[
        dict[str, Literal["exact", "normalised", "embedding", "llm"]],
        Option("--arg-match-param", repeat=True, parse=param_modes),
    ] = Field(
        default_factory=dict,
        description="Per-parameter match modes that differ from arg_match: 'tool.param', '*.param' or 'tool.*' -> "
        "mode (the most specific wins).",
    )
    embedding_threshold: StrictFloat = Field(default=0.8, gt=0, le=1, description="Cosine threshold in embedding mode.")
    error_judge: Literal["embedding", "llm", "off"] = Field(
        default="embedding",
        description="How replies after a failure are scored 1-5 against the reference response: llm (the judge "
        "model), embedding (MiniLM similarity, offline: a proxy that agrees poorly with people, reported as such; "
        "off when the embed extra is not installed), or off. Default: llm where a judge model is given "
        "(--judge-model), else embedding.",
    )
    judge_model: str = Field(
        default="local",
        description="Model the judges that ask a model run on (--error-judge llm, --answer-judge llm, --arg-match "
        "llm): local (the embedded model) or any model spec.",
    )
    answer_judge: Literal["off", "embedding", "llm"] = Field(
        default="off",
        description="Question goals' final replies against the gold answer, by meaning (answer_match): embedding "
        "(MiniLM similarity >= answer_threshold), llm (--judge-model), or off (answer_facts checks facts anyway).",
    )
    answer_threshold: StrictFloat = Field(
        default=0.7, gt=0, le=1, description="Cosine threshold of --answer-judge embedding."
    )
    backend: Literal["inprocess", "ray"] = Field(
        default="inprocess",
        description="Where episodes run: inprocess (this process's event loop) or ray (actors on a Ray cluster, "
        "rate limits split evenly among them); either way this process stores, judges and summarises.",
    )
    ray_address: str | None = Field(
        default=None,
        description="--backend ray: address of an existing Ray cluster (e.g. 10.0.0.5:6379); default: a local "
        "cluster bound to 127.0.0.1, started for the run and shut down after it. Ignored by inprocess.",
    )
    ray_workers: StrictInt | None = Field(
        default=None,
        ge=1,
        le=10_000,
        description="--backend ray: worker actors (default: the cluster's CPUs; never more than --concurrency). "
        "Ignored by inprocess.",
    )
    workers: StrictInt | None = Field(
        default=None,
        ge=1,
        le=1024,
        description="Local worker processes playing the episodes (default: 1 below 200 episodes in flight, else the "
        "machine's cores); rate limits and episode slots are split among them, this process stores, judges and "
        "summarises. --backend ray uses --ray-workers instead.",
    )
    endpoints: Annotated[dict[str, EndpointSettings], Option("--endpoint", repeat=True, parse=endpoint_tables)] = Field(
        default_factory=dict,
        description="Named OpenAI-compatible endpoints ([endpoints.NAME]: base_url, api_key_env, headers, "
        "input_price, output_price, sampling); a model names one as openai-chat:MODEL@NAME.",
    )
    system_prompt: Annotated[str | None, Option(parse=text_or_file)] = Field(
        default=None,
        max_length=100_000,
        description="Text put before the world's instructions in the agent's system prompt (--system-prompt TEXT or "
        "@FILE).",
    )
    tool_descriptions: StrictInt | None = Field(
        default=None,
        ge=0,
        description="Cut each tool's description to at most N characters in what the agent is shown (0: drop them); "
        "default: whole.",
    )
    param_descriptions: Literal["keep", "drop"] = Field(
        default="keep", description="keep | drop the descriptions of tool parameters in what the agent is shown."
    )
    preflight: Annotated[bool, Option("--no-preflight", switch=False)] = Field(
        default=True,
        description="Before the run folder is made, check the agent's endpoint answers, the model exists and (native "
        "agents) takes tools: one tiny request.",
    )
    max_failed: StrictFloat | None = Field(
        default=None,
        ge=0,
        le=1,
        description="Exit 3 when more than this share of episodes failed (provider, user or harness faults); "
        "default: only when every episode failed.",
    )
    fail_under: Annotated[dict[str, StrictFloat], Option(repeat=True, parse=thresholds)] = Field(
        default_factory=dict,
        description="METRIC -> threshold: exit 4 when a headline metric of summary.json is below it "
        "(e.g. core_api_accuracy = 0.8).",
    )
    retry: Annotated[RetryPolicy, CONFIG_FILE_ONLY] = Field(
        default_factory=RetryPolicy,
        description="How provider faults are retried (a [retry] table: max_attempts, base_delay_s, max_delay_s, "
        "max_retry_after_s, rate_limit_budget_s, max_malformed).",
    )

    _sources: dict[str, str] = PrivateAttr(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _error_judge_default(cls, data: Any) -> Any:
        # The embedding rater is a weak proxy (judges.errors.error_handling.EMBEDDING_KAPPA), so a judge model the user
        # named rates errors too unless they chose a rater. Only the default moves: a stored manifest's config
        # carries error_judge explicitly, so `squall score` keeps the rater the run had.
        if isinstance(data, dict) and "error_judge" not in data and data.get("judge_model") is not None:
            return {**data, "error_judge": "llm"}
        return data

    @field_validator("out", "cache_dir")
    @classmethod
    def _usable_path(cls, value: Path) -> Path:
        # Caught here, named by field, rather than as an OSError from the first stat() somewhere downstream.
        text = str(value)
        if "\x00" in text:
            raise ValueError("a path cannot contain a NUL character")
        if any(len(part.encode()) > 255 for part in value.parts):
            raise ValueError("a path component is longer than 255 bytes")
        return value

    @field_validator("sample")
    @classmethod
    def _sample_parses(cls, value: str | None) -> str | None:
        return None if value is None else parse_sample(value).text

    @field_validator("run_id")
    @classmethod
    def _run_id_is_a_name(cls, value: str | None) -> str | None:
        # A name, never a path: '.', '..' or a separator would put the run outside --out.
        if value is not None and (not RUN_ID.fullmatch(value) or value == "latest"):
            raise ValueError(
                f"{value!r} is not a run name: use 1-128 letters, digits, '.', '_' or '-', starting with a letter or "
                "digit (not a path, not 'latest')"
            )
        return value

    @field_validator("endpoints")
    @classmethod
    def _endpoint_names(cls, value: dict[str, EndpointSettings]) -> dict[str, EndpointSettings]:
        bad = [name for name in value if not ENDPOINT_NAME.fullmatch(name)]
        if bad:
            raise ValueError(f"{bad[0]!r} is not an endpoint name: letters, digits, '.', '_' or '-'")
        return value

    @property
    def requests_per_endpoint(self) -> int:
        return self.endpoint_concurrency or self.concurrency

    def build_scheduler(self, log_path: Path | None = None) -> Scheduler:
        """The run's admission control: pinned when --endpoint-concurrency is given, else adaptive."""
        from sim.llm.admission.decision_log import DecisionLog
        from sim.llm.admission.scheduler import EndpointLimits, Scheduler

        limits = EndpointLimits(
            concurrency=self.endpoint_concurrency,
            initial=self.concurrency,
            ceiling=self.concurrency,
            tpm=self.tpm,
            rpm=self.rpm,
        )
        # The decisions go to the file only: echoed on a terminal they printed over the progress bar and into
        # `squall chat` (issue 23); `tail -f RUN_DIR/scheduler.jsonl` shows them live.
        return Scheduler(
            limits, max_concurrency=self.concurrency, log=DecisionLog(log_path, console=False) if log_path else None
        )

    def config_hash(self, *, with_endpoint: bool = False) -> str:
        """The hash of what the run measures. The endpoint's address is left out of the model strings
        (``sim.config.identity``); ``with_endpoint`` gives the form runs were stored with before that."""
        identity = self.model_dump(mode="json", include=set(IDENTITY_FIELDS))
        if not with_endpoint:
            identity |= {name: without_endpoint(identity[name]) for name in ENDPOINT_FIELDS}
        for name, default in LATER_IDENTITY_DEFAULTS.items():
            if identity.get(name) == default:
                del identity[name]
        return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]

    def where(self, field: str) -> str:
        """Where a field's value came from, for error messages: '--agent', 'run.toml:3: field 'agent''..."""
        return self._sources.get(field) or f"field '{field}'"

    def problem(self, field: str, message: str) -> ConfigError:
        return ConfigError(f"{self.where(field)}: {message}")


def default_run_id(out: Path) -> str:
    """The run folder's name when none is given: the start time, UTC, to the second, then ``-2``, ``-3``... when
    ``out`` already has that folder (two runs started in one second: the second was refused as a resume)."""
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    name, n = stamp, 1
    while (out / name).exists():
        n += 1
        name = f"{stamp}-{n}"
    return name


def option_of(field: str) -> Option:
    """The command-line side of a RunConfig field (``Option()``: plain ``--field-name VALUE``)."""
    info = RunConfig.model_fields[field]
    return next((m for m in info.metadata if isinstance(m, Option)), Option())


def option_name(field: str) -> str:
    """The option that sets a field: ``--episode-timeout`` for ``episode_timeout_s``, ``--agent`` for ``agent``."""
    if field not in RunConfig.model_fields:
        return "--" + field.replace("_", "-")
    return option_of(field).flag or "--" + field.replace("_", "-")
