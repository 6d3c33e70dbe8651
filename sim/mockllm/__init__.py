"""Mock OpenAI-compatible Chat Completions server: scripted policies, latency, rate limits, faults of every kind."""

from sim.mockllm.config import (
    EchoPolicy,
    FaultRule,
    FirstToolPolicy,
    FixedLatency,
    LatencyConfig,
    LognormalLatency,
    MockConfig,
    MockConfigError,
    PolicyConfig,
    RateLimit,
    ScriptedToolCall,
    ScriptPolicy,
    Step,
    UniformLatency,
    load_mock_config,
    parse_mock_config,
)
from sim.mockllm.server import MockServer, run_server, serve, start_mock_server
from sim.mockllm.stats import ServerStats

__all__ = [
    "EchoPolicy",
    "FaultRule",
    "FirstToolPolicy",
    "FixedLatency",
    "LatencyConfig",
    "LognormalLatency",
    "MockConfig",
    "MockConfigError",
    "MockServer",
    "PolicyConfig",
    "RateLimit",
    "ScriptPolicy",
    "ScriptedToolCall",
    "ServerStats",
    "Step",
    "UniformLatency",
    "load_mock_config",
    "parse_mock_config",
    "run_server",
    "serve",
    "start_mock_server",
]
