"""Configuration of the mock LLM server: policy, faults, rate limits, latency. Loadable from JSON or TOML."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator


class _Frozen(BaseModel):
    # extra="forbid" so a typo in a config file is an error, not a silently ignored key.
    model_config = ConfigDict(frozen=True, extra="forbid")


class ScriptedToolCall(_Frozen):
    """One tool call the scripted model makes."""

    name: str = Field(description="Function name to call (need not exist in the request's tools).")
    arguments: dict[str, Any] | str = Field(
        default_factory=dict,
        description="Arguments; a dict is sent as JSON, a string is sent verbatim (to script invalid JSON).",
    )


class Step(_Frozen):
    """One assistant turn of a script: text, tool calls, or both."""

    text: str | None = Field(default=None, description="Assistant message content.")
    tool_calls: list[ScriptedToolCall] | None = Field(default=None, description="Tool calls to make.")

    @model_validator(mode="after")
    def _not_empty(self) -> Step:
        if self.text is None and not self.tool_calls:
            raise ValueError("a step needs 'text' or a non-empty 'tool_calls'")
        return self


class ScriptPolicy(_Frozen):
    """Walks a script; the step is the number of assistant messages already in the request."""

    kind: Literal["script"] = "script"
    steps: list[Step] = Field(min_length=1, description="Default script, used when no by_user key matches.")
    by_user: dict[str, list[Step]] = Field(
        default_factory=dict,
        description="Scripts keyed by a substring of the first user message; the first matching key wins.",
    )
    after_end: str | None = Field(
        default=None, description="Text answered past the end of a script; None repeats the last step."
    )

    @model_validator(mode="after")
    def _scripts_not_empty(self) -> ScriptPolicy:
        for key, steps in self.by_user.items():
            if not steps:
                raise ValueError(f"by_user[{key!r}] is an empty script")
        return self


class EchoPolicy(_Frozen):
    """Answers with text echoing the last user message."""

    kind: Literal["echo"] = "echo"
    prefix: str = Field(default="echo: ", description="Prepended to the echoed text.")


class FirstToolPolicy(_Frozen):
    """Calls the request's first tool with schema-built arguments, then answers done_text after its result."""

    kind: Literal["first_tool"] = "first_tool"
    done_text: str = Field(default="done", description="Answer once the last message is a tool result.")


PolicyConfig = Annotated[ScriptPolicy | EchoPolicy | FirstToolPolicy, Field(discriminator="kind")]

FaultKind = Literal["rate_limit", "server_error", "timeout", "malformed"]
MalformedVariant = Literal["invalid_json", "missing_choices", "not_json"]


class FaultRule(_Frozen):
    """A fault injected on matching requests (by 1-based global ordinal, every N-th, or probability)."""

    kind: FaultKind = Field(description="What goes wrong.")
    at: list[Annotated[int, Field(ge=1)]] = Field(default_factory=list, description="1-based request ordinals.")
    every: int | None = Field(default=None, ge=1, description="Every N-th request (N, 2N, ...).")
    probability: float | None = Field(
        default=None, ge=0.0, le=1.0, description="Exact share of requests (one seeded draw per request, see faults)."
    )
    retry_after_s: float = Field(default=1.0, ge=0.0, description="rate_limit: seconds asked to wait.")
    retry_after_ms_header: bool = Field(
        default=True, description="rate_limit: also send retry-after-ms (OpenAI does); Retry-After is always sent."
    )
    status: Literal[500, 502, 503] = Field(default=500, description="server_error: HTTP status.")
    hang_s: float = Field(default=30.0, ge=0.0, description="timeout: seconds to hang before answering normally.")
    variant: MalformedVariant = Field(
        default="invalid_json",
        description="malformed: truncated JSON, JSON without 'choices', or a text/plain body.",
    )

    @model_validator(mode="after")
    def _has_matcher(self) -> FaultRule:
        if not self.at and self.every is None and self.probability is None:
            raise ValueError("a fault rule needs 'at', 'every' or 'probability'")
        return self


