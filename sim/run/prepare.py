"""Everything a run checks before anything is started or written: world (gold plans run by execution), plan,
agent spec, user, stressors, embedded model, judge settings, run folder — and the manifest it will write.

Backend-agnostic: the in-process runner and a Ray executor prepare a run the same way.
"""

from __future__ import annotations

import os
import platform
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar, cast

from personas import parse_user_specs
from sim.agents.factory import LOCAL, AgentSpec, parse_agent_spec
from sim.config.run_config import ConfigError, RunConfig, default_run_id
from sim.core import SimulatedWorldPack, WorldPack
from sim.core.agent_kinds import SQL_AGENT_PREFIX
from sim.judging.judge_set import judge_config, judge_config_hash
from sim.llm.model_spec import parse_model_spec
from sim.llm.tool_budget import toolkit_warning
from sim.run.plan import Plan, make_plan
from sim.run.resume_identity import same_run
from sim.store.run_store import RunStore, StoreError
from worlds.gold_check import check_gold_by_execution
from worlds.registry import load_world
from worlds.sql.engine.query_world import SqlQueryPack, sql_query_pack
from worlds.stressors import build_stressors, select

T = TypeVar("T")


@dataclass(frozen=True)
class PreparedRun:
    """A validated run: what to run, where to store it, under which score set."""

    config: RunConfig
    pack: WorldPack
    plan: Plan
    agent_spec: AgentSpec
    judge_settings: dict[str, Any]
    score_set: str
    run_id: str
    root: Path
    resumed: RunStore | None  # the store to continue (--resume), else None: a new run folder
    warnings: tuple[str, ...] = ()
    """Said before the first episode (a toolkit too big for a model's context)."""


def checked(config: RunConfig, field: str, build: Callable[[], T]) -> T:
    """Run a spec parser; its ValueError becomes a ConfigError naming where the value came from."""
    try:
        return build()
    except ValueError as exc:
        raise config.problem(field, str(exc)) from exc


def run_world(config: RunConfig) -> WorldPack:
    """The run's world as its settings make it: a simulated world's model set by ``world_model``; a simulated world
    with no model refused under ``--cache read-write`` (it would answer as read-only, silently); for an ``sql:``
    agent, the SQL world's database behind ``execute_sql`` (any other world refused, naming it)."""
    pack = checked(config, "world", lambda: load_world(config.world))
    simulated = isinstance(pack, SimulatedWorldPack)
    if config.world_model is not None:
        if not simulated:
            raise config.problem("world_model", f"world {config.world!r} is not simulated: no model answers for it")
        checked(config, "world_model", lambda: parse_model_spec(str(config.world_model)))
        pack = cast(SimulatedWorldPack, pack).with_simulator_model(config.world_model)
    if config.cache == "read-write" and simulated and cast(SimulatedWorldPack, pack).simulator_model is None:
        raise config.problem(
            "cache",
            f"read-write asks world {config.world!r}'s simulator model for what its cache lacks, and it has none: "
            "give --world-model MODEL, set model in its world.toml, or use --cache read-only",
        )
    if config.agent.strip().startswith(SQL_AGENT_PREFIX):  # the SQL-writing baseline: the database, one tool
        sql_world = pack
        pack = checked(config, "agent", lambda: sql_query_pack(sql_world))
    return pack


async def check_planned_gold(config: RunConfig, pack: WorldPack, plan: Plan) -> None:
    """Every gold path of the tasks this run plays, executed once (fails fast on bad gold). Only the planned tasks:
    a run of a few entries of a big world (``--task``, ``squall import bfcl-results``) does not replay them all."""
    from worlds.gold_check import GoldPlanError

    tasks = list({unit.task.id: unit.task for unit in plan.units}.values())
    if isinstance(pack, SqlQueryPack):  # the gold calls the SQL world's functions, which execute_sql stands in for
        pack = cast(WorldPack, pack.source)
    try:
        await check_gold_by_execution(pack, tasks)
    except GoldPlanError as exc:
        raise config.problem("world", f"{config.world}: gold plan does not execute: {exc}") from exc


