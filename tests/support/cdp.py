"""A minimal Chrome DevTools Protocol client for tests: headless Chromium on 127.0.0.1, driven over one page's
websocket with aiohttp. Every await has a timeout; the browser is killed by its PID on the way out."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import signal
import subprocess
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp

TIMEOUT_S = 20.0


class CDPError(Exception):
    """The browser did not start, answered with an error, or took too long."""


class Page:
    """One page target: ``call`` sends a command and waits for its answer; events are collected as they come."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.events: list[dict[str, Any]] = []
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for msg in self.ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                continue
            data = json.loads(msg.data)
            future = self._waiting.pop(data.get("id", -1), None)
            if future is not None and not future.done():
                future.set_result(data)
            elif "method" in data:
                self.events.append(data)

    async def call(self, method: str, limit_s: float = TIMEOUT_S, **params: Any) -> dict[str, Any]:
        ident = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[ident] = future
        await asyncio.wait_for(self.ws.send_str(json.dumps({"id": ident, "method": method, "params": params})), limit_s)
        answer = await asyncio.wait_for(future, limit_s)
        if "error" in answer:
            raise CDPError(f"{method}: {answer['error']}")
        return dict(answer.get("result") or {})

    async def evaluate(self, expression: str) -> Any:
        result = await self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise CDPError(f"evaluate {expression!r}: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def wait_event(self, method: str, since: int = 0, limit_s: float = TIMEOUT_S) -> dict[str, Any]:
        """The first event named ``method`` at index ``since`` or later in ``events``."""
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline:
            for ev in self.events[since:]:
                if ev["method"] == method:
                    return ev
            await asyncio.sleep(0.05)
        raise CDPError(f"no {method} within {limit_s}s")

    async def navigate(self, url: str) -> None:
        mark = len(self.events)
        await self.call("Page.navigate", url=url)
        await self.wait_event("Page.loadEventFired", since=mark)

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and error log entries seen so far."""
        out = []
        for ev in self.events:
            p = ev.get("params", {})
            if ev["method"] == "Runtime.consoleAPICalled" and p.get("type") == "error":
                out.append("console: " + " ".join(str(a.get("value", a.get("description"))) for a in p["args"]))
            elif ev["method"] == "Runtime.exceptionThrown":
                details = p.get("exceptionDetails", {})
                out.append("exception: " + str(details.get("exception", {}).get("description") or details))
            elif ev["method"] == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append("log: " + str(p["entry"].get("text")))
        return out


async def _port(profile: Path, proc: asyncio.subprocess.Process, limit_s: float) -> int:
    deadline = time.monotonic() + limit_s
    marker = profile / "DevToolsActivePort"
    while time.monotonic() < deadline:
        if proc.returncode is not None:
            raise CDPError(f"chromium exited with {proc.returncode} before listening")
        with contextlib.suppress(OSError, ValueError, IndexError):
            return int(marker.read_text().splitlines()[0])
        await asyncio.sleep(0.05)
    raise CDPError(f"chromium wrote no {marker} within {limit_s}s")


@contextlib.asynccontextmanager
async def chromium_page(binary: str, profile: Path, width: int = 1280, height: int = 900) -> AsyncIterator[Page]:
    """A headless Chromium with a fresh profile, and a page on it with Runtime, Log and Page enabled."""
    proc = await asyncio.create_subprocess_exec(
        binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
         "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", f"--user-data-dir={profile}",
         f"--window-size={width},{height}", "about:blank",
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        port = await _port(profile, proc, TIMEOUT_S)
        timeout = aiohttp.ClientTimeout(total=TIMEOUT_S)
        async with aiohttp.ClientSession(timeout=timeout) as session:
            async with session.get(f"http://127.0.0.1:{port}/json/list") as resp:
                targets = await resp.json()
            url = next(t["webSocketDebuggerUrl"] for t in targets if t.get("type") == "page")
            async with session.ws_connect(url, max_msg_size=0) as ws:
                page = Page(ws)
                try:
                    for domain in ("Runtime", "Log", "Page"):
                        await page.call(f"{domain}.enable")
                    yield page
                finally:
                    page._reader.cancel()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # its own session: the renderer and GPU children go too
        await asyncio.wait_for(proc.wait(), 10)
