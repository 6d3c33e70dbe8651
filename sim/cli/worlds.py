"""`squall worlds list | show NAME | validate NAME` (and a simulated world's `warm` and `draft-tasks`, in
``sim.cli.worlds_simulated``): what each world offers, and proof its gold executes."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import Annotated, Any

import typer

from sim.cli.worlds_draft_gold import draft_gold_command
from sim.cli.worlds_simulated import draft_tasks_command, warm_command

worlds_app = typer.Typer(help="List, describe and validate worlds.", no_args_is_help=True, add_completion=False)
worlds_app.command("warm")(warm_command)
worlds_app.command("draft-tasks")(draft_tasks_command)
worlds_app.command("draft-gold")(draft_gold_command)


def _load(name: str) -> Any:
    from worlds.registry import WorldLoadError, load_world

    try:
        return load_world(name)
    except WorldLoadError as error:
        sys.stderr.write(f"error: {error}\n")
        raise typer.Exit(2) from error


@worlds_app.command("list")
def list_worlds(as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """The built-in worlds with their domain, tool and conversation counts."""
    from worlds.bfcl.categories import listing
    from worlds.describe import describe
    from worlds.registry import known_worlds
    from worlds.tau2 import listing as tau2_listing

    rows: list[dict[str, Any]] = []
    for name in known_worlds():
        info = describe(_load(name))
        rows.append(
            {
                "name": name,
                "domains": len(info["domains"]),
                "tools": len(info["tools"]),
                "conversations": info["conversations"],
                "supported": True,
            }
        )
    # BFCL's categories are listed from the wheel's files without loading them (entries counted, not parsed).
    bfcl = [
        {"name": r.name, "kind": r.kind, "conversations": r.entries, "supported": r.reason is None, "reason": r.reason}
        for r in listing()
    ]
    tau2 = tau2_listing()  # τ²'s domains: task counts and splits from the wheel's task files (no database read)
    if as_json:
        sys.stdout.write(json.dumps(rows + bfcl + tau2, indent=2) + "\n")
        return
    for row in rows:
        counts = f"{row['domains']} domain(s), {row['tools']} tools, {row['conversations']} conversations"
        sys.stdout.write(f"{row['name']:<14} {counts}\n")
    sys.stdout.write("Berkeley Function Calling Leaderboard (bfcl-eval's data):\n")
    for row in bfcl:
        if not row["supported"]:
            what = f"not supported: {row['reason']}"
        elif row["conversations"] is None:
            what = f"{row['kind']}, bfcl-eval not installed (make setup)"
        else:
            what = f"{row['kind']}, {row['conversations']} entries"
        sys.stdout.write(f"  {row['name']:<30} {what}\n")
    sys.stdout.write("τ²-bench (inspect-evals' data; tau2:DOMAIN runs τ²'s base split, tau2:DOMAIN:SPLIT another):\n")
    for row in tau2:
        if not row["supported"]:
            what = f"not supported: {row['reason']}"
        elif row["conversations"] is None:
            what = "inspect-evals not installed (make setup)"
        else:
            splits = ", ".join(f"{name} {n}" for name, n in row["splits"].items())
            what = f"{row['conversations']} tasks; splits: {splits}"
        sys.stdout.write(f"  {row['name']:<30} {what}\n")


@worlds_app.command("show")
def show(
    name: Annotated[str, typer.Argument(help="A built-in world, a task file or a world directory.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print JSON: domains, tools, dependency graph, statistics.")
    ] = False,
) -> None:
    """Domains, tools, the dependency graph and dataset statistics of a world."""
    from worlds.describe import describe

    info = describe(_load(name))
    if as_json:
        sys.stdout.write(json.dumps(info, indent=2) + "\n")
        return
    out = [f"{info['name']}: {len(info['domains'])} domain(s), {len(info['tools'])} tools"]
    for domain in info["domains"]:
        names = [t["name"] + ("" if t["read_only"] else "*") for t in info["tools"] if t["domain"] == domain["name"]]
        out.append(f"  {domain['name']} ({domain['tools']}): {', '.join(names)}")
    out.append("  (* changes state)")
    if info["dependency_graph"]:
        out.append("dependency graph (tool <- what must succeed first):")
        out += [f"  {tool} <- {', '.join(reqs)}" for tool, reqs in info["dependency_graph"].items()]
    goals, calls, kinds = info["goals"], info["calls"], info["goal_kinds"]
    out.append(
        f"{info['conversations']} conversations: {goals['per_conversation']} goals each "
        f"({goals['min']}-{goals['max']}), {calls['per_goal']} calls per goal ({calls['core_per_goal']} core); "
        f"{kinds['coreferential']} coreferential goals, {kinds['questions']} questions, "
        f"{kinds['with_alternatives']} with alternative paths"
    )
    sys.stdout.write("\n".join(out) + "\n")


@worlds_app.command("validate")
def validate(
    name: Annotated[str, typer.Argument(help="A built-in world, a task file or a world directory.")],
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit 1 when some tasks have no executable gold (else a warning).")
    ] = False,
) -> None:
    """Execute every path of every goal of every conversation; exit 1 naming the first that fails."""
    from worlds.gold_check import GoldPlanError, check_gold_by_execution, without_executable_gold

    pack = _load(name)  # loading runs the static checks (tools exist, arguments fit)
    started = time.perf_counter()
    try:
        executed = asyncio.run(check_gold_by_execution(pack))
    except GoldPlanError as error:
        sys.stderr.write(f"error: {name}: {error}\n")
        raise typer.Exit(1) from error
    tasks = len(pack.tasks())
    seconds = time.perf_counter() - started
    lacking = without_executable_gold(pack)
    verdict = "ok: " if not lacking else ""
    sys.stdout.write(
        f"{name}: {verdict}{tasks} conversations, {executed} gold calls executed on every path in {seconds:.2f} s\n"
    )
    if lacking:  # "ok, 0 gold calls executed" would hide that nothing could be
        shown = ", ".join(lacking[:10]) + (f" (+{len(lacking) - 10} more)" if len(lacking) > 10 else "")
        sys.stderr.write(
            f"warning: {name}: {len(lacking)} of {tasks} tasks have no executable gold: their gold calls lack required "
            f"arguments (not executed: the oracle cannot calibrate them; core API accuracy, success and slot numbers "
            f"are n/a for them; intents and answers are scored, and solvable_pass still judges them; `squall worlds "
            f"draft-gold` fills them in where it can): {shown}\n"
        )
        if strict:
            raise typer.Exit(1)
