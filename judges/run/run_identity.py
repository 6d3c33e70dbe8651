"""``RunIdentity``: what a run ran, in one typed value every output names it by.

Built from the run's ``manifest.json`` (``RunIdentity.from_manifest``): the agent (its model and base URL, with any
secret in the URL removed), world, user, stressors, setup, seed, trials, the score set shown, squall's version and
git commit, and a short ``label`` (``--label``, else derived from the agent and stressors) that names the run in
compare columns, leaderboards and run lists. ``summary.json`` holds it under ``identity``; the terminal, Markdown and
HTML headers print ``header_line()``.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field

LABEL_CHARS = 40
"""A derived label is at most this long: it heads a table column."""

_AGENT_PREFIXES = ("native:", "text:", "direct:")
_PROVIDER_PREFIXES = ("openai-chat:", "openai:")


class RunIdentity(BaseModel):
    """What a run ran. Every field is optional: a hand-built store or an old manifest lacks some."""

    model_config = ConfigDict(extra="ignore")

    run_id: str | None = Field(default=None, description="The run folder's name (never 'latest').")
    label: str = Field(default="", description="Short name of the run: --label, else derived from agent+stressors.")
    agent: str | None = Field(default=None, description="The agent spec, without its endpoint's address.")
    model: str | None = Field(default=None, description="The agent's model name, where it has one.")
    base_url: str | None = Field(default=None, description="The agent's endpoint, without credentials or query.")
    endpoint: str | None = Field(default=None, description="The [endpoints.NAME] table the agent used, if any.")
    world: str | None = None
    user: str | None = None
    stressors: list[str] = Field(default_factory=list)
    stressor_mode: str | None = None
    setup: str | None = None
    seed: int | None = None
    trials: int | None = None
    score_set: str | None = Field(default=None, description="The score set the summary shows.")
    squall_version: str | None = None
    git_commit: str | None = None
    created_at: str | None = None

    @classmethod
    def from_manifest(
        cls, manifest: dict[str, Any], score_set: str | None = None, run_id: str | None = None
    ) -> RunIdentity:
        """The identity a manifest records; ``run_id`` (the folder's real name) wins over the manifest's."""
        cfg = manifest.get("config") or {}
        agent = str(cfg.get("agent") or "") or None
        spec, base_url, endpoint = split_agent(agent or "")
        endpoints = manifest.get("endpoints") or cfg.get("endpoints") or {}
        if endpoint and base_url is None and isinstance(endpoints.get(endpoint), dict):
            base_url = endpoints[endpoint].get("base_url")
        stressors = [str(s) for s in cfg.get("stressors") or ()]
        versions = manifest.get("versions") or {}
        return cls(
            run_id=run_id or manifest.get("run_id"),
            label=str(cfg.get("label") or "") or default_label(agent or "?", stressors),
            agent=spec or None,
            model=model_name(spec) if spec else None,
            base_url=redact_url(base_url) if base_url else None,
            endpoint=endpoint,
            world=cfg.get("world"),
            user=cfg.get("user"),
            stressors=stressors,
            stressor_mode=cfg.get("stressor_mode"),
            setup=cfg.get("setup"),
            seed=cfg.get("seed", manifest.get("seed")),
            trials=cfg.get("trials"),
            score_set=score_set,
            squall_version=versions.get("squall"),
            git_commit=manifest.get("git_commit"),
            created_at=manifest.get("created_at"),
        )

    def facts(self) -> list[tuple[str, str]]:
        """(name, value) pairs for a header, in reading order; absent ones left out."""
        agent = self.agent or ""
        where = self.base_url or (f"[endpoints.{self.endpoint}]" if self.endpoint else "")
        pairs = [
            ("agent", f"{agent} @ {where}" if where else agent),
            ("world", self.world or ""),
            ("user", self.user or ""),
            ("stressors", ", ".join(self.stressors) if self.stressors else "none"),
            ("stressor mode", self.stressor_mode if self.stressors and self.stressor_mode else ""),
            ("setup", self.setup or ""),
            ("seed", "" if self.seed is None else str(self.seed)),
            ("trials", "" if self.trials is None else str(self.trials)),
            ("score set", self.score_set or ""),
            ("squall", self.squall_version or ""),
            ("commit", (self.git_commit or "")[:10]),
        ]
        return [(k, v) for k, v in pairs if v]

    def header_line(self) -> str:
        """One line: 'agent: ... · world: ... · ...'."""
        return " · ".join(f"{k}: {v}" for k, v in self.facts())


def split_agent(agent: str) -> tuple[str, str | None, str | None]:
    """(the spec without its address, the base URL, the endpoint name): ``native:openai-chat:m@http://h/v1`` ->
    ('native:openai-chat:m', 'http://h/v1', None); ``openai-chat:m@vllm`` -> ('openai-chat:m', None, 'vllm')."""
    url = re.match(r"^(.+?)@(https?://.*)$", agent)  # the first '@http': a URL may hold '@' itself
    if url:
        return url.group(1), url.group(2), None
    head, at, tail = agent.rpartition("@")
    if not at or not head:
        return agent, None, None
    if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", tail) and ":" in head:
        return head, None, tail
    return agent, None, None  # e.g. a persona after '@' is not an agent's; leave it whole


def model_name(spec: str) -> str:
    """The model's own name: 'native:openai-chat:gpt-4o' -> 'gpt-4o'; 'oracle' -> 'oracle'."""
    for prefix in _AGENT_PREFIXES:
        spec = spec.removeprefix(prefix)
    for prefix in _PROVIDER_PREFIXES:
        spec = spec.removeprefix(prefix)
    return spec


def redact_url(url: str) -> str:
    """The URL without user, password, query or fragment (where keys hide)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable url>"
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def default_label(agent: str, stressors: list[str]) -> str:
    """A short name from the agent and stressors: 'oracle', 'native:gpt-4o-mini', 'oracle+failure,adhoc'."""
    spec, _, _ = split_agent(agent)
    kind = next((p for p in _AGENT_PREFIXES if spec.startswith(p)), "")
    label = kind + model_name(spec)
    if stressors:
        label += "+" + ",".join(s.partition(":")[0] for s in stressors)
    return label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "…"


def distinct_labels(labels: list[str], run_ids: list[str | None]) -> list[str]:
    """The labels, each repeated one suffixed with its run id so that columns never read the same."""
    out = []
    for label, run_id in zip(labels, run_ids, strict=True):
        out.append(f"{label} ({run_id})" if labels.count(label) > 1 and run_id else label)
    return out
