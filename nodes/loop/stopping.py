"""When the loop stops, and how it goes on: the stop rules, in the order they are asked.

`decide` asks each rule of `RULES` in turn; the first that answers decides: a `Decision` ends
the run, a `GoOn` says how it goes on. A run no rule stops is revised. Every rule reads the
history alone (drafts, critiques, people's reviews, the context): no counter to drift, so a
resumed or forked thread decides as the run did. The edge after grading and the `route` node
call `decide`; `finalize` ends the run as `route` decided.

A new rule is a function here and its place in `RULES`; a new outcome is its `Outcome`
literal (state/records.py) and the rule that returns it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Literal, NamedTuple

from critic_loop.nodes.loop.history_queries import (
    best_critique,
    best_of_round,
    latest_round,
    with_overrides,
)
from critic_loop.nodes.verifiers.agreement import thin_evidence
from critic_loop.state.budget import exhausted, spent_on
from critic_loop.state.context import AUTO_CANDIDATES, MAX_CANDIDATES, MAX_ITERATIONS_LIMIT, Context
from critic_loop.state.records import Critique, Draft, Outcome, Review, rounds_done
from critic_loop.state.rubric import CriterionBase, TestSuite
from critic_loop.state.verdict import SCORE_TOLERANCE, Verdict, first_line


class Decision(NamedTuple):
    """How a run ends, and why (for `exhausted`, which limit it reached)."""

    outcome: Outcome
    reason: str
    exhausted_by: str | None = None


class GoOn(NamedTuple):
    """The loop goes on: round 1's other candidates, a revision, or fresh drafts (and why)."""

    action: Literal["candidates", "revision", "resample"]
    reason: str = ""


@dataclass(frozen=True)
class History:
    """What the rules read: the run so far, with people's overrides applied."""

    critiques: Sequence[Critique]
    drafts: Sequence[Draft]
    context: Context
    reviews: Sequence[Review] = ()
    rubric: Sequence[CriterionBase] = ()

    @cached_property
    def rounds(self) -> int:
        """The rounds graded so far."""
        return rounds_done(self.critiques)

    @cached_property
    def best(self) -> Critique | None:
        """The latest round's best critique (None when the budgets stopped its every turn)."""
        return best_of_round(self.critiques)

    @cached_property
    def verdict(self) -> Verdict | None:
        """The verdict of the latest round's best draft."""
        return self.best.verdict if self.best is not None else None

    @cached_property
    def more(self) -> int:
        """How many of round 1's candidates are still to draw."""
        return more_candidates(self.critiques, self.context, self.rubric)


Rule = Callable[[History], Decision | GoOn | None]
"""A stop rule: how the run ends or goes on after this history, or None to ask the next."""


def not_graded_yet(history: History) -> GoOn | None:
    """Draft first when nothing is graded yet."""
    return None if latest_round(history.critiques) else GoOn("revision")


def decided_by_a_person(history: History) -> Decision | GoOn | None:
    """Follow a person's review at this round: accept, stop, or ask for changes."""
    review = next(
        (r for r in history.reviews if r.at_round == history.rounds and r.action != "override"),
        None,
    )
    if review is None:
        return None
    where = f"round {review.draft.round}"
    if review.action == "accept":
        return Decision(
            "accepted", f"a person accepted the draft of {where} ({review.asked_because})"
        )
    if review.action == "stop":
        return Decision("cancelled", f"a person stopped the run ({review.asked_because})")
    return GoOn("revision", f"a person asked for changes to the draft of {where}")


def verifier_failed(history: History) -> Decision | None:
    """End as `verifier_error` when a draft of the latest round got no verdict."""
    latest = latest_round(history.critiques)
    failed = next((c for c in latest if c.verdict is None and c.stopped is None), None)
    if failed is None:
        return None
    return Decision("verifier_error", failed.error or "the verifier failed")


def passed(history: History) -> Decision | GoOn | None:
    """End as passed when the best draft passes, unless round 1's passing ones disagree."""
    threshold = history.context.pass_threshold
    if history.best is None or history.verdict is None or not history.verdict.passes(threshold):
        return None
    if disputed(history.critiques) and history.more:
        return GoOn("candidates", "the passing candidates behave differently")
    return Decision(
        "passed",
        f"every must criterion passed and the weighted score {history.verdict.score:.2f} "
        f"reached {threshold:.2f}{thin_pass_note(history.best, history.rubric)}",
    )


