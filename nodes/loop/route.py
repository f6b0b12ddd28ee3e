"""Act on the stop rules' decision (nodes/loop/stopping.py) after each graded round.

The edge after grading sends the next turn of a run that goes on unreviewed; `route`, a node
returning `Command`, does the rest: a person's review, the end (handed to `finalize` as
`ending`), a fork deciding again.
"""

from __future__ import annotations

from typing import Any, Literal

from langgraph.runtime import Runtime
from langgraph.types import Command, Send

from critic_loop.nodes.loop.review import ask_person, review_reason
from critic_loop.nodes.loop.stopping import Decision, GoOn, decide
from critic_loop.nodes.loop.worker_turns import feedback_on, first_turns, next_turns, to_worker
from critic_loop.state.context import Context
from critic_loop.state.loop import LoopState
from critic_loop.state.records import Review, WorkerFeedback


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
    if isinstance(decision, GoOn):
        if decision.action == "candidates":
            return decision, None
        return decision, review_reason(state, context, decision.action == "resample", False)
    stalled, exhausted = decision.outcome == "stalled", decision.outcome == "exhausted"
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
        return Command(goto="finalize", update={**(writes or {}), "ending": decision._asdict()})
    return Command(goto=send_next_turn(state, context, decision), update=writes)
