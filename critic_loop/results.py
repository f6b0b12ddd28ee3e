"""Read a finished run's result, and raise instead when the caller asked for that."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from critic_loop.state.context import Context, as_context
from critic_loop.state.loop import LoopState
from critic_loop.state.records import SUCCESSFUL_OUTCOMES, OpenItem


class LoopDidNotPass(RuntimeError):
    """A run ended without a pass; the best draft and what it still fails come with it."""

    def __init__(self, state: LoopState) -> None:
        self.state = state
        self.outcome = state.outcome
        self.final = state.final
        self.final_round = state.final_round
        self.open_items: list[OpenItem] = state.open_items
        failing = ", ".join(item.criterion_id for item in state.open_items) or "none"
        self.reason = state.outcome_reason
        self.exhausted_by = state.exhausted_by
        super().__init__(
            f"critic-loop ended '{state.outcome}' after {state.rounds} round(s) without a "
            f"pass ({state.outcome_reason}); the best draft (round {state.final_round}) still "
            f"fails: {failing}"
        )


class LoopExhausted(LoopDidNotPass):
    """The iteration cap or a run budget was reached without a pass (`exhausted_by`)."""


class LoopStalled(LoopDidNotPass):
    """The critic kept failing the same criteria, or the score stopped improving."""


class VerifierFailed(LoopDidNotPass):
    """The critic's answer could not be accepted as a verdict, even after retries."""


class LoopInfeasible(LoopDidNotPass):
    """A criterion no revision can meet made a pass impossible."""


class LoopCancelled(LoopDidNotPass):
    """A person reviewing the run stopped it."""


_EXCEPTIONS: dict[str, type[LoopDidNotPass]] = {
    "cancelled": LoopCancelled,
    "exhausted": LoopExhausted,
    "stalled": LoopStalled,
    "verifier_error": VerifierFailed,
    "infeasible": LoopInfeasible,
}


def result_of(
    values: LoopState | Mapping[str, Any], context: Context | Mapping[str, Any] | None = None
) -> LoopState:
    """Return the typed final state of a run; raise if it did not pass and the context says to.

    Raises:
        LoopExhausted, LoopStalled, VerifierFailed: the run did not pass and
            `on_exhausted` is "raise".
        RuntimeError: the run has not finished (it was interrupted or is still going).
    """
    state = values if isinstance(values, LoopState) else LoopState.model_validate(dict(values))
    if state.outcome is None:
        raise RuntimeError("the run has not finished: it has no outcome yet")
    if state.outcome not in SUCCESSFUL_OUTCOMES and as_context(context).on_exhausted == "raise":
        raise _EXCEPTIONS.get(state.outcome, LoopDidNotPass)(state)
    return state
