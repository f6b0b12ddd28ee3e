"""Which model-call failures are worth another call, and which end the run.

A reply the server sent but that cannot be read (a body cut off mid-way, HTML instead of
JSON) is *malformed*: a second call usually succeeds, so the worker and the critic each
retry within their attempts (`Context.worker_attempts`, `Context.critic_attempts`). Rate
limits, server errors, timeouts and dropped connections are repeated by the model client
itself (`Context.max_retries`, honouring Retry-After); when those run out the run stops,
every finished step saved, and can be resumed. A server that cannot be reached is
reported as `ModelUnreachable`, naming the role, the model and the URL.
"""

from __future__ import annotations

import json

import httpx
import openai
import pydantic

MALFORMED_REPLIES: tuple[type[Exception], ...] = (
    json.JSONDecodeError,
    openai.APIResponseValidationError,
    pydantic.ValidationError,
)
"""Errors raised when a model server's reply cannot be read as a chat completion."""


UNREACHABLE: tuple[type[Exception], ...] = (openai.APIConnectionError, httpx.TransportError)
"""Errors raised when no answer came from a model server: refused, unreachable, timed out."""


class ModelUnreachable(ConnectionError):
    """A role's model server could not be reached (after the client's own retries).

    It says which role's model (worker, critic, distiller), which model and where, so
    the person reading it knows which server to start or which address to fix.
    """

    def __init__(self, role: str, spec: str, url: str, cause: Exception) -> None:
        """Describe the failed call of `role`'s model `spec` at `url`."""
        self.role = role
        self.spec = spec
        self.url = url
        detail = str(cause).strip() or "no answer"
        timed_out = isinstance(cause, openai.APITimeoutError | httpx.TimeoutException)
        failed = "did not answer in time" if timed_out else "cannot be reached"
        super().__init__(
            f"the {role} model {spec!r} at {url} {failed} ({type(cause).__name__}: {detail})"
        )


def _url_of(error: Exception, server: str | None) -> str:
    try:
        return str(error.request.url)  # type: ignore[attr-defined]
    except (AttributeError, RuntimeError):  # httpx raises RuntimeError when it has none
        return server or "the provider's endpoint"


def unreachable(error: Exception, role: str, spec: str, server: str | None) -> Exception:
    """Return `error` (one of `UNREACHABLE`) as a `ModelUnreachable` naming role, model, URL."""
    if isinstance(error, ModelUnreachable):
        return error
    return ModelUnreachable(role, spec, _url_of(error, server), error)
