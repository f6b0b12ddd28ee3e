"""Read the run's `Context` from the LangGraph runtime."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from critic_loop.state.context import Context, as_context


def context_of(runtime: Runtime[Any]) -> Context:
    """Return the run's context, or the defaults (with env overrides) when none was given."""
    return as_context(runtime.context)
