"""Read the run's `Context` from the LangGraph runtime."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from state.context import Context


def context_of(runtime: Runtime[Any]) -> Context:
    """Return the run's context, or the defaults (with env overrides) when none was given."""
    context = runtime.context
    if context is None:
        return Context()
    if isinstance(context, Context):
        return context
    if isinstance(context, dict):
        return Context(**context)
    raise TypeError(f"expected a critic-loop Context, got {type(context).__name__}")
