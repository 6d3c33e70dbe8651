"""The one gateway a process builds from a run's configuration: admission, retries and cache as the config says.

It lives beside the config, below the run and judging layers, because both build one: the run for its agent and
users, judging for a judge model."""

from __future__ import annotations

from pathlib import Path

from sim.config.run_config import RunConfig
from sim.llm.admission.policy import AdmissionPolicy
from sim.llm.admission.scheduled import ScheduledAdmission
from sim.llm.admission.static import StaticAdmission
from sim.llm.cache import ResponseCache
from sim.llm.gateway import Gateway


def response_cache(config: RunConfig) -> ResponseCache | None:
    """The run's response cache, or None when it is off."""
    if config.cache == "off":
        return None
    return ResponseCache(config.cache_dir, config.cache)


def admission_policy(config: RunConfig, decision_log: Path | None = None) -> AdmissionPolicy:
    """squall's scheduler as the config sets it up, or the static baseline (``scheduler = "static"``)."""
    if config.scheduler == "static":
        return StaticAdmission(config.requests_per_endpoint, config.retry, seed=config.seed)
    return ScheduledAdmission(config.build_scheduler(decision_log), config.retry, seed=config.seed)


def build_gateway(config: RunConfig, decision_log: Path | None = None) -> Gateway:
    """A process's one gateway, as the config says (admission, retries, cache); close it with aclose()."""
    return Gateway(
        admission_policy(config, decision_log),
        cache=response_cache(config),
        request_timeout_s=config.request_timeout_s,
        connect_timeout_s=config.connect_timeout_s,
        endpoints=config.endpoints,
    )
