"""The retry policy value: how a failed model request is retried (a light module, read by the config)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt


class RetryPolicy(BaseModel):
    """How a failed request is retried. Vendor SDK retries are off; this is the only retry layer."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)  # an infinite timeout overflows the HTTP client

    max_attempts: StrictInt = Field(default=6, ge=1, description="Attempts per request for transient faults.")
    base_delay_s: StrictFloat = Field(default=0.5, ge=0, description="First backoff for errors without Retry-After.")
    max_delay_s: StrictFloat = Field(default=30.0, ge=0, description="Cap on a backoff the provider did not ask for.")
    max_retry_after_s: StrictFloat = Field(
        default=300.0, ge=0, description="Longest Retry-After honoured as given; longer asks fail the request."
    )
    rate_limit_budget_s: StrictFloat = Field(
        default=900.0, ge=0, description="Total time one request may spend waiting out 429s before giving up."
    )
    max_malformed: StrictInt = Field(
        default=3,
        ge=1,
        description="Attempts for malformed bodies (rarely transient; 3 so that two bad bodies in a row, as a flaky "
        "provider sends now and then, still get their retry).",
    )
