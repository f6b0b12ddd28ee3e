"""Choose the worker's next turns (`WorkerTurn`): first drafts, a revision, or fresh ones.

A revision shows no recalled rule: a small model shown an earlier hint as a rule and again as
the change to make answers with its draft. Fresh samples get the task, the rules and one line
on what earlier attempts failed, never their text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from langchain_core.messages import BaseMessage
from langgraph.types import Send

from critic_loop.nodes.loop.history_queries import (
    best_critique,
    best_of_round,
    draft_of,
    normalized,
)
from critic_loop.nodes.loop.stopping import candidate_count, fresh_batch, more_candidates
from critic_loop.nodes.verifiers.agreement import thin_evidence
from critic_loop.state.budget import Allowance, Spent, allowance, spent_on
from critic_loop.state.context import Context
from critic_loop.state.loop import LoopState, RevisionStep, WorkerTurn
from critic_loop.state.records import Draft, DraftRef, WorkerFeedback, rounds_done
from critic_loop.state.rubric import CriterionBase, Task
from critic_loop.state.rules import RecalledRule

MAX_SUMMARY_CHARACTERS = 300  # of the line on earlier failures a fresh sample gets


def _side_by_side(
    count: int, left: Allowance, context: Context, first: int = 1, **turn: Any
) -> list[WorkerTurn]:
    count = max(1, count if left.calls is None else min(count, left.calls))
    sampled = context.sample_temperature
    return [
        WorkerTurn(
            **turn,
            candidate=number,
            temperature=context.temperature if (number, turn["mode"]) == (1, "first") else sampled,
            allowance=left.share(count),
        )
        for number in range(first, first + count)
    ]


def first_turns(
    task: Task,
    rules: Sequence[RecalledRule],
    context: Context,
    rubric: Sequence[CriterionBase] = (),
) -> list[WorkerTurn]:
    """Under "auto" the first candidate alone; the others are drawn only if it fails.

    (Most first drafts that pass would have passed alone, and three calls cost twice one.)
    Where the checks of code are thin, a pass is weak evidence: all are drawn at once, so
    the passing ones can be compared on further inputs.
    """
    alone = context.candidates == "auto" and thin_evidence(rubric) is None
    return _side_by_side(
        1 if alone else candidate_count(context, rubric),
        allowance(Spent(), context),
        context,
        task=task,
        round=1,
        mode="first",
        rules=[rule.text for rule in rules],
    )


def feedback_on(feedback: Sequence[WorkerFeedback], ref: DraftRef) -> WorkerFeedback:
    """Return the feedback the worker got on draft `ref` (empty if it passed)."""
    found = next((note for note in reversed(feedback) if note.ref == ref), None)
    return found or WorkerFeedback(round=ref.round, candidate=ref.candidate)


def _revision_chain(
    drafts: Sequence[Draft], feedback: Sequence[WorkerFeedback], base: DraftRef, keep: int
) -> list[RevisionStep]:
    # the last `keep` drafts of the line of revisions ending at `base`, oldest first
    chain: list[RevisionStep] = []
    ref: DraftRef | None = base
    while ref is not None and len(chain) < keep:
        draft = draft_of(drafts, ref)
        shown = draft.model_dump(include={"round", "candidate", "text"})
        chain.append(RevisionStep(**shown, feedback=feedback_on(feedback, ref)))
        ref = draft.revises
    return chain[::-1]


def _notes(note: WorkerFeedback) -> list[str]:
    return [part for part in (note.summary, *note.hints) if part]


def _regression_warning(state: LoopState, base: DraftRef) -> str:
    # what went wrong in the latest draft, when it is worse than `base`, the best
    latest = best_of_round(state.critiques)
    if latest is None or latest.ref == base:
        return ""
    notes = _notes(feedback_on(state.feedback, latest.ref))
    told = " ".join(notes) if notes else "it passed fewer checks."
    return (
        f"Your latest version (round {latest.round}) did worse than the version below, "
        f"so revise this one instead. What went wrong in round {latest.round}: {told}"
    )


def _failure_summary(feedback: Sequence[WorkerFeedback], best: DraftRef | None) -> str:
    # one line on what earlier attempts failed: the feedback on the best draft so far
    if best is None:
        return ""
    line = " ".join(dict.fromkeys(_notes(feedback_on(feedback, best))))  # each note once
    short = len(line) <= MAX_SUMMARY_CHARACTERS
    return line if short else line[: MAX_SUMMARY_CHARACTERS - 3] + "..."


def next_turns(
    state: LoopState, context: Context, action: Literal["candidates", "revision", "resample"]
) -> list[WorkerTurn]:
    """Return round 1's other candidates, a revision of the best draft, or fresh drafts."""
    best = best_critique(state.critiques)
    left = allowance(spent_on(state.drafts, state.critiques), context)
    if action == "candidates":
        return _side_by_side(
            more_candidates(state.critiques, context, state.rubric),
            left,
            context,
            first=len(state.drafts) + 1,
            task=state.task,
            round=1,
            mode="first",
            rules=[rule.text for rule in state.recalled_rules],
        )
    common: dict[str, Any] = {"task": state.task, "round": rounds_done(state.critiques) + 1}
    if action == "revision" and best is not None:
        return [
            WorkerTurn(
                **common,
                mode="revision",
                history=_revision_chain(
                    state.drafts, state.feedback, best.ref, context.worker_history_rounds
                ),
                warning=_regression_warning(state, best.ref),
                temperature=context.temperature,
                allowance=left,
            )
        ]
    return _side_by_side(
        fresh_batch(state.drafts, context) if best is not None else 1,
        left,
        context,
        **common,
        mode="resample",
        rules=[rule.text for rule in state.recalled_rules],
        earlier_failures=_failure_summary(state.feedback, best.ref if best is not None else None),
    )


UNCHANGED = (
    "Your reply repeated this version word for word, so it fails review again. Make the "
    "changes below: a reply without them cannot pass."
)


def asked_again(turn: WorkerTurn, reply: BaseMessage | None, context: Context) -> WorkerTurn | None:
    """Return a sharper revision when `reply` repeats the draft `turn` revises.

    (Told so, with only that draft and its hints in view, at the sampling temperature: the
    hint may name the fix, which a fresh sample would not keep.)
    """
    if reply is None or turn.revises is None:
        return None
    if normalized(reply.text) != normalized(turn.history[-1].text):
        return None
    update = {"history": turn.history[-1:], "warning": UNCHANGED}
    return turn.model_copy(update={**update, "temperature": context.sample_temperature})


def to_worker(turn: WorkerTurn) -> Send:
    """Send `turn` to generate as plain JSON: pending sends are checkpointed, by any serializer."""
    return Send("generate", turn.model_dump(mode="json"))