def infeasible(history: History) -> Decision | None:
    """End as infeasible when criteria confirmed impossible leave no way to pass."""
    lost = confirmed_terminal(history.critiques)
    verdict, threshold = history.verdict, history.context.pass_threshold
    if verdict is None or not lost or attainable(verdict, set(lost), threshold):
        return None
    why = (f"{cid} cannot be met: {first_line(evidence)}" for cid, evidence in lost.items())
    return Decision("infeasible", "; ".join(why))


def out_of_rounds(history: History) -> Decision | None:
    """End as exhausted at the round cap (and the rounds people granted past it)."""
    cap = history.context.max_iterations
    if history.more or history.rounds < cap + extra_rounds(history.reviews, cap):
        return None
    why = f"{history.rounds} round(s) reached max_iterations without a pass"
    return Decision("exhausted", why, "max_iterations")


def out_of_budget(history: History) -> Decision | None:
    """End as exhausted when a call, token or time budget ran out."""
    ran_out = exhausted(spent_on(history.drafts, history.critiques), history.context)
    if ran_out is None:
        return None
    return Decision("exhausted", f"{ran_out.reason}, without a pass", ran_out.budget)


def round_one_not_over(history: History) -> GoOn | None:
    """Draw round 1's other candidates when its first draft failed."""
    return GoOn("candidates", "the first draft failed") if history.more else None


def stalled(history: History) -> Decision | GoOn | None:
    """When revising stopped helping, draw fresh drafts while the budget lasts, else stop."""
    why = stall_reason(history.critiques, history.drafts, history.context.stall_rounds)
    if why is None:
        return None
    if stall_action(history.context, history.drafts) == "stop":
        return Decision("stalled", why)
    return GoOn("resample", why)


RULES: tuple[Rule, ...] = (
    not_graded_yet,
    decided_by_a_person,
    verifier_failed,
    passed,
    infeasible,
    out_of_rounds,
    out_of_budget,
    round_one_not_over,
    stalled,
)
"""The stop rules, in the order they are asked."""


def decide(
    critiques: Sequence[Critique],
    drafts: Sequence[Draft],
    context: Context,
    reviews: Sequence[Review] = (),
    rubric: Sequence[CriterionBase] = (),
) -> Decision | GoOn:
    """Return how the run ends after this history (and people's reviews), or how it goes on."""
    history = History(with_overrides(critiques, reviews), drafts, context, reviews, rubric)
    for rule in RULES:
        if (decided := rule(history)) is not None:
            return decided
    return GoOn("revision")


def thin_pass_note(best: Critique, rubric: Sequence[CriterionBase]) -> str:
    """Say, for a pass, when the checks of code are thin and what the loop added to them."""
    why = thin_evidence(rubric)
    if why is None:
        return ""
    added = best.agreement.describe() if best.agreement else "no other candidate passed with it."
    return f"; the checks of code are thin ({why}): {added}"


# --- what the rules read -----------------------------------------------------------------

TIE_BREAKS = 2  # more candidates round 1 may draw while its passing ones disagree


def candidate_count(context: Context, rubric: Sequence[CriterionBase]) -> int:
    """Resolve "auto": several only when code can choose among them (a test suite, or checks)."""
    if context.candidates != "auto":
        return context.candidates
    code_chooses = any(isinstance(criterion, TestSuite) for criterion in rubric) or all(
        criterion.deterministic for criterion in rubric
    )
    return AUTO_CANDIDATES if rubric and code_chooses else 1


def disputed(critiques: Sequence[Critique]) -> bool:
    """Tell whether the latest round's passing candidates split with no largest behaviour."""
    supports = [
        c.agreement.support
        for c in latest_round(critiques)
        if c.agreement is not None and c.verdict is not None and c.verdict.passed
    ]
    return bool(supports) and supports.count(max(supports)) > max(supports)


