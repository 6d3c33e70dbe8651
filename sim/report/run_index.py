"""What a run folder says about itself, read cheaply for listing many runs: its identity (agent, world, user,
stressors, label, date) from ``manifest.json`` and its headline from ``summary.json``; no episode is parsed.

A run's typed identity (``judges.run.run_identity.RunIdentity``: its label, the agent without its endpoint's address)
is in ``summary.json`` under ``identity`` for runs that record it; where it is, its fields win over the ones read
here from the run's config, so older runs and newer runs list alike. Credentials in an agent's URL are never shown."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from judges.names import JudgeName
from sim.store.run_store import MANIFEST, SUMMARY, StoreError


@dataclass(frozen=True)
class RunInfo:
    """One run as the list, the leaderboard and the export name it."""

    path: Path
    run_id: str
    label: str
    agent: str
    world: str
    user: str
    stressors: str
    seed: int | None
    trials: int | None
    created_at: str
    sweep: str | None = None
    """The sweep this run belongs to (``squall run --agent A,B,...``), else None."""
    core_api_accuracy: float | None = None
    conversation_success: float | None = None
    episodes: int | None = None
    failed_episodes: int | None = None
    plan: str = "all tasks"
    """The tasks the run planned (``plan_of``): runs compare only on the same world and plan."""

    @property
    def name(self) -> str:
        """The short name a column or a row shows: the label a user set, else the run id."""
        return self.label or self.run_id

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["path"] = str(self.path)
        return out


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise StoreError(f"{path}: cannot read: {exc}") from exc
    return data if isinstance(data, dict) else {}


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    return str(value)


_USERINFO = re.compile(r"(?<=://)[^/@\s]*@")


def redact(text: str) -> str:
    """``text`` without a URL's user:password@ part or query string (where keys hide)."""
    return re.sub(r"(://[^\s?#]*)[?#]\S*", r"\1", _USERINFO.sub("", text))


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def plan_of(config: dict[str, Any]) -> str:
    """The tasks a run's config plans, in words: ``all tasks``, ``first 3 tasks``, ``tasks a,b`` (its ``--task``
    ids, then ``--limit``). Stressor variants and trials are left out: the leaderboard pairs what runs share."""
    tasks = sorted({str(t) for t in config.get("tasks") or []})
    limit = _int(config.get("limit"))
    if not tasks:
        return f"first {limit} task{'s' * (limit != 1)}" if limit is not None else "all tasks"
    named = f"tasks {','.join(tasks)}"
    return f"first {limit} of {named}" if limit is not None and limit < len(tasks) else named


def read_run_info(run_dir: Path) -> RunInfo:
    """The run in ``run_dir`` (a link such as ``runs/latest`` resolves to the run it names).
    StoreError when the folder holds no run manifest."""
    root = run_dir.resolve()
    manifest = _read_json(root / MANIFEST)
    if not manifest:
        raise StoreError(f"{run_dir}: not a run directory (no {MANIFEST})")
    config: dict[str, Any] = manifest.get("config") or {}
    summary = _read_json(root / SUMMARY)
    identity: dict[str, Any] = summary.get("identity") or manifest.get("identity") or {}

    def pick(name: str) -> Any:
        found = identity.get(name)
        return found if found not in (None, "", []) else manifest.get(name, config.get(name))

    return RunInfo(
        path=root,
        run_id=root.name,
        label=_text(pick("label")),
        agent=redact(_text(pick("agent"))),
        world=_text(pick("world")),
        user=_text(pick("user")),
        stressors=_text(pick("stressors")),
        seed=_int(pick("seed")),
        trials=_int(pick("trials")),
        created_at=_text(manifest.get("created_at")),
        sweep=_text(manifest.get("sweep")) or None,
        core_api_accuracy=_number(summary.get(JudgeName.CORE_API_ACCURACY)),
        conversation_success=_number(summary.get(JudgeName.CONVERSATION_SUCCESS)),
        episodes=_int(summary.get("episodes")),
        failed_episodes=_int(summary.get("failed_episodes")),
        plan=plan_of(config),
    )


def iter_runs(runs_dir: Path) -> Iterator[RunInfo]:
    """Every run folder directly under ``runs_dir``, oldest first (by the manifest's date, then id); links (such
    as ``latest``) and folders without a manifest are skipped. A manifest that cannot be read is an error."""
    if not runs_dir.is_dir():
        raise StoreError(f"{runs_dir}: no such folder")
    found = [
        read_run_info(child)
        for child in runs_dir.iterdir()
        if child.is_dir() and not child.is_symlink() and (child / MANIFEST).is_file()
    ]
    yield from sorted(found, key=lambda r: (r.created_at, r.run_id))


def distinct_runs(run_dirs: Sequence[Path]) -> tuple[list[Path], list[str]]:
    """The run folders among ``run_dirs`` (a shell glob's expansion, as ``runs/*`` gives it), each once, and a note
    per folder passed over: a link to a run already given (``runs/latest``) is the same run, and a folder that holds
    no run (a world imported under ``runs/``) is not one. When none is a run, the first is refused as before
    (StoreError), so one wrong folder still fails loudly."""
    kept: list[Path] = []
    notes: list[str] = []
    seen: dict[Path, Path] = {}
    for run_dir in run_dirs:
        root = run_dir.resolve()
        if root in seen:
            notes.append(f"{run_dir}: the same run as {seen[root]}, counted once")
        elif not (root / MANIFEST).is_file():
            notes.append(f"{run_dir}: not a run directory (no {MANIFEST}), left out")
        else:
            seen[root] = run_dir
            kept.append(run_dir)
    if not kept and run_dirs:
        read_run_info(run_dirs[0])
    return kept, notes
