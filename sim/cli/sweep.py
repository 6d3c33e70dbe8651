"""``squall run --agent A,B,C``: a sweep — each agent over the same plan and seeds, one run each, in one family of
run folders (OUT/BASE-<agent>, BASE the --run-id given or a timestamp), each marked ``"sweep": BASE`` in its
manifest; then the agents' leaderboard over the episodes they share.

The agents may come from the command line or from the config file's ``agent`` (a list, or one string with
commas). An agent spec that starts with ``command:`` is never split (its program's arguments may hold commas).
Each member is an ordinary ``squall run`` with ``--agent X --run-id BASE-X``: everything else is passed as given,
so the plan, seeds and limits are the same for every member. A member ending in bad input (2) or an interrupt
(130, 143) stops the sweep; one where every episode failed (3) does not. The sweep exits with the first non-zero
code of its members."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

STOPS_SWEEP = frozenset({2, 130, 143})


def split_agents(value: Any) -> list[str] | None:
    """The agents of a sweep, or None when ``value`` names one agent."""
    if isinstance(value, list):
        agents = [str(v).strip() for v in value]
    elif isinstance(value, str) and "," in value and not value.startswith("command:"):
        agents = [a.strip() for a in value.split(",")]
    else:
        return None
    agents = [a for a in agents if a]
    return agents if len(agents) > 1 else None


def agent_slug(agent: str) -> str:
    """A run-folder-safe short name for an agent spec."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", agent).strip("_.")[:48] or "agent"


def _option(argv: list[str], *names: str) -> tuple[int, str | None] | None:
    """(index, value) of the last occurrence of an option, as --name VALUE or --name=VALUE."""
    found = None
    for i, arg in enumerate(argv):
        for name in names:
            if arg == name and i + 1 < len(argv):
                found = (i, argv[i + 1])
            elif arg.startswith(name + "="):
                found = (i, arg.split("=", 1)[1])
    return found


def _without(argv: list[str], *names: str) -> list[str]:
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg in names:
            skip = True
            continue
        if any(arg.startswith(n + "=") for n in names):
            continue
        out.append(arg)
    return out


def _config_settings(argv: list[str]) -> dict[str, Any]:
    given = _option(argv, "--config", "-c")
    if given is None or given[1] is None:
        return {}
    from sim.config.errors import ConfigError
    from sim.config.toml_file import TomlSettings

    try:
        return TomlSettings.read(Path(given[1])).settings
    except ConfigError:
        return {}  # the run itself reports the bad file, naming its line


def plan_sweep(argv: list[str]) -> tuple[str, Path, list[tuple[str, list[str]]]] | None:
    """For ``run`` arguments naming several agents: (base id, out folder, [(run id, member argv)]); else None."""
    if not argv or argv[0] != "run" or "--resume" in argv:
        return None
    settings = _config_settings(argv)
    given = _option(argv, "--agent")
    agents = split_agents(given[1] if given else settings.get("agent"))
    if agents is None:
        return None
    run_id = _option(argv, "--run-id")
    base = (run_id[1] if run_id else None) or settings.get("run_id") or datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    out = _option(argv, "--out")
    out_dir = Path((out[1] if out else None) or settings.get("out") or "runs")
    rest = _without(argv, "--agent", "--run-id")
    members = []
    for agent in agents:
        member_id = f"{base}-{agent_slug(agent)}"
        members.append((member_id, [*rest, "--agent", agent, "--run-id", member_id]))
    return str(base), out_dir, members


def _mark(run_dir: Path, base: str) -> None:
    from sim.store.run_store import RunStore, StoreError

    try:
        store = RunStore.open_to_write(run_dir)
    except StoreError:
        return
    try:
        store.update_manifest({"sweep": base})
    finally:
        store.close()


def run_sweep(argv: list[str], run_one: Callable[[list[str]], int]) -> int | None:
    """Run a sweep if ``argv`` asks for one (returns its exit code), else None."""
    plan = plan_sweep(argv)
    if plan is None:
        return None
    base, out_dir, members = plan
    from sim.cli.common import make_console

    console = make_console(stderr=True)
    first_failure = 0
    finished: list[Path] = []
    for i, (member_id, member_argv) in enumerate(members, 1):
        console.print(f"sweep {base}: agent {i} of {len(members)}: {member_argv[-3]}", highlight=False)
        code = run_one(member_argv)
        run_dir = out_dir / member_id
        if (run_dir / "manifest.json").is_file():
            _mark(run_dir, base)
            finished.append(run_dir)
        first_failure = first_failure or code
        if code in STOPS_SWEEP:
            break
    if len(finished) > 1:
        _print_leaderboard(finished)
    return first_failure


def _print_leaderboard(run_dirs: list[Path]) -> None:
    from sim.cli.common import make_console
    from sim.report.leaderboard import leaderboard_of_dirs
    from sim.report.many_runs_view import render_leaderboard
    from sim.store.run_store import StoreError

    try:
        board = leaderboard_of_dirs(run_dirs, by="agent")
    except (StoreError, ValueError) as exc:  # a member without a score set: nothing to rank
        make_console(stderr=True).print(f"sweep leaderboard: {exc}", highlight=False)
        return
    render_leaderboard(board, make_console())
