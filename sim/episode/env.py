"""What an episode is played from: the planned episode (spec), its budgets (limits) and everything it is played
with (env)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from sim.core import AgentFactory, EpisodeId, Event, Stressor, Task, User, WorldPack
from sim.episode.gold_history import Setup
from sim.episode.state_track import GoldStateCache
from sim.llm.gateway import Gateway


class EpisodeLimits(BaseModel):
    """Budgets for one episode."""

    max_steps: int = Field(default=15, ge=1, description="Model requests (and tool calls) per turn.")
    max_turns: int = Field(default=20, ge=1, description="User turns per episode.")
    timeout_s: float = Field(default=600.0, gt=0, description="Wall-clock budget per episode.")


class EpisodeSpec(BaseModel):
    """One planned episode: a task, a trial number and the seed everything is built from."""

    task: Task
    trial: int
    seed: int
    variant: str = ""
    """Stressor-mode isolated: the scenario this episode runs alone ('' = the unstressed baseline, or any
    episode of a cumulative run)."""
    stressors: tuple[str, ...] | None = None
    """The stressor items of this episode; None: the run's."""
    user: str = ""
    """The user spec of this episode when the run has several ('' = the run's one user)."""

    @property
    def episode_id(self) -> str:
        return str(EpisodeId(self.task.id, self.trial, self.variant, self.user))


def _no_lag() -> float:
    return 0.0


@dataclass(frozen=True)
class EpisodeEnv:
    """Everything an episode is played with besides its spec (a session builds one per episode: the user and the
    stressors are the episode's own, the rest is the session's)."""

    pack: WorldPack
    make_agent: AgentFactory
    """Builds the episode's agent from its gold (``sim.core.AgentFactory``)."""
    user: User
    gateway: Gateway
    labels: tuple[str, str]
    """The agent's and the user's spec strings, as the trace names them."""
    stressors: tuple[Stressor, ...] = ()
    limits: EpisodeLimits = field(default_factory=EpisodeLimits)
    setup: Setup = "cumulative"
    """Cumulative hands the agent its own history; isolated hands it the gold one (``sim.episode.gold_history``)."""
    loop_lag: Callable[[], float] = _no_lag
    """The event loop's accumulated scheduling delay: not the episode's working time (``sim.episode.deadline``)."""
    watch: Callable[[Event], None] | None = None
    """Sees every event as it is recorded (``squall chat`` shows tool calls as they happen)."""
    gold_states: GoldStateCache | None = None
    """The gold's task states shared by the episodes of one session (None: each episode replays its own)."""
