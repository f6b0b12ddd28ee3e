"""Which model-call failures are worth another call, and which end the run.

A reply the server sent but that cannot be read (a body cut off mid-way, HTML instead of
JSON) is *malformed*: a second call usually succeeds, so the worker and the critic each
retry within their attempts (`Context.worker_attempts`, `Context.critic_attempts`). Rate
limits, server errors, timeouts and dropped connections are repeated by the model client
itself (`Context.max_retries`, honouring Retry-After); when those run out the run stops,
every finished step saved, and can be resumed.
"""

from __future__ import annotations

import json

import openai
import pydantic

MALFORMED_REPLIES: tuple[type[Exception], ...] = (
    json.JSONDecodeError,
    openai.APIResponseValidationError,
    pydantic.ValidationError,
)
"""Errors raised when a model server's reply cannot be read as a chat completion."""
