"""What names a run's model without saying where it is served: the endpoint's address is not the run's identity.

A model string may carry its endpoint (``openai-chat:NAME@http://host:port/v1``). The same model behind another
address (a server restarted on a new port, a tunnel, a mirror) measures the same thing, so a run may resume there;
the model's name stays in the identity.
"""

from __future__ import annotations

ENDPOINT_FIELDS = ("agent", "user_model")
"""Identity fields whose value may end in '@BASE_URL'."""


def without_endpoint(spec: str) -> str:
    """``spec`` without a trailing '@http(s)://...' (any prefix kept: ``text:``, ``native:``, the provider)."""
    head, at, tail = spec.rpartition("@")
    return head if at and tail.startswith(("http://", "https://")) else spec
