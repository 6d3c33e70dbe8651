"""One run's limits split among N worker processes, so that together they ask no more than one process would.

Each worker gets an even share of the episode slots, of a pinned connection limit and of configured TPM / RPM
budgets. Learned budgets need the same split: every worker reads the provider's *global* ``x-ratelimit-limit-*`` and
``x-ratelimit-remaining-*`` headers, and N workers each pacing to the global limit would send N times it. A worker's
scheduler therefore reads those two numbers scaled by its share (1/N): the workers' buckets then add up to the one
bucket a single process would keep, corrected by the same global remaining count, with no cross-process traffic on
the hot path. Retry-After and reset durations are times, not budgets: they are read as sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import suppress
from pathlib import Path
from typing import Any

from pydantic import Field
from typing_extensions import override

from sim.config.run_config import RunConfig
from sim.llm.admission.adaptive_limit import Budgets, Mark
from sim.llm.admission.decision_log import DecisionLog
from sim.llm.admission.scheduler import EndpointLimits, Scheduler, _Endpoint
from worlds.registry import BUILTIN_WORLDS

SCALED_HEADERS = tuple(
    f"x-ratelimit-{kind}-{resource}" for kind in ("limit", "remaining") for resource in ("tokens", "requests")
)


def split(total: int, parts: int) -> list[int]:
    """``total`` in ``parts`` shares that differ by at most one and add up to it."""
    base, extra = divmod(total, parts)
    return [base + (i < extra) for i in range(parts)]


def worker_count(config: RunConfig, wanted: int) -> int:
    """Workers that can each get at least one episode slot and one connection."""
    return max(1, min(wanted, config.concurrency, config.endpoint_concurrency or wanted))


def worker_configs(config: RunConfig, workers: int) -> list[WorkerConfig]:
    """Each worker's config: the run's, with its share of every per-run limit. ``workers`` <= ``worker_count``."""

    def shares(total: int | None) -> list[int | None]:
        return [max(1, n) for n in split(total, workers)] if total else [None] * workers

    slots, pinned, tpm, rpm = (
        split(config.concurrency, workers),
        shares(config.endpoint_concurrency),
        shares(config.tpm),
        shares(config.rpm),
    )
    base = config.model_dump()
    # Relative paths are the driver's: absolute, a worker started in another folder reads and writes the same files.
    base["cache_dir"] = config.cache_dir.absolute()
    if config.world not in BUILTIN_WORLDS and Path(config.world).exists():
        base["world"] = str(Path(config.world).absolute())
    return [
        WorkerConfig.model_validate(
            {
                **base,
                "concurrency": slots[i],
                "endpoint_concurrency": pinned[i],
                "tpm": tpm[i],
                "rpm": rpm[i],
                "share": 1 / workers,
                "sources": config._sources,
            }
        )
        for i in range(workers)
    ]


class WorkerConfig(RunConfig):
    """A worker's run config: its share of the run's limits, and a scheduler that reads the provider's global
    budgets as its share of them."""

    share: float = Field(default=1.0, gt=0, le=1, description="This worker's share of the run's rate limits.")
    sources: dict[str, str] = Field(
        default_factory=dict, description="Where the driver's settings came from: a worker's errors name the option."
    )

    @override
    def model_post_init(self, context: Any, /) -> None:
        super().model_post_init(context)
        self._sources = dict(self.sources)

    @override
    def build_scheduler(self, log_path: Path | None = None) -> Scheduler:
        whole = super().build_scheduler(log_path)
        if self.share == 1:
            return whole
        return ShareScheduler(
            self.share, whole.default, whole.per_endpoint, max_concurrency=whole.max_concurrency, log=whole.log
        )


def share_of(headers: Mapping[str, str], share: float) -> Mapping[str, str]:
    """The headers with the limit and remaining counts scaled by ``share`` (unreadable values are left alone)."""
    if not any(name in headers for name in SCALED_HEADERS):
        return headers
    scaled = dict(headers)
    for name in SCALED_HEADERS:
        if (value := headers.get(name)) is not None:
            with suppress(ValueError):
                scaled[name] = repr(float(value) * share)
    return scaled


class ShareBudgets(Budgets):
    """An endpoint's TPM / RPM budgets that read the provider's global counts as ``share`` of them."""

    __slots__ = ("share",)

    def __init__(
        self,
        share: float,
        endpoint: str,
        tpm: int | None,
        rpm: int | None,
        utilization: float,
        now: float,
        log: DecisionLog,
    ) -> None:
        super().__init__(endpoint, tpm, rpm, utilization, now, log)
        self.share = share

    @override
    def observe(self, headers: Mapping[str, str], mark: Mark, now: float) -> None:
        super().observe(share_of(headers, self.share), mark, now)

    @override
    def retry_wait(self, tokens: int, headers: Mapping[str, str], now: float) -> float:
        return super().retry_wait(tokens, share_of(headers, self.share), now)

    @override
    def _report(self, *args: Any, **kwargs: Any) -> None:
        # A share of the provider's report is a share of what was left when *this* worker's request was admitted;
        # the other workers' admissions since are unknown here, so pacing up from it overruns a window (57 429s in
        # 600 requests with 4 workers). A worker's reports only lower its bucket, as before.
        return None


class ShareScheduler(Scheduler):
    """A worker's scheduler: its endpoints' budgets are ``ShareBudgets``."""

    def __init__(
        self,
        share: float,
        default: EndpointLimits,
        per_endpoint: Mapping[str, EndpointLimits],
        *,
        max_concurrency: int,
        log: DecisionLog,
    ) -> None:
        super().__init__(default, per_endpoint, max_concurrency=max_concurrency, log=log)
        self.share = share

    @override
    def _endpoint(self, name: str) -> _Endpoint:
        # A hook into the scheduler's internals (checked by @override): a share read by Budgets itself would be a
        # cleaner home, and would let this class go.
        ep = super()._endpoint(name)
        limits = ep.limits
        ep.budgets = ShareBudgets(self.share, name, limits.tpm, limits.rpm, limits.utilization, ep.clock(), ep.log)
        return ep