def more_candidates(
    critiques: Sequence[Critique], context: Context, rubric: Sequence[CriterionBase]
) -> int:
    """Return how many of round 1's candidates are still to draw (0 once a later round began).

    Under "auto", passing candidates that disagree get one more at a time, `TIE_BREAKS` at most.
    """
    if any(critique.round > 1 for critique in critiques):
        return 0
    count = candidate_count(context, rubric)
    if context.candidates == "auto" and len(critiques) >= count and disputed(critiques):
        return int(len(critiques) < count + TIE_BREAKS)
    return max(0, count - len(critiques))


def fresh_batch(drafts: Sequence[Draft], context: Context) -> int:
    """`auto` doubles the largest fresh round when round 1 drew several, within `sample_budget`."""
    if context.on_stall != "auto":
        return 1
    fresh = Counter(draft.round for draft in drafts if draft.origin != "revision")
    wanted = min(2 * max(fresh.values()), MAX_CANDIDATES) if fresh[1] > 1 else 1
    return max(0, min(wanted, context.sample_budget - fresh.total()))


def stall_action(context: Context, drafts: Sequence[Draft]) -> Literal["stop", "resample"]:
    """Return what a stall does: `Context.on_stall`; auto resamples while `fresh_batch` can."""
    if context.on_stall != "auto":
        return context.on_stall
    return "resample" if fresh_batch(drafts, context) else "stop"


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
    return max(verdict.score for verdict in verdicts[-window:]) <= best_before + SCORE_TOLERANCE


def stall_reason(critiques: Sequence[Critique], drafts: Sequence[Draft], window: int) -> str | None:
    """Say why revising has stalled, or None (the rounds counted since the last fresh sample)."""
    latest = latest_round(critiques)
    repeats = [c for c in latest if c.duplicate_of is not None]
    if latest and len(repeats) == len(latest):
        earlier = repeats[0].duplicate_of
        assert earlier is not None
        return f"round {latest[0].round} repeated the draft of round {earlier.round} word for word"
    fresh_start = max((d.round for d in drafts if d.origin == "resample"), default=1)
    numbers = range(fresh_start, rounds_done(critiques) + 1)
    bests = (best_critique([c for c in critiques if c.round == n]) for n in numbers)
    verdicts = [best.verdict for best in bests if best is not None and best.verdict is not None]
    if repeated_failures(verdicts, window):
        failing = ", ".join(sorted(verdicts[-1].failing_ids))
        return f"the same criteria failed {window} times in a row: {failing}"
    if no_score_gain(verdicts, window):
        best = max(verdict.score for verdict in verdicts[:-window])
        return f"no score gain in {window} rounds over the best so far ({best:.2f})"
    return None


def confirmed_terminal(critiques: Sequence[Critique]) -> dict[str, str]:
    """Return the criteria that can never pass (id -> evidence), as far as it is confirmed.

    A single LLM judge can be wrong about that, so its terminal call counts in two rounds only.
    """
    confirmed: dict[str, str] = {}
    rounds: dict[str, set[int]] = {}
    for critique in critiques:
        for result in critique.verdict.terminal if critique.verdict is not None else []:
            seen = rounds.setdefault(result.criterion_id, set())
            seen.add(critique.round)
            panel = result.votes is not None and len(result.votes) > 1
            if result.source == "check" or panel or len(seen) >= 2:
                confirmed.setdefault(result.criterion_id, result.evidence)
    return confirmed


def attainable(verdict: Verdict, lost: set[str], threshold: float) -> bool:
    """Tell whether some revision could still pass when the criteria `lost` never can."""
    results = verdict.results
    if any(r.severity == "must" for r in results if r.criterion_id in lost):
        return False
    total = sum(r.weight for r in results)
    reachable = total - sum(r.weight for r in results if r.criterion_id in lost)
    return (reachable / total if total else 0.0) >= threshold - SCORE_TOLERANCE


def extra_rounds(reviews: Sequence[Review], cap: int) -> int:
    """Return the rounds people granted past the cap by rejecting at it (never past the limit)."""
    granted = sum(1 for review in reviews if review.action == "reject" and review.at_round >= cap)
    return max(0, min(granted, MAX_ITERATIONS_LIMIT - cap))
