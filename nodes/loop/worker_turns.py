"""Choose the worker's next turn: first drafts, a revision of the best draft, or a fresh one.

The worker only ever sees a `WorkerTurn`: the task, the recalled rules (to draft), or
its own drafts with the feedback addressed to it (to revise). This module reads the whole state to
build one, and is the only place that decides what the worker sees:

- round 1: `Context.candidates` first drafts (`candidate_count`: "auto" asks for several
  only when code can choose among them), the first at `temperature`, the others at
  `sample_temperature` so they differ;
- a revision always starts from the best draft so far, never from a worse one; when the
  latest draft scored lower, the turn carries a warning saying what went wrong in it. It
  carries no recalled rule: a rule is a hint the critic gave an earlier run, word for
  word, and a small model shown the same line before its draft and again as a change to
  make answers with the draft it wrote after it the first time (the hints say what to fix);
- fresh samples (after revising stalled, in a batch: `fresh_batch`) get the task, the
  rules and one line on what earlier attempts failed, never their text.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Literal

from langgraph.types import Send

from critic_loop.nodes.loop.history_queries import (
    best_critique,
    best_of_round,
    draft_of,
    normalized,
)
from critic_loop.state.budget import Spent, allowance, spent_on
from critic_loop.state.context import AUTO_CANDIDATES, MAX_CANDIDATES, Context
from critic_loop.state.loop import LoopState, RevisionStep, WorkerTurn
from critic_loop.state.records import Draft, DraftRef, WorkerFeedback, rounds_done
from critic_loop.state.rubric import CriterionBase, Task, TestSuite
from critic_loop.state.rules import RecalledRule

MAX_SUMMARY_CHARACTERS = 300
"""The one-line summary of earlier failures a fresh sample gets is at most this long."""


def code_chooses(rubric: Sequence[CriterionBase]) -> bool:
    """Tell whether code can choose among candidates: a test suite, or checks only."""
    return bool(rubric) and (
        any(isinstance(criterion, TestSuite) for criterion in rubric)
        or all(criterion.deterministic for criterion in rubric)
    )


def candidate_count(context: Context, rubric: Sequence[CriterionBase]) -> int:
    """Return how many first drafts round 1 writes (`Context.candidates`, "auto" resolved)."""
    if context.candidates != "auto":
        return context.candidates
    return AUTO_CANDIDATES if code_chooses(rubric) else 1


def first_turns(
    task: Task,
    rules: Sequence[RecalledRule],
    context: Context,
    rubric: Sequence[CriterionBase] = (),
) -> list[WorkerTurn]:
    """Return round 1's turns: one per candidate (see `candidate_count`).

    No more candidates than the call budget allows; they share the calls it leaves
    (`Allowance.share`).
    """
    left = allowance(Spent(), context)
    count = candidate_count(context, rubric)
    count = count if left.calls is None else min(count, left.calls)
    share = left.share(count)
    return [
        WorkerTurn(
            task=task,
            round=1,
            candidate=number,
            mode="first",
            rules=[rule.text for rule in rules],
            temperature=context.temperature if number == 1 else context.sample_temperature,
            allowance=share,
        )
        for number in range(1, count + 1)
    ]


def feedback_on(feedback: Sequence[WorkerFeedback], ref: DraftRef) -> WorkerFeedback:
    """Return the feedback the worker got on draft `ref` (empty if it passed)."""
    found = next((note for note in reversed(feedback) if note.ref == ref), None)
    return found or WorkerFeedback(round=ref.round, candidate=ref.candidate)


def revision_chain(
    drafts: Sequence[Draft], feedback: Sequence[WorkerFeedback], base: DraftRef, keep: int
) -> list[RevisionStep]:
    """Return the last `keep` drafts of the line of revisions ending at `base`, oldest first."""
    chain: list[RevisionStep] = []
    ref: DraftRef | None = base
    while ref is not None and len(chain) < keep:
        draft = draft_of(drafts, ref)
        chain.append(
            RevisionStep(
                round=draft.round,
                candidate=draft.candidate,
                text=draft.text,
                feedback=feedback_on(feedback, ref),
            )
        )
        ref = draft.revises
    return chain[::-1]


def _notes(note: WorkerFeedback) -> list[str]:
    return [part for part in (note.summary, *note.hints) if part]


def regression_warning(state: LoopState, base: DraftRef) -> str:
    """Say what went wrong in the latest draft when it is worse than `base`, the best."""
    latest = best_of_round(state.critiques)
    if latest is None or latest.ref == base:
        return ""
    notes = _notes(feedback_on(state.feedback, latest.ref))
    told = " ".join(notes) if notes else "it passed fewer checks."
    return (
        f"Your latest version (round {latest.round}) did worse than the version below, "
        f"so revise this one instead. What went wrong in round {latest.round}: {told}"
    )


def failure_summary(feedback: Sequence[WorkerFeedback], best: DraftRef | None) -> str:
    """One line on what earlier attempts failed: the feedback on the best draft so far."""
    if best is None:
        return ""
    notes = list(dict.fromkeys(_notes(feedback_on(feedback, best))))
    line = " ".join(notes)
    if len(line) > MAX_SUMMARY_CHARACTERS:
        line = line[: MAX_SUMMARY_CHARACTERS - 3] + "..."
    return line


def fresh_batch(drafts: Sequence[Draft], context: Context) -> int:
    """Return how many fresh drafts the next fresh-sample round draws (0: none are left).

    `on_stall: resample` draws one. `auto` draws twice the largest fresh round so far
    (round 1's candidates are one) when round 1 drew several candidates, else one, and
    never more than `Context.sample_budget` fresh drafts in all.
    """
    if context.on_stall != "auto":
        return 1
    fresh = Counter(draft.round for draft in drafts if draft.origin != "revision")
    wanted = min(2 * max(fresh.values()), MAX_CANDIDATES) if fresh[1] > 1 else 1
    return max(0, min(wanted, context.sample_budget - fresh.total()))


def next_turns(
    state: LoopState, context: Context, action: Literal["revision", "resample"]
) -> list[WorkerTurn]:
    """Return the worker's turns for the next round: revise the best draft, or start fresh.

    Fresh drafts come in a batch (`fresh_batch`), sharing what the run's budgets leave;
    with no graded draft to revise (the budgets stopped every earlier turn), one starts
    fresh.
    """
    best = best_critique(state.critiques)
    left = allowance(spent_on(state.drafts, state.critiques), context)
    common = {"task": state.task, "round": rounds_done(state.critiques) + 1}
    if action == "revision" and best is not None:
        return [
            WorkerTurn(
                **common,
                mode="revision",
                history=revision_chain(
                    state.drafts, state.feedback, best.ref, context.worker_history_rounds
                ),
                warning=regression_warning(state, best.ref),
                temperature=context.temperature,
                allowance=left,
            )
        ]
    count = fresh_batch(state.drafts, context) if best is not None else 1
    count = max(1, count if left.calls is None else min(count, left.calls))
    earlier = failure_summary(state.feedback, best.ref if best is not None else None)
    return [
        WorkerTurn(
            **common,
            candidate=number,
            mode="resample",
            rules=[rule.text for rule in state.recalled_rules],
            earlier_failures=earlier,
            temperature=context.sample_temperature,
            allowance=left.share(count),
        )
        for number in range(1, count + 1)
    ]


def repeats_draft(turn: WorkerTurn, text: str) -> bool:
    """Tell whether `text` repeats the draft `turn` asks the worker to revise."""
    return turn.revises is not None and normalized(text) == normalized(turn.history[-1].text)


def asked_again(turn: WorkerTurn, context: Context) -> WorkerTurn:
    """Return the turn that replaces a revision whose reply repeated its draft.

    A small model that copies its own last reply copies it again when asked again with
    the draft in view, so the second request is a fresh sample in the same round: the
    task, the rules, and the feedback on the draft as one line, at `sample_temperature`.
    """
    feedback = turn.history[-1].feedback
    return WorkerTurn(
        task=turn.task,
        round=turn.round,
        candidate=turn.candidate,
        mode="resample",
        earlier_failures=failure_summary([feedback], feedback.ref),
        temperature=context.sample_temperature,
        allowance=turn.allowance,
    )


def to_worker(turn: WorkerTurn) -> Send:
    """Send `turn` to the generate node as plain JSON.

    Checkpoints keep pending sends; plain data there loads with any checkpointer's
    serializer (a pydantic object would need critic-loop's), and the node reads it back
    as a `WorkerTurn`.
    """
    return Send("generate", turn.model_dump(mode="json"))
