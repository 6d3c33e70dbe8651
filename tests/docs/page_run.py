"""A page's commands run in order in a folder of their own, as a reader would type them there after a fresh clone:
each a process of the installed ``squall`` program (the worktree's code first on the path), a server left serving
until the page's last command has run."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from tests.docs.command_rules import fixed_ports, option_value, remap_ports, rewrite, set_option
from tests.docs.markdown_commands import Command
from tests.support.paths import REPO_ROOT

SQUALL = Path(sys.executable).parent / "squall"
PROGRAMS = frozenset({"squall", ".venv/bin/squall"})
COMMAND_TIMEOUT_S = 300
SERVER_START_S = 60
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True)
class Outcome:
    code: int | None  # None: a server, serving when the command's turn ended
    output: str
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class Line:
    """A command split as the shell would: leading VAR=value assignments, the program, its words."""

    env: Mapping[str, str]
    program: str
    words: list[str]

    @property
    def is_squall(self) -> bool:
        return self.program in PROGRAMS


def split(text: str, folder: Path | None = None) -> Line:
    """``text`` as the shell splits it; with ``folder``, ``$(cat FILE)`` read and unquoted globs expanded there."""
    if folder is not None:
        text = re.sub(r"\$\(cat ([^)\s]+)\)", lambda m: (folder / m.group(1)).read_text().strip(), text)
    lexer = shlex.shlex(text, posix=False)  # keeps each word's quotes, so a quoted pattern is not expanded
    lexer.whitespace_split, lexer.commenters = True, "#"
    raw = list(lexer)
    env = {}
    while raw and _ASSIGNMENT.match(raw[0]):
        name, value = shlex.split(raw.pop(0))[0].split("=", 1)
        env[name] = value
    words: list[str] = []
    for word in raw:
        unquoted = shlex.split(word)[0] if word else word
        if folder is not None and unquoted == word and any(c in word for c in "*?["):
            words += sorted(str(p.relative_to(folder)) for p in folder.glob(word)) or [word]  # bash keeps it unmatched
        else:
            words.append(unquoted)
    program, *rest = words
    return Line(env, program, rest)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def is_server(words: Sequence[str]) -> bool:
    """Commands that serve until stopped."""
    return bool(words) and (words[0] in ("mock-llm", "serve") or (words[0] == "view" and "--out" not in words))


@dataclass
class Server:
    process: subprocess.Popen[str]
    lines: list[str] = field(default_factory=list)

    def follow(self) -> None:
        """Collect what the server says, line by line, until it closes its output."""
        for said in self.process.stdout or ():
            self.lines.append(said)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@dataclass
class PageRun:
    """The commands of one page, run in order by ``run_all`` (on a thread of its own: pages are independent);
    ``skip`` says which are not run (the docs test's list, with its reasons)."""

    commands: list[Command]
    folder: Path
    mock_url: str
    agent_url: str
    skip: Callable[[Command], bool]
    outcomes: list[Outcome] = field(default_factory=list)
    servers: list[Server] = field(default_factory=list)
    cancelled: bool = False
    done: threading.Condition = field(default_factory=threading.Condition)
    ports: dict[int, int] = field(default_factory=dict)  # a fixed port the page serves on -> the free one it gets

    def __post_init__(self) -> None:
        for command in self.commands:
            if split(command.text).is_squall:
                self.ports.update((fixed, free_port()) for fixed in fixed_ports(split(command.text).words))
        for path in self.folder.rglob("*.toml"):  # the copied examples and the files the page shows
            path.write_text(remap_ports(path.read_text(), self.ports))

    def run_all(self) -> None:
        try:
            for command in self.commands:
                outcome = Outcome(None, "not run") if self.skip(command) or self.cancelled else self._attempt(command)
                with self.done:
                    self.outcomes.append(outcome)
                    self.done.notify_all()
        finally:
            self.close()

    def outcome(self, command: Command) -> Outcome:
        """``command``'s outcome, once ``run_all`` has reached it."""
        index = self.commands.index(command)
        with self.done:
            self.done.wait_for(lambda: len(self.outcomes) > index)
            return self.outcomes[index]

    def close(self) -> None:
        for server in self.servers:
            server.stop()
        self.servers.clear()

    def _attempt(self, command: Command) -> Outcome:
        try:
            return self._run(command)
        except Exception as error:  # the runner's own failure fails this command's test, never hangs the rest
            return Outcome(-1, f"the docs test could not run it: {error!r}")

    def _run(self, command: Command) -> Outcome:
        line = split(command.text, self.folder)
        words = [remap_ports(word, self.ports) for word in line.words]
        for fixed in fixed_ports(words):
            words = set_option(words, "--port", str(self.ports[fixed]))
        argv = [str(SQUALL), *rewrite(words, self.mock_url, self.agent_url)]
        env = {**self._env(), **line.env}
        if is_server(line.words):
            return self._serve(argv, env, line.words)
        try:
            done = subprocess.run(argv, cwd=self.folder, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                                  text=True, timeout=COMMAND_TIMEOUT_S)  # fmt: skip
        except subprocess.TimeoutExpired as timeout:
            return Outcome(-1, f"{shlex.join(argv)}\ntimed out after {timeout.timeout}s")
        output = f"$ {shlex.join(argv)}\n{done.stdout}{done.stderr}"
        return Outcome(done.returncode, output, _problems(done.stdout, self.folder))

    def _serve(self, argv: list[str], env: dict[str, str], words: list[str]) -> Outcome:
        process = subprocess.Popen(argv, cwd=self.folder, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)  # fmt: skip
        server = Server(process)
        self.servers.append(server)
        threading.Thread(target=server.follow, daemon=True).start()
        port_file = option_value(words, "--port-file")
        deadline = time.monotonic() + SERVER_START_S
        while time.monotonic() < deadline and process.poll() is None:
            if any("http://" in x for x in server.lines) or (port_file and (self.folder / port_file).exists()):
                return Outcome(None, f"$ {shlex.join(argv)}\n{''.join(server.lines)}")
            time.sleep(0.05)
        time.sleep(0.2)  # the reader thread's last lines
        said = "".join(server.lines)
        return Outcome(process.poll(), f"$ {shlex.join(argv)}\n{said}", ("did not start serving",))

    def _env(self) -> dict[str, str]:
        runtime = self.folder / ".runtime"  # where `squall serve` keeps its token (0700, as XDG_RUNTIME_DIR is)
        runtime.mkdir(mode=0o700, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "SQUALL_API_KEY")}
        env.update(PATH=f"{SQUALL.parent}{os.pathsep}{env.get('PATH', '')}", PYTHONPATH=str(REPO_ROOT), COLUMNS="80",
                   XDG_RUNTIME_DIR=str(runtime))  # fmt: skip
        return env