class RateLimit(_Frozen):
    """Request and token limits per window, enforced as token buckets or sliding windows (see limits.RateLimiter).

    A token bucket holds up to its per-window limit, refilled continuously at limit / window_s and starting full.
    A sliding window admits at most the limit in any window_s, each charge freed window_s after it was made. A
    request is admitted only when both limits hold its cost and is then charged to both; others get 429 with
    Retry-After / retry-after-ms set to the time until enough capacity is back.
    """

    algorithm: Literal["token_bucket", "sliding_window"] = Field(
        default="token_bucket",
        description="token_bucket: starts full, refills continuously (OpenAI's model). sliding_window: at most the "
        "limit in any window, nothing freed until a window after each charge.",
    )
    rpm: int | None = Field(default=None, ge=1, description="Requests allowed per window; None: no request limit.")
    tpm: int | None = Field(
        default=None,
        ge=1,
        description="Tokens allowed per window; None: no token limit. A request costs exactly the usage.total_tokens "
        "its answer reports (prompt estimate + the completion it gets), charged when it is admitted. A request "
        "costing more than tpm can never fit: 429 'Request too large', without Retry-After.",
    )
    window_s: float = Field(
        default=60.0,
        gt=0.0,
        description="Window of rpm and tpm; shorten it in tests. The headers report rpm and tpm as configured, which "
        "clients read as per-minute numbers: keep 60 where a client paces by them.",
    )
    retry_after_ms_header: bool = Field(default=True, description="Also send retry-after-ms on the limiter's 429s.")
    send_headers: bool = Field(
        default=True,
        description="Send x-ratelimit-limit/remaining/reset-requests (and -tokens) on every chat completion answer, "
        "429s included, for each configured limit.",
    )

    @model_validator(mode="after")
    def _has_limit(self) -> RateLimit:
        if self.rpm is None and self.tpm is None:
            raise ValueError("a rate limit needs 'rpm', 'tpm' or both")
        return self


class _LatencyBase(_Frozen):
    per_output_token_s: float = Field(
        default=0.0, ge=0.0, description="Seconds added per completion token (decode time)."
    )
    per_prompt_token_s: float = Field(default=0.0, ge=0.0, description="Seconds added per prompt token (prefill).")


class FixedLatency(_LatencyBase):
    """The same base latency for every completion."""

    kind: Literal["fixed"] = "fixed"
    value_s: float = Field(ge=0.0, description="Base latency in seconds.")


class UniformLatency(_LatencyBase):
    """Base latency drawn uniformly from [low_s, high_s]."""

    kind: Literal["uniform"] = "uniform"
    low_s: float = Field(ge=0.0, description="Shortest base latency in seconds.")
    high_s: float = Field(ge=0.0, description="Longest base latency in seconds (>= low_s).")

    @model_validator(mode="after")
    def _ordered(self) -> UniformLatency:
        if self.high_s < self.low_s:
            raise ValueError("'high_s' must be >= 'low_s'")
        return self


class LognormalLatency(_LatencyBase):
    """Base latency drawn from a lognormal: right-skewed with a long tail, as measured provider latencies are."""

    kind: Literal["lognormal"] = "lognormal"
    median_s: float = Field(gt=0.0, description="Median base latency in seconds (exp of the underlying normal's mean).")
    sigma: float = Field(ge=0.0, description="Standard deviation of the underlying normal; 0 is fixed, 1 a long tail.")
    max_s: float | None = Field(default=None, gt=0.0, description="Cap on the base latency; None: uncapped.")


LatencyConfig = Annotated[FixedLatency | UniformLatency | LognormalLatency, Field(discriminator="kind")]


