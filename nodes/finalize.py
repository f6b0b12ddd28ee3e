"""Declare how the run ended and pick the artifact it returns."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langgraph.runtime import Runtime

from nodes.route import decide_outcome
from nodes.runtime import context_of
from state.context import Context
from state.loop import LoopState
from state.records import Critique, Draft, OpenItem
from state.rubric import CriterionBase


def best_critique(critiques: Sequence[Critique]) -> Critique | None:
    """Return the critique whose draft scored highest (ties go to the latest), if any."""
    graded = [critique for critique in critiques if critique.verdict is not None]
    if not graded:
        return None
    return max(graded, key=lambda c: (c.verdict.score if c.verdict else 0.0, c.round))


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


def finalize(state: LoopState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Set `outcome`, `final`, `final_round` and `open_items`."""
    outcome = decide_outcome(state.critiques, context_of(runtime))
    if outcome is None:
        raise RuntimeError("finalize reached while the loop should still be revising")
    chosen = best_critique(state.critiques)
    draft = _draft_of(state.drafts, chosen.round) if chosen else state.drafts[-1]
    return {
        "outcome": outcome,
        "final": draft.text,
        "final_round": draft.round,
        "open_items": [item.model_dump(mode="json") for item in open_items(chosen, state.rubric)],
    }
