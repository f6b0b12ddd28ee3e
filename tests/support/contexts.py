"""Contexts for runs whose models are the scripted ones registered by the `models` fixture."""

from typing import Any, get_args

from critic_loop.state.context import Context
from critic_loop.state.operator_settings import CONTEXT_CEILINGS


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


def largest(name: str) -> Any:
    """The largest value `Context` itself accepts for the field `name` (its `le`)."""
    field = Context.model_fields[name]
    rules = [*field.metadata]
    for argument in get_args(field.annotation):  # Annotated[int, Field(le=...)] | "auto"
        for part in get_args(argument)[1:]:
            rules += getattr(part, "metadata", [part])
    return next(rule.le for rule in rules if getattr(rule, "le", None) is not None)


def context_maxima() -> dict[str, Any]:
    """Every capped `Context` field at the largest value `Context` itself accepts."""
    maxima: dict[str, Any] = {"critic_models": ["openai:stub"] * 7}
    for name in CONTEXT_CEILINGS:
        if name != "critic_models":
            maxima[name] = largest(name)
    return maxima
