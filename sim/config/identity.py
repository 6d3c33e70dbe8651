"""What names a run's model without saying where it is served: the endpoint's address is not the run's identity.

A model string may carry its endpoint (``openai-chat:NAME@http://host:port/v1``). The same model behind another
address (a server restarted on a new port, a tunnel, a mirror) measures the same thing, so a run may resume there;
the model's name stays in the identity.
"""

from __future__ import annotations

import re

ENDPOINT_FIELDS = ("agent", "user_model")
"""Identity fields whose value may end in '@BASE_URL'."""

_PROVIDERS = ("openai-chat:", "openai:", "native:openai", "text:openai", "direct:openai")
"""Model strings that may end in '@ENDPOINT' (a persona after '@' in a user spec is not an endpoint)."""


def without_endpoint(spec: str) -> str:
    """``spec`` without a trailing '@http(s)://...' or '@ENDPOINT' (a configured endpoint's name; any prefix kept:
    ``text:``, ``native:``, the provider)."""
    head, at, tail = spec.rpartition("@")
    if at and tail.startswith(("http://", "https://")):
        return head
    named = at and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", tail) and head.startswith(_PROVIDERS)
    return head if named else spec
