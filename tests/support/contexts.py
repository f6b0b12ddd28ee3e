"""Contexts for runs whose models are the scripted ones registered by the `models` fixture."""

from typing import Any

from critic_loop.state.context import Context


def scripted_context(**overrides: Any) -> Context:
    """Worker "scripted:worker", critic "scripted:critic", memory off, one candidate.

    One candidate (rather than "auto", which drafts several for rubrics code can decide)
    keeps the number of worker calls a script must hold the same for every rubric.
    """
    settings: dict[str, Any] = {
        "worker_model": "scripted:worker",
        "critic_model": "scripted:critic",
        "memory": False,
        "candidates": 1,
    }
    return Context(**{**settings, **overrides})
