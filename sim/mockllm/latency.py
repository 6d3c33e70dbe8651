"""How long a completion takes: a seeded base-latency draw plus per-token terms."""

from __future__ import annotations

import math
import random

from sim.mockllm.config import FixedLatency, LatencyConfig, LognormalLatency, MockConfig, UniformLatency


def legacy_latency(latency_s: float, jitter_s: float) -> UniformLatency:
    """The older `latency_s` + uniform [0, jitter_s] fields, as a distribution."""
    return UniformLatency(low_s=latency_s, high_s=latency_s + jitter_s)


class LatencySampler:
    """Draws each completion's delay; its own RNG, so latency settings never change which requests get faults."""

    def __init__(self, config: MockConfig) -> None:
        self._model: LatencyConfig = config.latency or legacy_latency(config.latency_s, config.jitter_s)
        self._rng = random.Random(f"{config.seed}:jitter")

    def delay_s(self, prompt_tokens: int, completion_tokens: int) -> float:
        m = self._model
        return self._base() + m.per_prompt_token_s * prompt_tokens + m.per_output_token_s * completion_tokens

    def _base(self) -> float:
        m = self._model
        if isinstance(m, FixedLatency):
            return m.value_s
        if isinstance(m, UniformLatency):
            # No draw for a zero-width range, so configs without jitter leave the RNG untouched.
            return self._rng.uniform(m.low_s, m.high_s) if m.high_s > m.low_s else m.low_s
        assert isinstance(m, LognormalLatency)
        value = self._rng.lognormvariate(math.log(m.median_s), m.sigma)
        return min(value, m.max_s) if m.max_s is not None else value
