"""What an outside agent did wrong on one turn: each a classified agent fault of that episode
(``sim.episode.faults``), never the run's end."""

from __future__ import annotations


class OutsideAgentError(Exception):
    """The outside agent failed its turn; ``code`` is the fault's code."""

    code = "agent:outside_failed"


class OutsideUnreachable(OutsideAgentError):
    """Nothing answered: a refused connection, an unknown host, a program that cannot start. Not the agent's fault
    as measured: the episode ends as a provider error (``sim.episode.faults``), unscored and resumable."""

    code = "provider:outside_unreachable"


class OutsideFailed(OutsideAgentError):
    """It answered with a failure: an HTTP error status, a non-zero exit, a callable that raised."""

    code = "agent:outside_failed"


class OutsideBadReply(OutsideAgentError):
    """It answered something that is not a ``squall-agent/1`` reply: not JSON, the wrong shape, garbage."""

    code = "agent:outside_bad_reply"


class OutsideTimeout(OutsideAgentError):
    """It did not answer within the episode's remaining working time (a command is killed)."""

    code = "agent:outside_timeout"
