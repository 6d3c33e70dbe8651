"""``squall chat``: a person plays the user against any agent, world and stressors, in the terminal.

The conversation is a normal one-episode run (the same preparation, gateway, agent, stressors, store and judges
as ``squall run``), with the user built as ``personas.human.HumanUser`` and every event shown as it is recorded:
the agent's tool calls and results, which stressor fired and what the world really returned. It is saved under
``OUT/RUN_ID`` and judged there; ``squall score`` re-judges it like any run. No progress bar: the terminal is the
person's. Input is read with the event loop's reader on stdin, so a pending prompt never blocks a model call. While
the agent answers a spinner says so; Ctrl-C then cancels its request at once and ends the conversation, saved and
judged as played so far (at the prompt, Ctrl-C ends it the same way); a second Ctrl-C abandons it: nothing is saved
and ``OUT/latest`` keeps naming the run it named.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from personas.human import HumanUser
from sim.cli.settings import with_settings

if TYPE_CHECKING:
    from rich.console import Console
    from rich.status import Status

    from judges.run.run_summary import RunSummary
    from sim.config.run_config import RunConfig
    from sim.core import Event


class TerminalInput:
    """Lines from stdin through the running loop (``add_reader``); a file or pipe that cannot be polled is read
    whole at the start. ``None`` is end of input (or a Ctrl-C: quit)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.lines: asyncio.Queue[str | None] = asyncio.Queue()
        self._buffer = b""
        self._fd = sys.stdin.fileno()
        self._polled = False
        self.ending = False

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            loop.add_reader(self._fd, self._readable)
            self._polled = True
        except (PermissionError, OSError, NotImplementedError):  # a regular file: epoll refuses it
            for line in sys.stdin.read().splitlines():
                self.lines.put_nowait(line)
            self.lines.put_nowait(None)

    def stop(self) -> None:
        if self._polled:
            asyncio.get_running_loop().remove_reader(self._fd)
            self._polled = False

    def _readable(self) -> None:
        data = os.read(self._fd, 4096)
        if not data:
            self.lines.put_nowait(None)
            self.stop()
            return
        self._buffer += data
        *complete, self._buffer = self._buffer.split(b"\n")
        for raw in complete:
            self.lines.put_nowait(raw.decode("utf-8", errors="replace").rstrip("\r"))

    async def ask(self, prompt: str) -> str | None:
        if self.ending:  # Ctrl-C: lines typed ahead are not sent
            return None
        self.console.print(f"[bold green]{prompt}[/]", end="")
        self.console.file.flush()
        return await self.lines.get()


class WorkingIndicator:
    """What the person sees while the agent answers: a spinner on a terminal that can redraw, else one line."""

    TEXT = "agent is working… (Ctrl-C stops it)"

    def __init__(self, console: Console) -> None:
        self.console = console
        self._status: Status | None = None

    def start(self) -> None:
        if self.console.is_terminal and not self.console.is_dumb_terminal:
            self._status = self.console.status(self.TEXT)
            self._status.start()
        else:
            self.console.print(f"[dim]{self.TEXT}[/]", highlight=False)

    def stop(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None


def show_event(console: Console, ev: Event) -> None:
    """What a person sees of an event: calls, results (and stressors), world events, the agent's reply, faults."""
    from rich.markup import escape

    if ev.replayed:
        return
    if ev.kind == "tool_call" and ev.call is not None:
        args = json.dumps(ev.call.arguments, ensure_ascii=False)
        console.print(f"  [cyan]→ {escape(ev.call.name)}[/]({escape(_clip(args))})", highlight=False)
    elif ev.kind == "tool_result" and ev.result is not None:
        content = json.dumps(ev.result.content, ensure_ascii=False, default=str)
        colour = "green" if ev.result.ok else "red"
        console.print(f"  [{colour}]← {ev.result.status}[/]: {escape(_clip(content))}", highlight=False)
        if ev.scenarios:
            console.print(f"    [magenta]stressor fired: {escape(', '.join(ev.scenarios))}[/]", highlight=False)
        if ev.raw_result is not None:
            raw = json.dumps(ev.raw_result.content, ensure_ascii=False, default=str)
            console.print(
                f"    [dim]the world returned {ev.raw_result.status}: {escape(_clip(raw))}[/]", highlight=False
            )
    elif ev.kind == "world_event":  # the world changed on its own: the person sees it, the agent does not
        what = f"{escape(ev.content or '')} ({escape(', '.join(ev.scenarios))})"
        console.print(f"  [magenta]⚡ world event: {what}[/]", highlight=False)
    elif ev.kind == "user_tool_call" and ev.call is not None:  # dual control: the user's own tool
        args = json.dumps(ev.call.arguments, ensure_ascii=False)
        console.print(f"  [bold green]user →[/] {escape(ev.call.name)}({escape(_clip(args))})", highlight=False)
    elif ev.kind == "user_tool_result" and ev.result is not None:
        content = json.dumps(ev.result.content, ensure_ascii=False, default=str)
        console.print(f"  [green]user ← {ev.result.status}[/]: {escape(_clip(content))}", highlight=False)
    elif ev.kind == "agent_message":
        console.print(f"[bold blue]agent ›[/] {escape(ev.content or '')}", highlight=False)
    elif ev.kind == "error" and ev.fault != "user":
        console.print(f"  [yellow]! {escape(ev.code or '')}: {escape(_clip(ev.content or ''))}[/]", highlight=False)


def _clip(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


async def chat_session(config: RunConfig, console: Console) -> tuple[Path, RunSummary]:
    """Prepare, play the one episode with the person as the user, judge and store it; the run folder and
    summary."""
    from sim.run.runner import open_run

    terminal = TerminalInput(console)
    working = WorkingIndicator(console)
    tools: list[str] = []
    users: list[HumanUser] = []
    loop = asyncio.get_running_loop()
    main = asyncio.current_task()
    interrupts = 0

    async def ask(prompt: str) -> str | None:
        working.stop()
        return await terminal.ask(prompt)

    def make_user(_spec: object) -> HumanUser:
        users.append(HumanUser(ask, console.print, lambda: tools, sent=working.start))
        return users[-1]

    def on_interrupt() -> None:
        nonlocal interrupts
        interrupts += 1
        if interrupts > 1:
            if main is not None:
                main.cancel()
            return
        terminal.ending = True
        terminal.lines.put_nowait(None)
        if users and users[-1].working:  # a slow model mid-request: cancel it now, keep what was said
            working.stop()
            console.print(
                "\n[yellow](stopping the agent: its request is cancelled; the conversation so far is saved and "
                "judged; Ctrl-C again abandons it)[/]"
            )
            users[-1].stop_agent.set()
        else:
            console.print("\n[yellow](ending the conversation: it is saved and judged; Ctrl-C again abandons it)[/]")

    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGINT, on_interrupt)
    terminal.start()
    try:
        async with open_run(config, make_user=make_user, watch=lambda ev: show_event(console, ev)) as run:
            tools.extend(s.name for s in run.prepared.pack.tool_specs())
            store, summary = await run.play()
    finally:
        working.stop()
        terminal.stop()
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGINT)
    return store.root, summary


