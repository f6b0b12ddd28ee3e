"""Contexts for runs whose models are the scripted ones registered by the `models` fixture."""

from typing import Any

from critic_loop.state.context import Context


def scripted_context(**overrides: Any) -> Context:
    """Worker "scripted:worker", critic "scripted:critic", memory off, unless overridden."""
    settings: dict[str, Any] = {
        "worker_model": "scripted:worker",
        "critic_model": "scripted:critic",
        "memory": False,
    }
    return Context(**{**settings, **overrides})
