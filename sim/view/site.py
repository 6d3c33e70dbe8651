"""Every document the viewer reads, by name, over the runs it was pointed at: ``runs`` (the list and the
leaderboards: per metric and grouping, one board per world and plan, and the runs none can rank), ``version`` (what
changed, for live refresh), ``run/KEY``, ``chunk/KEY/N`` and ``compare/A/B``.

Runs are found again on every ``runs`` or ``version`` read, so a run that starts while the viewer is open shows up;
a run's documents are built once per state of its files (sizes and times) and kept until the files change."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from judges.names import JudgeName
from sim.report.comparable import load_scores, split_boards
from sim.report.run_index import read_run_info
from sim.report.svg import interval_chart
from sim.store.run_store import EPISODES, MANIFEST, SCORE_SETS, SCORES, StoreError
from sim.view.compare_data import CompareSide, compare_document
from sim.view.run_data import RunDocuments, build_run_documents

LEADERBOARD_METRICS = (JudgeName.CORE_API_ACCURACY, JudgeName.CONVERSATION_SUCCESS)
LEADERBOARD_BY = ("agent", "run")


def find_runs(paths: Sequence[Path]) -> list[Path]:
    """Each path is a run folder or a folder of runs (its direct children that hold a manifest; links such as
    ``latest`` skipped). StoreError for a path that is neither."""
    found: list[Path] = []
    for path in paths:
        if (path / MANIFEST).is_file():
            found.append(path.resolve())
        elif path.is_dir():
            kids = [c for c in sorted(path.iterdir()) if c.is_dir() and not c.is_symlink() and (c / MANIFEST).is_file()]
            found += [c.resolve() for c in kids]
        else:
            raise StoreError(f"{path}: no such run folder or folder of runs")
    return list(dict.fromkeys(found))


def version_of(path: Path) -> str:
    """A run's file state: it changes whenever a record is appended or the summary or manifest is replaced."""
    parts = []
    for name in (MANIFEST, EPISODES, SCORES, SCORE_SETS):
        try:
            st = (path / name).stat()
            parts.append(f"{st.st_size}.{st.st_mtime_ns}")
        except FileNotFoundError:
            parts.append("-")
    return "/".join(parts)


class ViewSite:
    """The viewer's documents over ``paths`` (see the module docstring). Safe to read from several threads."""

    def __init__(self, paths: Sequence[Path], cap: int) -> None:
        self.paths = list(paths)
        self.cap = cap
        self._lock = threading.Lock()
        self._built: dict[Path, tuple[str, RunDocuments]] = {}
        self._boards: tuple[str, dict[str, Any]] | None = None

    def runs(self) -> dict[str, Path]:
        """key -> run folder; the key is the folder's name (made unique with a suffix)."""
        keys: dict[str, Path] = {}
        for path in find_runs(self.paths):
            key, n = path.name, 2
            while key in keys:
                key, n = f"{path.name}-{n}", n + 1
            keys[key] = path
        return keys

    def documents(self, key: str, path: Path) -> RunDocuments:
        version = version_of(path)
        with self._lock:
            built = self._built.get(path)
            if built is None or built[0] != version:
                built = (version, build_run_documents(path, key, self.cap))
                self._built[path] = built
            return built[1]

    def document(self, name: str) -> dict[str, Any] | None:
        """The document called ``name``; None when there is none."""
        parts = name.split("/")
        runs = self.runs()
        if name == "runs":
            return self._runs_document(runs)
        if name == "version":
            return {"runs": {key: version_of(path) for key, path in runs.items()}}
        if parts[0] == "run" and len(parts) == 2 and parts[1] in runs:
            return self.documents(parts[1], runs[parts[1]]).run
        if parts[0] == "chunk" and len(parts) == 3 and parts[1] in runs and parts[2].isdigit():
            chunks = self.documents(parts[1], runs[parts[1]]).chunks
            return chunks[int(parts[2])] if int(parts[2]) < len(chunks) else None
        if parts[0] == "compare" and len(parts) == 3 and parts[1] in runs and parts[2] in runs:
            a, b = (self._side(k, runs[k]) for k in parts[1:])
            return compare_document(a, b)
        return None

    def _side(self, key: str, path: Path) -> CompareSide:
        docs = self.documents(key, path)
        return CompareSide(key, path, docs.summary, docs.run["episodes"])

    def _runs_document(self, runs: dict[str, Path]) -> dict[str, Any]:
        listed = []
        for key, path in runs.items():
            try:
                info = read_run_info(path).as_dict()
            except StoreError as exc:
                info = {"run_id": path.name, "problem": str(exc)}
            listed.append({**info, "key": key, "path": str(path)})
        listed.sort(key=lambda r: (str(r.get("created_at") or ""), r["key"]), reverse=True)
        return {"runs": listed, "leaderboards": self._leaderboards(runs)}

    def _leaderboards(self, runs: dict[str, Path]) -> dict[str, Any]:
        state = "|".join(f"{k}:{version_of(p)}" for k, p in sorted(runs.items()))
        with self._lock:
            if self._boards is not None and self._boards[0] == state:
                return self._boards[1]
        boards: dict[str, Any] = {}
        dirs = list(runs.values())
        for metric in LEADERBOARD_METRICS:
            try:
                loaded, unreadable = load_scores(dirs, metric)  # once per metric, for every grouping
            except (StoreError, OSError) as exc:
                boards.update({f"{metric}/{by}": {"problem": str(exc), "boards": []} for by in LEADERBOARD_BY})
                continue
            for by in LEADERBOARD_BY:
                doc = split_boards(loaded, by, unreadable=unreadable, metric=metric).as_dict()
                for board in doc["boards"]:
                    bars = [(r["name"], r["score"], r["ci95"], r["shared_episodes"]) for r in board["rows"]]
                    title = f"{board['world']} by {by}: {metric}"
                    board["chart"] = interval_chart(bars, title, "shared episodes; 95% CI over tasks")
                boards[f"{metric}/{by}"] = doc
        with self._lock:
            self._boards = (state, boards)
        return boards
