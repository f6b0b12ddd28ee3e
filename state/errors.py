"""Errors the graph raises that a caller can act on, importable without a graph or model."""

from __future__ import annotations

from collections.abc import Sequence

from critic_loop.sandbox import IsolationUnavailable as IsolationUnavailable


class InvalidInput(ValueError):
    """A run's task or rubric cannot be used; the message says what to fix, one line each."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


class ThreadFinished(RuntimeError):
    """The thread already holds a finished run; use a new thread id, or fork it."""


class ModelSetupError(ValueError):
    """A model named in the context cannot be created (unknown provider, missing key, ...)."""


class MissingApiKey(ModelSetupError):
    """A hosted model was chosen but its provider's API key is not set."""


class MissingDependency(LookupError):
    """A criterion needs an optional package that is not installed."""


class TrustViolation(ValueError):
    """A client asked for something only the operator may choose (a server, a file, code)."""


class CeilingExceeded(TrustViolation):
    """A client asked for more than the operator's ceiling of a count or limit."""


class DiscoveryFailed(ModelSetupError):
    """A model server was named but could not say which model it serves."""
