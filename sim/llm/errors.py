"""Classify provider failures so the gateway knows whether to wait, retry or give up."""

from __future__ import annotations

import json
import sys
from typing import Literal

import pydantic

ErrorClass = Literal["rate_limit", "transient", "fatal", "passthrough"]
"""passthrough: not a provider fault at all; the caller re-raises the original exception."""


class ProviderError(Exception):
    """An LLM request that failed for good (fatal, or retries exhausted). Ends the episode as provider_error."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class StepLimitReached(Exception):
    """The agent used up its per-turn step budget. Ends the turn, not the episode; an agent fault."""


class ContextLengthExceeded(Exception):
    """The endpoint refused a request as longer than the model's context: the agent's history grew too long.
    Ends the turn as an agent fault (``agent:context_length``); not a provider failure that drops the episode."""


def is_model_misbehaviour(exc: BaseException) -> bool:
    """pydantic-ai's 'the model broke the protocol' errors: the agent's fault, not the provider's.

    Checked without importing pydantic-ai: if it was never imported, no exception can be one of its.
    """
    module = sys.modules.get("pydantic_ai.exceptions")
    return module is not None and isinstance(exc, module.UnexpectedModelBehavior | module.UsageLimitExceeded)


def classify(exc: BaseException) -> tuple[ErrorClass, str, float | None]:
    """(class, 'provider:reason' code, retry-after seconds) for an exception raised by a model request."""
    from pydantic_ai import exceptions as pe  # only runs that call models pay for importing pydantic-ai

    retry_after = getattr(exc, "retry_after", None)
    if isinstance(exc, pe.ContentFilterError):  # the model's own answer, not a transport fault: the agent's
        return "passthrough", "agent:content_filter", None
    if isinstance(exc, pe.ModelRateLimitError):
        return "rate_limit", "provider:rate_limited", retry_after
    if isinstance(exc, pe.ModelQuotaExceededError | pe.ModelRequestRejectedError):
        return "fatal", f"provider:{_status_reason(exc, 'rejected')}", None
    if isinstance(exc, pe.ModelConnectionError | pe.ModelRequestTimeout | TimeoutError):
        return "transient", "provider:timeout_or_connection", retry_after
    if isinstance(exc, pe.ModelUnavailableError | pe.ModelServerError):
        return "transient", f"provider:{_status_reason(exc, 'server_error')}", retry_after
    if isinstance(exc, pe.ModelHTTPError):
        if exc.status_code >= 500 or exc.status_code in (408, 409):
            return "transient", f"provider:http_{exc.status_code}", retry_after
        return "fatal", f"provider:http_{exc.status_code}", None
    if _bad_body(exc):
        return "transient", "provider:malformed_response", None
    if isinstance(exc, pe.ModelAPIError):
        return "transient", "provider:api_error", retry_after
    # A body the SDK could not parse surfaces as one of these, depending on where parsing broke.
    if isinstance(exc, pe.UnexpectedModelBehavior | json.JSONDecodeError | pydantic.ValidationError):
        return "transient", "provider:malformed_response", None
    return "passthrough", "harness:unexpected_exception", None


def _bad_body(exc: BaseException) -> bool:
    """A response body that did not parse, wherever in the SDK stack it was wrapped."""
    seen: BaseException | None = exc
    for _ in range(6):
        if seen is None:
            return False
        if isinstance(seen, json.JSONDecodeError | pydantic.ValidationError) or _is_openai_error(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _status_reason(exc: BaseException, default: str) -> str:
    status = getattr(exc, "status_code", None)
    return f"http_{status}" if status else default


def _is_openai_error(exc: BaseException) -> bool:
    try:
        import openai
    except ImportError:  # pragma: no cover - openai ships with pydantic-ai-slim[openai]
        return False
    return isinstance(exc, openai.APIResponseValidationError)
