"""Decide, from the history alone, whether the loop goes on, how, and how it ends.

`decide` is a pure function of the drafts, critiques and context (no counter to drift);
`finalize` calls it again. The edge after grading sends the next turn of a run that goes on
unreviewed; `route`, a node returning `Command`, decides the rest (reviews, ends, forks).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, NamedTuple

from langgraph.runtime import Runtime
from langgraph.types import Command, Send

from critic_loop.nodes.loop.history_queries import (
    attainable,
    best_of_round,
    confirmed_terminal,
    extra_rounds,
    latest_round,
    stall_reason,
    with_overrides,
)
from critic_loop.nodes.loop.review import ask_person, review_reason
from critic_loop.nodes.loop.worker_turns import (
    disputed,
    feedback_on,
    first_turns,
    fresh_batch,
    more_candidates,
    next_turns,
    to_worker,
)
from critic_loop.nodes.verifiers.agreement import thin_evidence
from critic_loop.state.budget import exhausted, spent_on
from critic_loop.state.context import Context
from critic_loop.state.loop import LoopState
from critic_loop.state.records import Critique, Draft, Outcome, Review, WorkerFeedback, rounds_done
from critic_loop.state.rubric import CriterionBase
from critic_loop.state.verdict import first_line


class Decision(NamedTuple):
    """How a run ends, and why (for `exhausted`, which limit it reached)."""

    outcome: Outcome
    reason: str
    exhausted_by: str | None = None


class GoOn(NamedTuple):
    """The loop goes on: round 1's other candidates, a revision, or fresh drafts (and why)."""

    action: Literal["candidates", "revision", "resample"]
    reason: str = ""


def decide(
    critiques: Sequence[Critique],
    drafts: Sequence[Draft],
    context: Context,
    reviews: Sequence[Review] = (),
    rubric: Sequence[CriterionBase] = (),
) -> Decision | GoOn:
    """Return how the run ends after this history (and people's reviews), or how it goes on."""
    critiques = with_overrides(critiques, reviews)
    latest = latest_round(critiques)
    if not latest:
        return GoOn("revision")
    rounds = rounds_done(critiques)
    decided = next((r for r in reviews if r.at_round == rounds and r.action != "override"), None)
    if decided is not None:
        return _by_a_person(decided)
    failed = next((c for c in latest if c.verdict is None and c.stopped is None), None)
    if failed is not None:
        return Decision("verifier_error", failed.error or "the verifier failed")
    best = best_of_round(critiques)  # None when the budgets stopped the round's every turn
    verdict = best.verdict if best is not None else None
    threshold = context.pass_threshold
    if verdict is not None and verdict.passes(threshold):
        assert best is not None
        if disputed(critiques) and more_candidates(critiques, context, rubric):
            return GoOn("candidates", "the passing candidates behave differently")
        return Decision(
            "passed",
            f"every must criterion passed and the weighted score {verdict.score:.2f} "
            f"reached {threshold:.2f}{thin_pass_note(best, rubric)}",
        )
    lost = confirmed_terminal(critiques)
    if verdict is not None and lost and not attainable(verdict, set(lost), threshold):
        return Decision(
            "infeasible",
            "; ".join(
                f"{cid} cannot be met: {first_line(evidence)}" for cid, evidence in lost.items()
            ),
        )
    more = more_candidates(critiques, context, rubric)  # round 1 is not over yet
    if not more and rounds >= context.max_iterations + extra_rounds(
        reviews, context.max_iterations
    ):
        return Decision(
            "exhausted",
            f"{rounds} round(s) reached max_iterations without a pass",
            "max_iterations",
        )
    ran_out = exhausted(spent_on(drafts, critiques), context)
    if ran_out is not None:
        return Decision("exhausted", f"{ran_out.reason}, without a pass", ran_out.budget)
    if more:
        return GoOn("candidates", "the first draft failed")
    stalled = stall_reason(critiques, drafts, context.stall_rounds)
    if stalled is None:
        return GoOn("revision")
    if stall_action(context, drafts) == "stop":
        return Decision("stalled", stalled)
    return GoOn("resample", stalled)


