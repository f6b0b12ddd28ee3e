"""Declare how the run ended and pick the artifact it returns."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Command

from critic_loop.nodes.loop.route import decide_outcome
from critic_loop.nodes.runtime import context_of
from critic_loop.state.context import Context
from critic_loop.state.loop import LoopState
from critic_loop.state.records import Critique, Draft, OpenItem
from critic_loop.state.rubric import CriterionBase


def strength(critique: Critique) -> tuple[int, float, int]:
    """Rank a graded draft: most must criteria passed, then weighted score, then latest."""
    verdict = critique.verdict
    if verdict is None:
        return -1, -1.0, critique.round
    return verdict.musts_passed, verdict.score, critique.round


def best_critique(critiques: Sequence[Critique]) -> Critique | None:
    """Return the critique of the best draft (see `strength`), if any draft was graded."""
    graded = [critique for critique in critiques if critique.verdict is not None]
    return max(graded, key=strength) if graded else None


def open_items(critique: Critique | None, rubric: Sequence[CriterionBase]) -> list[OpenItem]:
    """List the criteria the chosen draft fails; every criterion if it was never graded."""
    text = {criterion.id: criterion.describe() for criterion in rubric}
    if critique is None or critique.verdict is None:
        return [
            OpenItem(
                criterion_id=criterion.id,
                text=criterion.describe(),
                evidence="Not graded: the verifier gave no acceptable verdict.",
                hint="",
            )
            for criterion in rubric
        ]
    return [
        OpenItem(
            criterion_id=result.criterion_id,
            text=text[result.criterion_id],
            evidence=result.evidence,
            hint=result.hint,
        )
        for result in critique.verdict.unmet
    ]


def _draft_of(drafts: Sequence[Draft], round_number: int) -> Draft:
    return next(draft for draft in drafts if draft.round == round_number)


def finalize(
    state: LoopState, runtime: Runtime[Context]
) -> Command[Literal["record_rule_usage", "generate"]]:
    """Set `outcome`, `outcome_reason`, `final`, `final_round` and `open_items`.

    A thread paused or crashed just before finalize, and resumed with settings that allow
    more rounds (a larger `max_iterations`, say), goes back to revising instead.
    """
    decision = decide_outcome(state.critiques, context_of(runtime))
    if decision is None:
        return Command(goto="generate")
    chosen = best_critique(state.critiques)
    draft = _draft_of(state.drafts, chosen.round) if chosen else state.drafts[-1]
    update = {
        "outcome": decision.outcome,
        "outcome_reason": decision.reason,
        "final": draft.text,
        "final_round": draft.round,
        "open_items": [item.model_dump(mode="json") for item in open_items(chosen, state.rubric)],
    }
    return Command(goto="record_rule_usage", update=update)
