"""Which stored run a config may continue, and what a resume on another endpoint records.

The run's identity is ``RunConfig.config_hash``: what is measured, not where the model is served. Runs stored before
the endpoint left the identity carry a hash with it; they resume too, on their old endpoint or a new one. A resume
whose agent or user model is now served elsewhere writes the new address into the manifest (the next ``--resume``
starts from it) and appends the change to ``endpoint_history``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from sim.config.identity import ENDPOINT_FIELDS
from sim.config.run_config import RunConfig
from sim.store.run_store import RunStore


def same_run(config: RunConfig) -> Callable[[dict[str, Any]], bool]:
    """Whether a manifest whose ``config_hash`` is not ``config``'s current one is still this run: a hash of the
    older form (with the endpoint) that its own config matches, and that config measures what ``config`` does."""

    def accepts(manifest: dict[str, Any]) -> bool:
        stored_hash = manifest.get("config_hash")
        if stored_hash == config.config_hash(with_endpoint=True):
            return True
        try:
            stored = RunConfig.model_validate(manifest.get("config"))
        except ValidationError:
            return False  # a config this squall cannot read: only an exact hash resumes it
        return stored.config_hash(with_endpoint=True) == stored_hash and stored.config_hash() == config.config_hash()

    return accepts


def note_endpoint(store: RunStore, config: RunConfig) -> None:
    """Record in the manifest that this resume serves the agent or user model from another address."""
    manifest = store.manifest()
    stored = manifest["config"]
    before = {f: stored.get(f, RunConfig.model_fields[f].default) for f in ENDPOINT_FIELDS}
    now = {f: getattr(config, f) for f in ENDPOINT_FIELDS}
    changed = [f for f in ENDPOINT_FIELDS if before[f] != now[f]]
    if not changed:
        return
    entry = {
        "resumed_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "from": {f: before[f] for f in changed},
        "to": {f: now[f] for f in changed},
    }
    store.update_manifest(
        {
            "config": {**stored, **{f: now[f] for f in changed}},
            "config_hash": config.config_hash(),
            "endpoint_history": [*manifest.get("endpoint_history", []), entry],
        }
    )