def thin_pass_note(best: Critique, rubric: Sequence[CriterionBase]) -> str:
    """Say, for a pass, when the checks of code are thin and what the loop added to them."""
    why = thin_evidence(rubric)
    if why is None:
        return ""
    added = best.agreement.describe() if best.agreement else "no other candidate passed with it."
    return f"; the checks of code are thin ({why}): {added}"


def stall_action(context: Context, drafts: Sequence[Draft]) -> Literal["stop", "resample"]:
    """Return what a stall does: `Context.on_stall`; auto resamples while `fresh_batch` can."""
    if context.on_stall != "auto":
        return context.on_stall
    return "resample" if fresh_batch(drafts, context) else "stop"


def _by_a_person(review: Review) -> Decision | GoOn:
    where = f"round {review.draft.round}"
    if review.action == "accept":
        return Decision(
            "accepted", f"a person accepted the draft of {where} ({review.asked_because})"
        )
    if review.action == "stop":
        return Decision("cancelled", f"a person stopped the run ({review.asked_because})")
    return GoOn("revision", f"a person asked for changes to the draft of {where}")


def _feedback_after(state: LoopState, review: Review) -> list[WorkerFeedback]:
    # what a person's rejection tells the worker: their words, then the critic's hints
    if review.action != "reject":
        return []
    hints = feedback_on(state.feedback, review.draft).hints
    return [WorkerFeedback(**review.draft.model_dump(), summary=review.feedback, hints=hints)]


def send_next_turn(state: LoopState, context: Context, how: GoOn) -> Send | list[Send]:
    """Return the worker's next turn (a batch of fresh samples: a list), to send to generate."""
    sends = [to_worker(turn) for turn in next_turns(state, context, how.action)]
    return sends[0] if len(sends) == 1 else sends


def first_round(state: LoopState, runtime: Runtime[Context]) -> list[Send]:
    """Send the worker round 1's turns: one per candidate, side by side."""
    turns = first_turns(state.task, state.recalled_rules, runtime.context, state.rubric)
    return [to_worker(turn) for turn in turns]


def _after_grading(state: LoopState, context: Context) -> tuple[Decision | GoOn, str | None]:
    # the decision, and why a person is asked before it takes effect (None: nobody is)
    decision = decide(state.critiques, state.drafts, context, state.reviews, state.rubric)
    kind = decision[0]  # how it goes on (GoOn.action) or ends (Decision.outcome)
    if kind == "candidates":
        return decision, None
    stalled, exhausted = kind in {"resample", "stalled"}, kind == "exhausted"
    return decision, review_reason(state, context, stalled, exhausted)


def next_turn_or_route(
    state: LoopState, runtime: Runtime[Context]
) -> Send | list[Send] | Literal["route"]:
    """After grading: send the worker its next turn when the run goes on unreviewed, else route.

    An edge, so a round that goes on is two steps, as in the minimal loop; `route` is a node
    for what needs one: a person's review (`interrupt`), the end, a fork deciding again.
    """
    decision, reason = _after_grading(state, runtime.context)
    if isinstance(decision, GoOn) and reason is None:
        return send_next_turn(state, runtime.context, decision)
    return "route"


def route(state: LoopState, runtime: Runtime[Context]) -> Command[Literal["generate", "finalize"]]:
    """Choose the next step after critique (worker or finalize), asking a person first if set."""
    context = runtime.context
    decision, reason = _after_grading(state, context)
    review = ask_person(state, reason) if reason is not None else None
    writes: dict[str, list[Any]] | None = None
    if review is not None:
        told = _feedback_after(state, review)
        state = state.model_copy(
            update={"reviews": [*state.reviews, review], "feedback": [*state.feedback, *told]}
        )
        writes = {
            "reviews": [review.model_dump(mode="json")],
            "feedback": [note.model_dump(mode="json") for note in told],
        }
        decision = decide(state.critiques, state.drafts, context, state.reviews, state.rubric)
    if isinstance(decision, Decision):
        return Command(goto="finalize", update=writes)
    return Command(goto=send_next_turn(state, context, decision), update=writes)
