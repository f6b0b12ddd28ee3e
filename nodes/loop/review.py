"""A person in the loop: pause the run, show the best draft and its verdict, take a decision.

With `Context.review` set, the route `interrupt`s the run for a person to accept, reject with
feedback, override a criterion or stop (`ACTIONS`); an unusable answer is asked again, saying why.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langgraph.types import interrupt
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from critic_loop.nodes.loop.history_queries import best_critique, draft_of
from critic_loop.state.context import Context
from critic_loop.state.loop import LoopState
from critic_loop.state.records import Critique, Review, ReviewAction, rounds_done

ACTIONS = {  # the answers a person can give, as the review request explains them
    "accept": 'end the run with this draft: {"action": "accept"}',
    "reject": 'have the worker revise it: {"action": "reject", "feedback": "what to change"}',
    "override": (
        'replace one criterion\'s result: {"action": "override", "criterion_id": "...", '
        '"passed": true, "note": "why"}'
    ),
    "stop": 'stop the run: {"action": "stop"}',
}


class ReviewAnswer(BaseModel):
    """A person's answer to a review request."""

    model_config = ConfigDict(extra="forbid")

    action: ReviewAction
    feedback: str = Field(default="", max_length=4000)
    criterion_id: str | None = None
    passed: bool | None = None
    note: str = Field(default="", max_length=2000)


def review_reason(state: LoopState, context: Context, stalled: bool, exhausted: bool) -> str | None:
    """Say why the run asks for review now, or None if it does not."""
    latest = rounds_done(state.critiques)
    if context.review == "never" or any(r.at_round == latest for r in state.reviews):
        return None
    if context.review == "every_round":
        return f"round {latest} was graded"
    if context.review == "on_stall" and stalled:
        return "revising has stalled"
    if context.review == "on_exhausted" and exhausted:
        return f"the round cap ({context.max_iterations}) was reached"
    return None


def _review_request(
    state: LoopState, reviewed: Critique, reason: str, problem: str | None
) -> dict[str, Any]:
    draft = draft_of(state.drafts, reviewed.ref)
    verdict = reviewed.verdict
    return {
        "review": reason,
        "round": draft.round,
        "candidate": draft.candidate,
        "draft": draft.text,
        "score": verdict.score if verdict else None,
        "passed": verdict.passed if verdict else False,
        "criteria": [
            {"id": r.criterion_id, **r.model_dump(include={"passed", "evidence", "hint"})}
            for r in (verdict.results if verdict else [])
        ],
        "actions": ACTIONS,
        "problem": problem,
    }


def _checked_answer(answer: Any, criterion_ids: Sequence[str]) -> ReviewAnswer:
    try:
        parsed = ReviewAnswer.model_validate(answer)
    except ValidationError as error:
        fields = ", ".join(".".join(map(str, e["loc"])) or "(answer)" for e in error.errors())
        raise ValueError(f"the answer is not one of the actions (check: {fields})") from None
    if parsed.action == "reject" and not parsed.feedback.strip():
        raise ValueError("a reject needs feedback: say what the worker should change")
    if parsed.action == "override" and (
        parsed.criterion_id not in criterion_ids or parsed.passed is None
    ):
        wanted = f"criterion_id (one of: {', '.join(criterion_ids)}) and passed (true or false)"
        raise ValueError(f"an override needs {wanted}")
    return parsed


def ask_person(state: LoopState, reason: str) -> Review | None:
    """Pause the run for a person's decision on the best draft so far (None: none graded)."""
    reviewed = best_critique(state.critiques)
    if reviewed is None:
        return None
    ids = [criterion.id for criterion in state.rubric]
    problem: str | None = None
    while True:
        answer = interrupt(_review_request(state, reviewed, reason, problem))
        try:
            decided = _checked_answer(answer, ids)
        except ValueError as error:
            problem = str(error)
            continue
        return Review(
            at_round=rounds_done(state.critiques),
            draft=reviewed.ref,
            asked_because=reason,
            **decided.model_dump(),
        )
