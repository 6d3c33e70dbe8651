"""Mock OpenAI-compatible Chat Completions server: scripted policies, latency, 429s, 5xx, hangs, malformed bodies."""

from sim.mockllm.config import (
    EchoPolicy,
    FaultRule,
    FirstToolPolicy,
    MockConfig,
    MockConfigError,
    PolicyConfig,
    RateLimit,
    ScriptedToolCall,
    ScriptPolicy,
    Step,
    load_mock_config,
    parse_mock_config,
)
from sim.mockllm.server import MockServer, ServerStats, run_server, serve, start_mock_server

__all__ = [
    "EchoPolicy",
    "FaultRule",
    "FirstToolPolicy",
    "MockConfig",
    "MockConfigError",
    "MockServer",
    "PolicyConfig",
    "RateLimit",
    "ScriptPolicy",
    "ScriptedToolCall",
    "ServerStats",
    "Step",
    "load_mock_config",
    "parse_mock_config",
    "run_server",
    "serve",
    "start_mock_server",
]
