"""Every command the README, docs/ and examples/ document runs as documented.

Each page's fenced shell commands run in order (``tests/docs/markdown_commands.py`` says what a command is), in a
folder of their own that holds what a reader brings (``reader_files.py``), as processes of the installed
``squall``, under the rules of ``command_rules.py``: models swapped for a mock OpenAI-compatible endpoint, the
reader's agent service for a stand-in, runs scaled to 2 tasks played once. A command passes when it exits as the
page says (0, or the ``# exit N`` it is marked with), a server when it starts serving, and a run whose outside
agent never answered fails even at exit 0. A command that cannot run here is in ``NOT_RUN`` with the reason; one
that fails today for a known bug is in ``KNOWN_FAILURES`` (a strict xfail: the fix flips it).
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.docs.command_rules import swap_models
from tests.docs.markdown_commands import Command, commands, shown_files
from tests.docs.page_run import PageRun, PageRuns, split
from tests.docs.reader_files import lay_out
from tests.docs.standin_service import agent_service
from tests.support.mockllm_server import mock_llm_server
from tests.support.paths import REPO_ROOT

PAGES = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").rglob("*.md")),
         *sorted((REPO_ROOT / "examples").rglob("*.md"))]  # fmt: skip
COMMANDS = [command for page in PAGES for command in commands(page, REPO_ROOT)]

NOT_RUN = {
    "make quickstart": "sets up, then evaluates the embedded model for minutes; CI checks it on a fresh clone",
    "make test": "the suite this test is part of",
    "npx @modelcontextprotocol/inspector --cli http://127.0.0.1:8765/mcp/TOKEN --transport http --method tools/list":
        "the MCP Inspector comes from npm; tests/sim/mcp/test_hub_gate.py serves such a URL to the SDK client",
    "pip install 'squall[ray]'": "an install: scripts/setup.sh installs the ray extra",
    "squall bench --suite --json": "every workload at full size (--suite ignores the size options): minutes",
    "squall bench --concurrency 10000 --latency 5 --jitter 15 --request-timeout 120 --duration 600 --rss-every 5 "
    "--series soak.jsonl": "10 minutes at 10,000 in flight; its short variant (100 in flight, 3 s) runs",
    "squall run --agent openai-chat:gpt-4o-mini --trials 5 --concurrency 400 --backend ray":
        "starts a local Ray cluster; tests/sim/run/test_ray_backend.py plays runs on one",
    "squall run --agent openai-chat:gpt-4o-mini --backend ray --ray-address 10.0.0.5:6379 --ray-workers 16":
        "needs an existing Ray cluster at that address",
}  # fmt: skip
PARALLEL_PAGES = 3  # pages at once: most of a command's time is its own process, so a few overlap on two cores
KNOWN_FAILURES: dict[str, str] = {}
"""Commands that fail today for a known bug, by ``key``: each a strict xfail, so the fix must remove it."""


def key(command: Command) -> str:
    """The command as the lists above name it: the program as `squall`, the comment dropped."""
    line = split(command.text)
    program = "squall" if line.is_squall else line.program
    words = [*(f"{name}={value}" for name, value in line.env.items()), program, *line.words]
    return " ".join(shlex.quote(w) if re.search(r"[\s'\"$[]", w) else w for w in words)


def cases() -> Iterator[object]:
    for command in COMMANDS:
        reason = KNOWN_FAILURES.get(key(command))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        yield pytest.param(command, id=command.id, marks=marks)


def page_run(page: str, folder: Path, mock_url: str, agent_url: str) -> PageRun:
    """A page's commands, in a folder laid out with the reader's files and the files the page shows."""
    lay_out(folder)
    for shown in shown_files(REPO_ROOT / page):
        (folder / shown.name).write_text(swap_models(shown.text, mock_url))
    mine = [c for c in COMMANDS if c.page == page]
    return PageRun(mine, folder, mock_url, agent_url, skip=lambda c: key(c) in NOT_RUN)


def selected_command(item: pytest.Item) -> Command | None:
    """The documented command a collected test runs, if it runs one."""
    command = getattr(getattr(item, "callspec", None), "params", {}).get("command")
    return command if isinstance(command, Command) and key(command) not in NOT_RUN else None


@pytest.fixture(scope="module")
def page_runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[PageRuns]:
    """The pages this process's tests read, each started on its first test here, a few at once."""
    order = list(dict.fromkeys(command.page for item in request.session.items if (command := selected_command(item))))
    claims = None
    if os.environ.get("PYTEST_XDIST_WORKER"):  # the workers' base temps share the session's
        claims = tmp_path_factory.getbasetemp().parent / "docs-pages-started"
        claims.mkdir(exist_ok=True)
    with mock_llm_server({"policy": {"kind": "first_tool"}}, max_lifetime_s=1800) as mock, agent_service() as agent:

        def start(page: str) -> PageRun:
            return page_run(page, tmp_path_factory.mktemp(Path(page).stem), mock.url, agent)

        runs = PageRuns(order, start, PARALLEL_PAGES, claims)
        try:
            yield runs
        finally:
            runs.close()


@pytest.mark.parametrize("command", list(cases()))
@pytest.mark.slow
def test_documented_command_runs_as_documented(command: Command, page_runs: PageRuns) -> None:
    if key(command) in NOT_RUN:
        pytest.skip(NOT_RUN[key(command)])
    outcome = page_runs.outcome(command)
    if outcome.code is None:  # a server: serving is what the page promises
        assert not outcome.problems, outcome.output[-4000:]
        return
    assert outcome.code == command.expect, outcome.output[-4000:]
    assert not outcome.problems, "\n".join(outcome.problems)


def test_every_documented_line_is_squall_or_listed() -> None:
    others = [c.id for c in COMMANDS if not split(c.text).is_squall and key(c) not in NOT_RUN]
    assert not others, f"not a squall command and not in NOT_RUN: {others}"


def test_the_lists_are_short_and_name_documented_commands() -> None:
    documented = {key(c) for c in COMMANDS}
    assert len(NOT_RUN) <= 8, "more commands skipped than run offline can explain"
    assert set(NOT_RUN) <= documented, set(NOT_RUN) - documented
    assert set(KNOWN_FAILURES) <= documented, set(KNOWN_FAILURES) - documented


def test_the_readme_stays_short() -> None:
    lines = (REPO_ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines: the details belong on a docs/ page"
    assert "make quickstart" in lines[lines.index("## Two commands") + 3]  # CI and fresh-clone checks rely on them
