"""The front door of a run: its input validated and its context settled once, before the graph.

The command line, `run_loop`, `arun_loop`, `fork_loop` and the server's run admission call
`admit_run`; the `check_input` node calls it again for input sent straight to the graph. What
it needs beyond the input's schemas is imported once the input is valid: a mistake in the
input is answered without loading a graph or a model library.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from critic_loop.state.context import Context, as_context
from critic_loop.state.rubric import CriterionBase, dump_rubric
from critic_loop.state.run_input import ItemLabel, default_label, validated_input

if TYPE_CHECKING:
    from critic_loop.nodes.operator_policy import Trust


@dataclass(frozen=True)
class AdmittedRun:
    """A run's input and context, as the front door let them in."""

    input: dict[str, Any] | None
    """The graph's input, plain JSON (callables as references); None: no input was given."""
    rubric: list[CriterionBase]
    """The input's criteria, validated (none without input)."""
    context: Context
    """Held to the operator's policy; its models found, unless `preflighted` was False."""


def admit_run(
    data: Any,
    context: Context | Mapping[str, Any] | Callable[[], Context] | None,
    trust: Trust | None = None,
    label: ItemLabel = default_label,
    *,
    preflighted: bool = True,
) -> AdmittedRun:
    """Validate a run's task and rubric (`data`), hold its context to the policy, preflight.

    `trust` is the run's (default: the operator's). `context` may be a function that makes it,
    called once the input is valid (the command line's may start a model server). `label`
    names rubric items as their author wrote them. Without `preflighted` (a server admitting
    a run, whose assistant completes its context), no model is looked up or made.

    Raises:
        InvalidInput: the task or rubric is unusable (one line per problem).
        TrustViolation, pydantic.ValidationError: the context is refused, or invalid.
        ModelSetupError and the rest of `preflight`'s: a model, check or prompt is unusable.
    """

    def policed(given: Any) -> Context:
        from critic_loop.nodes.operator_policy import OPERATOR, check_context

        return check_context(as_context(given), trust or OPERATOR)

    # what a client may not ask is refused first; a context a function makes waits for input
    admitted = None if callable(context) else policed(context)
    checked = None if data is None else validated_input(data, label)
    rubric = [] if checked is None else list(checked.rubric)
    admitted = admitted or policed(context() if callable(context) else context)
    if preflighted:
        from critic_loop.nodes.loop.check_input import preflight
        from critic_loop.nodes.models.discovery import with_available_models
        from critic_loop.nodes.operator_policy import OPERATOR

        admitted = with_available_models(admitted)
        if checked is not None:
            preflight(admitted, rubric, trust or OPERATOR)
    plain = None if checked is None else {"task": checked.task, "rubric": dump_rubric(rubric)}
    return AdmittedRun(plain, rubric, admitted)
