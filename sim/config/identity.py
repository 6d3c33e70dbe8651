"""A run's identity: the settings that change what it measures (``IDENTITY_FIELDS``, hashed by
``RunConfig.config_hash``), and its model named without saying where it is served — the endpoint's address is not
the run's identity.

A model string may carry its endpoint (``openai-chat:NAME@http://host:port/v1``). The same model behind another
address (a server restarted on a new port, a tunnel, a mirror) measures the same thing, so a run may resume there;
the model's name stays in the identity.
"""

from __future__ import annotations

import re
from typing import Any

# Fields that change what is measured; the rest (where, how fast) may differ on --resume.
# One added later is hashed only away from its default, so runs made before it existed still resume. The agent's and
# user model's endpoint address is not hashed (``without_endpoint`` below): a run may resume on another port.
IDENTITY_FIELDS = (
    "world",
    "agent",
    "user",
    "user_model",
    "stressors",
    "tasks",
    "limit",
    "sample",
    "trials",
    "seed",
    "max_steps",
    "max_turns",
    "max_tokens",
    "temperature",
    "arg_match",
    "arg_match_params",
    "embedding_threshold",
    "setup",
    "text_protocol",
    "code_timeout_s",
    "code_memory_mb",
    "stressor_mode",
    "system_prompt",
    "tool_descriptions",
    "param_descriptions",
)

LATER_IDENTITY_DEFAULTS: dict[str, Any] = {
    "text_protocol": "react",
    "code_timeout_s": 10.0,
    "code_memory_mb": 512,
    "setup": "cumulative",
    "stressor_mode": "cumulative",
    "user_model": "local",
    "arg_match_params": {},
    "system_prompt": None,
    "tool_descriptions": None,
    "param_descriptions": "keep",
    "sample": None,
}
"""Identity fields added after runs were stored, with the default those runs had."""

ENDPOINT_FIELDS = ("agent", "user_model")
"""Identity fields whose value may end in '@BASE_URL'."""

_PROVIDERS = ("openai-chat:", "openai:", "native:openai", "text:openai", "direct:openai", "code:openai")
"""Model strings that may end in '@ENDPOINT' (a persona after '@' in a user spec is not an endpoint)."""


def without_endpoint(spec: str) -> str:
    """``spec`` without a trailing '@http(s)://...' or '@ENDPOINT' (a configured endpoint's name; any prefix kept:
    ``text:``, ``native:``, the provider)."""
    head, at, tail = spec.rpartition("@")
    if at and tail.startswith(("http://", "https://")):
        return head
    named = at and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", tail) and head.startswith(_PROVIDERS)
    return head if named else spec
