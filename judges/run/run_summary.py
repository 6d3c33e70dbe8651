"""``RunSummary``: what ``summary.json`` holds, typed.

The run's own numbers (episodes, failures, terminations, usage...) are fields. Each judge's numbers are its
``Reduction``'s keys (``judges.registry``), kept in ``judged`` and written at the top level of ``summary.json``
beside the fields, as they always were: a stored summary (any version, older ones with fewer keys) validates,
and dumps back key for key. Only the keys a summary was built or read with are written (``exclude_unset``), so a
section a run did not have (stressors, users, stacking, incremental) stays absent rather than null.
"""

from __future__ import annotations

from collections.abc import ItemsView, KeysView
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from judges.run.run_identity import RunIdentity

Number = int | float  # a sum of ints stays an int in summary.json, as it always was


class UsageTotals(BaseModel):
    """Model usage summed over episodes (rounded to 4 places). The last three are in a summary only where not
    zero (``judges.metrics.USAGE_DETAILS``)."""

    model_config = ConfigDict(extra="allow")

    requests: int = 0
    cached: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: Number = 0
    retries: int = 0
    working_s: Number = 0
    waiting_s: Number = 0
    cached_input_tokens: int = Field(default=0, description="Of input_tokens, read from the provider's prompt cache.")
    reasoning_tokens: int = Field(default=0, description="Of output_tokens, spent reasoning.")
    truncated: int = Field(default=0, description="Replies cut at an output limit (finish_reason 'length'...).")


class RunSummary(BaseModel):
    """The summary of one score set of a run: what ``summary.json``, the reports, ``--compare`` and the bench read."""

    model_config = ConfigDict(extra="forbid")

    run_id: str | None = Field(default=None, description="The run directory's name.")
    identity: RunIdentity | None = Field(
        default=None, description="What the run ran (agent, world, user, stressors, ...) and its label."
    )
    setup: str | None = Field(default=None, description="cumulative | isolated; None for hand-built stores.")
    score_set: str | None = Field(default=None, description="The score set summarised (its config hash).")
    score_set_config: dict[str, Any] | None = Field(default=None, description="That set's judge configuration.")
    score_sets: list[str] = Field(default_factory=list, description="Every score set of the run, oldest first.")
    episodes: int = Field(default=0, description="Episodes stored.")
    planned_episodes: int = Field(default=0, description="Episodes the run planned.")
    failed_episodes: int = Field(default=0, description="Episodes that failed (provider, user, harness, timeout).")
    scored_episodes: int = Field(default=0, description="Episodes not failed: the judges' denominators.")
    judged_episodes: int | None = Field(
        default=None,
        description="Only when the score set is incomplete (``squall score`` or a run stopped before judging what "
        "it stored): the stored episodes it has verdicts for, of ``episodes``. Every judge's number then covers "
        "those only; ``squall score --resume`` completes the set.",
    )
    terminations: dict[str, int] = Field(default_factory=dict, description="Episodes per termination reason.")
    failed_episode_ids: list[str] = Field(default_factory=list)
    failed_by_code: dict[str, int] = Field(
        default_factory=dict,
        description="Failed (not scored) episodes per cause: the world's code (world:not_cached...) or "
        "episode:<termination> (episode:provider_error...). Only when some failed.",
    )
    cache_misses: int = Field(
        default=0,
        description="Calls off the gold path that a simulated world had no recorded answer for and might not simulate "
        "(read-only cache): the agent read a 503, its episode was scored. Only when some missed.",
    )
    agent_loops: dict[str, Any] | None = Field(
        default=None,
        description="Agent loops per goal (model requests, or responses for agents that send none): mean, 95% "
        "interval over tasks, goals, loops, counted_from (``judges.run.agent_loops``). Only when some were counted.",
    )
    judge_faults: int = Field(default=0, description="Scored episodes a judge could not score (outside its rates).")
    judge_fault_episode_ids: list[str] = Field(default_factory=list)
    faults_by_kind: dict[str, int] = Field(default_factory=dict, description="Error events per fault kind.")
    error_codes: dict[str, int] = Field(default_factory=dict, description="The 20 most frequent error codes.")
    usage: UsageTotals = Field(default_factory=UsageTotals)
    usage_by_role: dict[str, UsageTotals] = Field(default_factory=dict)
    over_trials: dict[str, Any] = Field(
        default_factory=dict, description="Trials, and per judge with a per-trial rate its rates, mean and sd."
    )
    out_of_budget: dict[str, int] = Field(
        default_factory=dict, description="Episodes that hit the step limit, the turn limit or the working-time budget."
    )
    stressors: dict[str, Any] | None = Field(default=None, description="Isolated stressors, each vs its baseline.")
    users: dict[str, Any] | None = Field(default=None, description="Results per user style.")
    stacking: dict[str, Any] | None = Field(default=None, description="Cumulative stressors by scenarios fired.")
    incremental: dict[str, Any] | None = Field(
        default=None, description="Incremental stressors: accuracy per prefix (A; A+B; ...) and the drop per step."
    )
    complexity_by_user: dict[str, Any] | None = Field(
        default=None, description="Goal accuracy per stressor condition (rows) and user style (columns)."
    )
    backup_paths: dict[str, Any] | None = Field(
        default=None, description="Backup outages: primary vs backup path length per cut goal, and recovery."
    )
    stopped_by_max_cost: dict[str, float] | None = Field(
        default=None, description="--max-cost and what was spent when it stopped new episodes."
    )
    judged: dict[str, Any] = Field(
        default_factory=dict, description="Every judge's keys (``judges.registry``), top-level in summary.json."
    )

    @model_validator(mode="before")
    @classmethod
    def _gather_judge_keys(cls, data: Any) -> Any:
        """A flat mapping (``summary.json``): the keys that are not fields are the judges'."""
        if not isinstance(data, dict) or "judged" in data:
            return data
        fields = cls.model_fields
        return {
            **{k: v for k, v in data.items() if k in fields},
            "judged": {k: v for k, v in data.items() if k not in fields},
        }

    @model_serializer(mode="wrap")
    def _flatten(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        return {**{k: v for k, v in data.items() if k != "judged"}, **data.get("judged", {})}

    @property
    def incomplete(self) -> bool:
        """Whether the score set lacks verdicts for some stored episodes."""
        return self.judged_episodes is not None and self.judged_episodes < self.episodes

    def as_dict(self) -> dict[str, Any]:
        """The flat mapping ``summary.json`` holds (Python values: intervals stay tuples)."""
        return self.model_dump(exclude_unset=True)

    def flat(self) -> dict[str, Any]:
        """Every key, fields with their defaults included: what the reports' judge rows read."""
        return self.model_dump()

    # Read access by summary.json key, as the summary was read when it was a dict (scripts, tests, a judge's keys).
    def __getitem__(self, key: str) -> Any:
        return self.as_dict()[key]

    def __contains__(self, key: object) -> bool:
        return key in self.as_dict()

    def get(self, key: str, default: Any = None) -> Any:
        return self.as_dict().get(key, default)

    def keys(self) -> KeysView[str]:
        return self.as_dict().keys()

    def items(self) -> ItemsView[str, Any]:
        return self.as_dict().items()