async def prepare(config: RunConfig) -> PreparedRun:
    """Check everything that can be checked without starting model access; nothing is written."""
    if config.resume and config.run_id is None:
        raise ConfigError("--resume needs --run-id (the name of the run directory to continue)")
    pack = run_world(config)
    plan = make_plan(config, pack)
    await check_planned_gold(config, pack, plan)
    agent_spec = checked(config, "agent", lambda: parse_agent_spec(config.agent))
    if config.text_protocol != "react" and agent_spec.kind != "text":
        raise config.problem(
            "text_protocol", f"{config.text_protocol!r} is a prompt for text: agents; agent {config.agent!r} is not one"
        )
    for field in ("code_timeout_s", "code_memory_mb"):
        if agent_spec.kind != "code" and getattr(config, field) != RunConfig.model_fields[field].default:
            raise config.problem(field, f"limits what code: agents' programs use; agent {config.agent!r} is not one")
    users = checked(config, "user", lambda: parse_user_specs(config.user))
    if any(u.kind == "human" for u in users) and (len(plan) != 1 or config.backend != "inprocess"):
        raise config.problem("user", "a human user plays one episode at the terminal: use `squall chat`")
    if any(u.kind == "llm" for u in users):
        if config.user_model == LOCAL:
            from sim.llm.local.server import local_model_available

            if reason := local_model_available():
                raise config.problem("user_model", f"the llm user needs the embedded model: {reason}; run `make setup`")
        else:
            checked(config, "user_model", lambda: parse_model_spec(config.user_model))
    tools = pack.tool_specs()
    tool_names = [s.name for s in tools]
    checked(config, "stressors", lambda: build_stressors(config.stressors, 0, tool_names))
    warning = None
    # An imported world offers every operation in every episode (other worlds may offer each task its own few);
    # tool search offers two tools, not all.
    if isinstance(pack, SimulatedWorldPack) and not any(
        s.type == "search" for s, _ in select(config.stressors, tool_names)
    ):
        warning = toolkit_warning(config.world, tools)
    if agent_spec.model == LOCAL:
        from sim.llm.local.server import local_model_available

        if reason := local_model_available():
            raise config.problem("agent", f"{config.agent} needs the embedded model: {reason}; run `make setup`")
    settings = judge_config(config)
    run_id = config.run_id or default_run_id(config.out)
    root = config.out / run_id
    resumed = RunStore.resume(root, config.config_hash(), same_run(config)) if config.resume else None
    if resumed is None:
        RunStore.check_new(root)
    latest = config.out / "latest"
    if latest.exists() and not latest.is_symlink():
        raise StoreError(f"{latest} exists and is not a link; squall keeps OUT/latest as a link to the newest run")
    return PreparedRun(
        config, pack, plan, agent_spec, settings, judge_config_hash(settings), run_id, root, resumed,
        (warning,) if warning else (),
    )  # fmt: skip


def manifest(
    config: RunConfig, run_id: str, planned: int, strata: dict[str, list[int]] | None = None
) -> dict[str, Any]:
    """``strata``: a stratified sample's tasks kept per stratum, [kept, of] (``Plan.strata``)."""
    return {
        "run_id": run_id,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "config": config.model_dump(mode="json")
        | {"endpoints": {n: e.for_manifest() for n, e in config.endpoints.items()}},
        "config_hash": config.config_hash(),
        "judge_config": judge_config(config),
        "seed": config.seed,
        "planned_episodes": planned,
        **({"sample_strata": strata} if strata is not None else {}),
        "git_commit": _git_commit(),
        "versions": {
            "python": platform.python_version(),
            **{pkg: _version(pkg) for pkg in ("squall", "pydantic-ai-slim", "pydantic", "openai")},
        },
        "platform": platform.platform(),
    }


def _version(pkg: str) -> str | None:
    try:
        return metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return None


def _git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5, cwd=Path(__file__).resolve().parent
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def point_latest(store: RunStore) -> None:
    """OUT/latest -> the newest run, swapped atomically; always inside OUT (run ids are names)."""
    link = store.root.parent / "latest"
    tmp = store.root.parent / f".latest.{os.getpid()}.tmp"  # per process: two runs never share a temp link
    tmp.unlink(missing_ok=True)
    os.symlink(store.root.name, tmp)
    os.replace(tmp, link)
