"""Test helpers: a SQL world's REST server on 127.0.0.1:0, run by an event loop in a thread, so tests drive it with
plain blocking clients (http.client, raw sockets, schemathesis); or `squall serve` in a child process."""

from __future__ import annotations

import asyncio
import http.client
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sim.bench.mock_process import REPO_ROOT, stop_pid
from worlds.sql.engine.world import SqlPack
from worlds.sql.serve.rest import RestServer, start_rest_server


@contextmanager
def rest_server_in_thread(pack: SqlPack) -> Iterator[RestServer]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        server = asyncio.run_coroutine_threadsafe(start_rest_server(pack), loop).result(timeout=30)
        try:
            yield server
        finally:
            asyncio.run_coroutine_threadsafe(server.close(), loop).result(timeout=30)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()


def request(
    port: int, method: str, target: str, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One request on its own connection: (status, headers, body)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request(method, target, headers=headers or {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


@contextmanager
def served(folder: Path, *extra: str) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """`squall serve --world sql_sample` in a child process (stopped by PID on exit), once it wrote its port file.
    It leaves its token where the environment's ``XDG_RUNTIME_DIR`` says (set it per test)."""
    folder.mkdir(parents=True, exist_ok=True)
    port_file = folder / "port"
    cmd = [sys.executable, "-m", "sim", "serve", "--world", "sql_sample", "--port-file", str(port_file), *extra]
    proc = subprocess.Popen(cmd, cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while not port_file.exists():
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "no port file"
            time.sleep(0.05)
        yield proc, int(port_file.read_text())
    finally:
        stop_pid(proc)