class PageRuns:
    """Pages' runs, each started on the first request for it, so a process (an xdist worker) runs the pages of the
    tests it was given, not every page of the session; ``order`` (the pages in the order their tests run) lets the
    pages after a requested one start ahead, ``parallel`` at a time. ``claims`` (a folder the session's workers
    share, or None without xdist) keeps a worker from starting ahead a page another worker has started: a page whose
    tests two workers were given still runs in both, as each needs its outcomes."""

    def __init__(self, order: Sequence[str], start: Callable[[str], PageRun], parallel: int, claims: Path | None):
        self.order, self.start, self.claims = list(order), start, claims
        self.runs: dict[str, PageRun] = {}
        self.pool = ThreadPoolExecutor(parallel, thread_name_prefix="docs-page")
        self.parallel = parallel
        self.lock = threading.Lock()

    def outcome(self, command: Command) -> Outcome:
        with self.lock:
            self._start(command.page, ahead=False)
            following = self.order[self.order.index(command.page) + 1 :] if command.page in self.order else []
            for page in following[: self.parallel - 1]:
                self._start(page, ahead=True)
        return self.runs[command.page].outcome(command)

    def close(self) -> None:
        for run in self.runs.values():
            run.cancelled = True
        self.pool.shutdown(cancel_futures=True)  # a started run closes its servers; one never started has none

    def _start(self, page: str, ahead: bool) -> None:
        if page in self.runs or (ahead and not self._claim(page)):
            return
        if not ahead:
            self._claim(page)
        run = self.runs[page] = self.start(page)
        self.pool.submit(run.run_all)

    def _claim(self, page: str) -> bool:
        """Whether this process is the first of the session's workers to start ``page``."""
        if self.claims is None:
            return True
        try:
            os.close(os.open(self.claims / page.replace("/", "__"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return False
        return True


def _problems(stdout: str, folder: Path) -> tuple[str, ...]:
    """What a run that exited as documented still got wrong: an outside agent that never answered is not a run."""
    problems = []
    for run_dir in re.findall(r"^run directory: (.+)$", stdout, flags=re.MULTILINE):
        summary = folder / run_dir.strip() / "summary.json"
        codes = json.loads(summary.read_text()).get("error_codes", {}) if summary.exists() else {}
        problems += [f"{run_dir}: {code} x{n}" for code, n in codes.items() if code.startswith("agent:outside")]
    return tuple(problems)