CHAT_SETTINGS = (
    "world",
    "agent",
    "stressors",
    "tasks",
    "out",
    "run_id",
    "seed",
    "text_protocol",
    "max_steps",
    "max_turns",
    "request_timeout_s",
)
"""The run settings ``squall chat`` takes as options (a config file may set the others)."""


@with_settings(CHAT_SETTINGS)
def chat_command(
    settings: dict[str, Any],
    config: Annotated[Path | None, typer.Option("--config", "-c", help="TOML file with run settings.")] = None,
) -> None:
    """Play the user yourself: talk to an agent in the terminal; the conversation is saved and judged as a run.
    The first task is played unless --task names one."""
    from sim.cli.common import fail, make_console, user_errors
    from sim.config.resolve import resolve_config
    from sim.config.run_config import DEFAULT_AGENT
    from sim.report.terminal import render

    console = make_console()
    if settings["tasks"] and len(settings["tasks"]) > 1:
        fail("--task: squall chat plays one conversation; name one task")
    overrides: dict[str, Any] = {
        **settings,
        "world": settings["world"] or "smart_home",
        "agent": settings["agent"] or DEFAULT_AGENT,
        "user": "human",
        "trials": 1,
        "concurrency": 1,
        "limit": None if settings["tasks"] else 1,
    }
    cfg = None
    try:
        cfg, _ = resolve_config(config, overrides)
        before = _latest_target(cfg.out)
        root, summary = asyncio.run(chat_session(cfg, console))
    except (KeyboardInterrupt, asyncio.CancelledError):
        said = "interrupted before it started" if cfg is None else _abandon(cfg.out / str(cfg.run_id), before)
        make_console(stderr=True).print(f"abandoned: {said}", highlight=False, soft_wrap=True)
        raise typer.Exit(130) from None
    except user_errors() as exc:
        fail(str(exc))
    render(summary, console, tasks=False)  # one conversation: its per-task table would repeat the headline
    console.print(f"saved: {root} (re-judge with: squall score {root})")


def _latest_target(out: Path) -> str | None:
    """What ``OUT/latest`` names before the conversation (None: no link), to put back if it is abandoned."""
    link = out / "latest"
    return os.readlink(link) if link.is_symlink() else None


def _abandon(root: Path, latest_before: str | None) -> str:
    """An abandoned conversation is no run: a folder that stored no episode is removed and ``OUT/latest`` named
    what it named before. What was saved, said."""
    from sim.store.run_store import EPISODES

    episodes = root / EPISODES
    if episodes.is_file() and episodes.stat().st_size:
        return f"the conversation was not finished; {root} keeps what was stored"
    if root.is_dir():
        shutil.rmtree(root)
    link = root.parent / "latest"
    if link.is_symlink() and os.readlink(link) == root.name:
        link.unlink()
        if latest_before is not None:
            os.symlink(latest_before, link)
    named = f"names {latest_before} as before" if latest_before is not None else "is not there, as before"
    return f"nothing was saved ({root} removed; {link} {named})"
