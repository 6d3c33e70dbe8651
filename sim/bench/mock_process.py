"""Run the mock LLM server as a subprocess (`python -m sim.mockllm`) for the length of a `with` block.

Used by `squall bench` (the mock's CPU stays out of the harness's measurement) and by the tests.

    with mock_llm_server({"policy": {"kind": "echo"}}) as srv:
        client = AsyncOpenAI(base_url=srv.url, api_key="x", max_retries=0, http_client=...)

As a pytest fixture:

    @pytest.fixture
    def llm() -> Iterator[MockLLMProcess]:
        with mock_llm_server(MockConfig(policy=EchoPolicy())) as srv:
            yield srv
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, NamedTuple

from sim.mockllm.config import MockConfig

REPO_ROOT = Path(__file__).resolve().parents[2]


class MockLLMProcess(NamedTuple):
    """A running mock server: `url` is the OpenAI base URL (http://127.0.0.1:PORT/v1)."""

    url: str
    pid: int
    port: int

    def stats(self) -> dict[str, Any]:
        """The server's counters (GET /stats)."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/stats", timeout=5) as resp:
            data: dict[str, Any] = json.load(resp)
        return data


def _write_config(config: MockConfig | Mapping[str, Any] | Path, folder: Path) -> Path:
    if isinstance(config, Path):
        return config
    path = folder / "mockllm.json"
    text = config.model_dump_json() if isinstance(config, MockConfig) else json.dumps(config)
    path.write_text(text)
    return path


def stop_pid(proc: subprocess.Popen[Any], grace_s: float = 5.0) -> None:
    """SIGTERM by PID, then SIGKILL if it has not exited within grace_s; always reaps it."""
    if proc.poll() is None:
        with suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            with suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGKILL)
            proc.wait()


def _wait_for_port(proc: subprocess.Popen[bytes], port_file: Path, log: Path, timeout_s: float) -> int:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if port_file.exists():
            return int(port_file.read_text().strip())
        if proc.poll() is not None:
            raise RuntimeError(f"mock LLM server exited with {proc.returncode}:\n{log.read_text()}")
        time.sleep(0.02)
    raise TimeoutError(f"mock LLM server wrote no port file within {timeout_s}s:\n{log.read_text()}")


@contextmanager
def mock_llm_server(
    config: MockConfig | Mapping[str, Any] | Path,
    *,
    max_lifetime_s: float = 120.0,
    startup_timeout_s: float = 20.0,
    host: str = "127.0.0.1",
) -> Iterator[MockLLMProcess]:
    """Start `python -m sim.mockllm` with `config` (a model, a dict, or an existing .json/.toml file).

    Yields once the port file exists; stops the process by PID on exit. `max_lifetime_s` makes the server exit
    by itself even if this process dies without cleaning up. Raises RuntimeError (with the server's stderr) if
    the server exits during startup, e.g. on a bad config.
    """
    with tempfile.TemporaryDirectory(prefix="mockllm-") as tmp:
        folder = Path(tmp)
        config_path = _write_config(config, folder)
        port_file = folder / "port"
        log = folder / "stderr.log"
        cmd = [sys.executable, "-m", "sim.mockllm", "--config", str(config_path), "--host", host]
        cmd += ["--port", "0", "--port-file", str(port_file), "--max-lifetime", str(max_lifetime_s)]
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH")) if p)
        with log.open("wb") as log_fh:
            proc = subprocess.Popen(cmd, cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log_fh)
        try:
            port = _wait_for_port(proc, port_file, log, startup_timeout_s)
            yield MockLLMProcess(url=f"http://{host}:{port}/v1", pid=proc.pid, port=port)
        finally:
            stop_pid(proc)
