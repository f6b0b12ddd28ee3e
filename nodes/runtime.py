"""Read the run's `Context` from the LangGraph runtime, held to the operator's policy."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from critic_loop.nodes.trust import check_context, trust_of
from critic_loop.state.context import Context, as_context


def context_of(runtime: Runtime[Any]) -> Context:
    """Return the run's context, or the defaults (with env overrides) when none was given.

    Raises:
        TrustViolation: a client chose a server or a directory the operator did not allow
            (see `critic_loop.nodes.trust`).
    """
    return check_context(as_context(runtime.context), trust_of(runtime))
