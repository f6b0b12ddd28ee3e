"""Decide, from the history alone, whether the loop goes on and how it ends.

`decide_outcome` and `route` are pure functions of the critiques and the context: the
number of rounds is the number of critiques, so there is no counter to drift from the
history. `finalize` calls `decide_outcome` again rather than trusting a stored flag.

`route` is a node that returns `Command(goto=...)` rather than a conditional edge. An
edge's decision is taken when the critique step ends and is frozen into that checkpoint;
as a step of its own, the decision is taken with the context of the run that executes it.
That is what makes time travel right: a thread forked after round N with a larger (or
smaller) `max_iterations`, or resumed with other settings, routes by the new settings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NamedTuple

from langgraph.runtime import Runtime
from langgraph.types import Command

from critic_loop.nodes.runtime import context_of
from critic_loop.state.context import Context
from critic_loop.state.loop import LoopState
from critic_loop.state.records import Critique, Outcome
from critic_loop.state.verdict import Verdict, first_line


def repeated_failures(verdicts: Sequence[Verdict], window: int) -> bool:
    """Tell whether the last `window` verdicts all failed exactly the same criteria."""
    if len(verdicts) < window:
        return False
    recent = verdicts[-window:]
    failing = recent[-1].failing_ids
    return bool(failing) and all(verdict.failing_ids == failing for verdict in recent)


def no_score_gain(verdicts: Sequence[Verdict], window: int) -> bool:
    """Tell whether the last `window` verdicts scored no higher than the best before them."""
    if len(verdicts) <= window:
        return False
    best_before = max(verdict.score for verdict in verdicts[:-window])
    return max(verdict.score for verdict in verdicts[-window:]) <= best_before


class Decision(NamedTuple):
    """How a run ends, and why."""

    outcome: Outcome
    reason: str


def decide_outcome(critiques: Sequence[Critique], context: Context) -> Decision | None:
    """Return how the run ends after these critiques, or None to keep revising."""
    if not critiques:
        return None
    latest = critiques[-1].verdict
    if latest is None:
        return Decision("verifier_error", critiques[-1].error or "the verifier failed")
    threshold = context.pass_threshold
    if latest.passes(threshold):
        return Decision(
            "passed",
            f"every must criterion passed and the weighted score {latest.score:.2f} "
            f"reached {threshold:.2f}",
        )
    if not latest.attainable(threshold):
        return Decision(
            "infeasible",
            "; ".join(
                f"{result.criterion_id} cannot be met: {first_line(result.evidence)}"
                for result in latest.terminal
            ),
        )
    if len(critiques) >= context.max_iterations:
        return Decision(
            "exhausted", f"{len(critiques)} round(s) reached max_iterations without a pass"
        )
    verdicts = [critique.verdict for critique in critiques if critique.verdict is not None]
    window = context.stall_rounds
    if repeated_failures(verdicts, window):
        failing = ", ".join(sorted(latest.failing_ids))
        return Decision("stalled", f"the same criteria failed {window} rounds in a row: {failing}")
    if no_score_gain(verdicts, window):
        best = max(verdict.score for verdict in verdicts[:-window])
        return Decision(
            "stalled", f"no score gain in {window} rounds over the best so far ({best:.2f})"
        )
    return None


def route(state: LoopState, runtime: Runtime[Context]) -> Command[Literal["generate", "finalize"]]:
    """Choose the next node after critique: generate (revise again) or finalize."""
    if decide_outcome(state.critiques, context_of(runtime)) is None:
        return Command(goto="generate")
    return Command(goto="finalize")
