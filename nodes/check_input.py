"""Refuse bad input and unusable models before any model is called.

The task and rubric are validated here against `LoopInput` (empty task, empty rubric,
duplicate criterion ids). The node reads them leniently and validates in its body, so a
thread with bad input can still be inspected with `get_state`. The context was validated
when LangGraph built it (iteration cap, model string format). What is left is the
environment: each model's provider must exist and its API key must be set.

The node writes the validated rubric back as plain JSON, so checkpoints hold ordinary data
even when a Python caller passed `Criterion` objects.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypedDict

from langgraph.runtime import Runtime

from nodes.models import load_chat_model
from nodes.runtime import context_of
from state.context import Context
from state.loop import LoopInput


class SubmittedInput(TypedDict, total=False):
    """The caller's input as received, before validation."""

    task: Any
    rubric: Any


def preflight(context: Context) -> None:
    """Raise a clear error if the models or prompts named in `context` cannot be used."""
    models = [
        (context.worker_model, "worker", context.temperature),
        (context.critic_model, "critic", context.critic_temperature),
    ]
    if context.distills:
        models.append((context.distiller_model, "distill", context.critic_temperature))
    for spec, role, temperature in models:
        load_chat_model(spec, role=role, temperature=temperature, base_url=context.base_url)
    if context.prompts_dir is not None and not Path(context.prompts_dir).is_dir():
        raise FileNotFoundError(f"prompts_dir {context.prompts_dir!r} is not a directory")


def check_input(state: SubmittedInput, runtime: Runtime[Context]) -> dict[str, Any]:
    """Validate the run before the first draft.

    Raises:
        pydantic.ValidationError: the task or rubric is unusable.
        ModelSetupError: a model cannot be created (unknown provider, missing API key).
    """
    checked = LoopInput.model_validate(dict(state))
    preflight(context_of(runtime))
    return {"rubric": [criterion.model_dump(mode="json") for criterion in checked.rubric]}
