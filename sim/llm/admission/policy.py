"""How a gateway admits a request's attempts and when it retries them: one policy, chosen when the gateway is built.

Two policies: squall's scheduler (token estimate, TPM/RPM buckets, adaptive connection limit, 429 pauses that
honour Retry-After) and the static baseline, the peer way (a fixed connection limit, blind backoff), kept for
``squall bench`` to compare against. The gateway's retry loop is the same for both; what differs lives here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from sim.core import ModelRequest
from sim.llm.errors import ProviderError
from sim.llm.transports.base import Reply, TransportError


@dataclass(frozen=True, slots=True)
class Retry:
    """When a failed attempt goes again."""

    delay_s: float
    """Seconds until the retry may go (shown in the retry event)."""
    sleep: bool
    """True: the gateway sleeps the delay (charged as waiting). False: the next admission waits it out itself."""


class RequestAdmission(Protocol):
    """One request's attempts under a policy. Per attempt: ``enter``, then one outcome (``succeeded`` or ``failed``)
    unless the attempt was cut short, then ``leave`` whatever happened. The caller holds the episode's ``waiting``
    around them all."""

    async def enter(self) -> float:
        """Wait until this attempt may go; the seconds waited."""
        ...

    def succeeded(self, reply: Reply) -> None: ...

    def failed(self, error: TransportError) -> Retry:
        """Report a failed attempt and say when to retry; raises ProviderError when the request should give up."""
        ...

    def leave(self) -> None:
        """Free what ``enter`` took. An attempt with no outcome reported (cancelled, a bug) counts as failed."""
        ...


class AdmissionPolicy(Protocol):
    def open(self, request: ModelRequest, endpoint: str) -> RequestAdmission:
        """The admission of ``request`` to ``endpoint``, for all its attempts."""
        ...

    async def aclose(self) -> None: ...


def gave_up(error: TransportError, failed_attempts: int) -> ProviderError:
    """The failure a request ends with once its policy stops retrying it (raise it ``from error``)."""
    return ProviderError(error.code, f"{error} (gave up after {failed_attempts} failed attempt(s))")
