"""Test helper: the mock LLM server as a subprocess (the implementation lives in sim.bench.mock_process)."""

from sim.bench.mock_process import REPO_ROOT, MockLLMProcess, mock_llm_server, stop_pid

__all__ = ["REPO_ROOT", "MockLLMProcess", "mock_llm_server", "stop_pid"]