class MockConfig(_Frozen):
    """Everything the mock server does."""

    policy: PolicyConfig = Field(description="How answers are produced.")
    faults: list[FaultRule] = Field(
        default_factory=list,
        description="Checked in order; the first match wins. Probability rules split one uniform draw per request "
        "into disjoint slices, so their probabilities are exact shares of requests and must add up to at most 1.",
    )
    rate_limit: RateLimit | None = Field(default=None, description="Optional request and token limits.")
    latency_s: float = Field(default=0.0, ge=0.0, description="Base latency added to every completion.")
    jitter_s: float = Field(default=0.0, ge=0.0, description="Extra uniform random latency in [0, jitter_s].")
    latency: LatencyConfig | None = Field(
        default=None,
        description="Latency distribution (fixed, uniform, lognormal) plus per-token terms; replaces latency_s and "
        "jitter_s (set one or the other). Drawn per admitted completion from an RNG seeded by 'seed'.",
    )
    seed: int = Field(default=0, description="Seeds the fault and latency RNGs.")
    model: str = Field(default="mock-model", description="Model name reported in responses and /v1/models.")

    @field_validator("faults")
    @classmethod
    def _probabilities_fit(cls, faults: list[FaultRule]) -> list[FaultRule]:
        total = sum(f.probability or 0.0 for f in faults)
        if total > 1.0 + 1e-9:
            raise ValueError(f"fault probabilities add up to {total:g}, more than 1")
        return faults

    @field_validator("latency")
    @classmethod
    def _one_latency_style(cls, latency: LatencyConfig | None, info: ValidationInfo) -> LatencyConfig | None:
        if latency is not None and (info.data.get("latency_s") or info.data.get("jitter_s")):
            raise ValueError("set 'latency' or the older 'latency_s'/'jitter_s', not both")
        return latency


class MockConfigError(ValueError):
    """A config file that cannot be read, parsed or validated; the message names the file and field."""


def _format_validation(path: Path, err: ValidationError) -> str:
    lines = []
    for e in err.errors():
        loc = ".".join(str(p) for p in e["loc"]) or "<root>"
        lines.append(f"{path}: field '{loc}': {e['msg']}")
    return "\n".join(lines)


def parse_mock_config(data: Any, source: Path) -> MockConfig:
    """Validate already-parsed data; `source` only labels errors."""
    try:
        return MockConfig.model_validate(data)
    except ValidationError as e:
        raise MockConfigError(_format_validation(source, e)) from e


def load_mock_config(path: Path) -> MockConfig:
    """Load a config from a .json or .toml file; raises MockConfigError naming the file and field."""
    path = Path(path)
    raw = _read_config(path)
    suffix = path.suffix.lower()
    if suffix not in (".json", ".toml"):
        raise MockConfigError(f"{path}: unknown config format {suffix!r} (use .json or .toml)")
    try:
        data = json.loads(raw) if suffix == ".json" else tomllib.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as e:  # decode errors, not UTF-8, an integer too long, nesting too deep
        raise MockConfigError(f"{path}: invalid {suffix[1:].upper()}: {e or type(e).__name__}") from e
    if _depth_over(data, _MAX_DEPTH):
        raise MockConfigError(f"{path}: nested deeper than {_MAX_DEPTH} levels")
    return parse_mock_config(data, path)


_MAX_CONFIG_BYTES = 4 << 20
_MAX_DEPTH = 64


def _read_config(path: Path) -> bytes:
    """The file, if it is a regular one of at most 4 MiB (a FIFO would block, ``/dev/zero`` never ends).

    The mock server sits beside ``sim.core`` in the lowest layer and may not import it, so this is a small copy of
    ``sim.core.bounded_read`` (stat first, then a read of at most limit + 1 bytes)."""
    try:
        if not path.is_file():  # False for a FIFO, a device, a directory or a missing path
            reason = "no such file" if not path.exists() else "not a regular file"
            raise MockConfigError(f"{path}: cannot read: {reason}")
        with path.open("rb") as file:
            raw = file.read(_MAX_CONFIG_BYTES + 1)
    except OSError as e:
        raise MockConfigError(f"{path}: cannot read: {e.strerror or e}") from e
    if len(raw) > _MAX_CONFIG_BYTES:
        raise MockConfigError(f"{path}: over the {_MAX_CONFIG_BYTES >> 20} MiB limit for a config file")
    return raw


def _depth_over(value: Any, limit: int) -> bool:
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth >= limit:
                return True
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return False
