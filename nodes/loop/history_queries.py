"""How the loop is doing, read from its history: rounds, the best draft, stalls, terminal items.

Pure functions, so the route, the worker and finalize agree, and a resumed or forked thread
reads the same story from its checkpoint.
"""

from __future__ import annotations

from collections.abc import Sequence

from critic_loop.state.context import MAX_ITERATIONS_LIMIT
from critic_loop.state.records import Critique, Draft, DraftRef, Review, rounds_done
from critic_loop.state.verdict import SCORE_TOLERANCE, CriterionResult, Verdict


def latest_round(critiques: Sequence[Critique]) -> list[Critique]:
    """Return the critiques of the latest graded round, in candidate order."""
    last = rounds_done(critiques)
    return sorted((c for c in critiques if c.round == last), key=lambda c: c.candidate)


def best_critique(critiques: Sequence[Critique]) -> Critique | None:
    """Return the best graded critique: a revision that `regressed` never wins.

    Ties go to a grading not cut short, the latest round, `agreement`, the first candidate.
    """

    def rank(c: Critique) -> tuple[bool, int, float, bool, int, int, int]:
        assert c.verdict is not None  # only graded critiques are ranked
        support = c.agreement.support if c.agreement is not None else 1  # 1: not compared
        strength = c.verdict.musts_passed, c.verdict.score
        return c.regressed is None, *strength, c.stopped is None, c.round, support, -c.candidate

    return max((c for c in critiques if c.verdict is not None), key=rank, default=None)


def best_of_round(critiques: Sequence[Critique]) -> Critique | None:
    """Return the best critique of the latest round (ties to the first candidate)."""
    return best_critique(latest_round(critiques))


SHRUNK = 0.4  # a failing revision with less than this share of its base's text lost it


def regression(
    draft: Draft, verdict: Verdict | None, drafts: Sequence[Draft], critiques: Sequence[Critique]
) -> str | None:
    """Say why a failing revision is worse than the draft it revises, or None."""
    base = next((c for c in critiques if c.ref == draft.revises and c.verdict), None)
    if verdict is None or verdict.passed or base is None or base.verdict is None:
        return None
    kept = {r.criterion_id for r in base.verdict.results if r.passed}
    lost = [r.criterion_id for r in verdict.failing if r.criterion_id in kept]
    if lost:
        return "it fails what the draft it revises passed: " + ", ".join(lost)
    length = len(draft_of(drafts, base.ref).text)
    if len(draft.text) < SHRUNK * length:
        return f"it keeps {len(draft.text)} of the {length} characters of the draft it revises"
    return None


def draft_of(drafts: Sequence[Draft], ref: DraftRef) -> Draft:
    """Return the draft `ref` names."""
    return next(draft for draft in drafts if draft.ref == ref)


def normalized(text: str) -> str:
    """Return `text` with runs of whitespace made one space (how repeats are recognized)."""
    return " ".join(text.split())


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


def _overridden(result: CriterionResult, review: Review) -> CriterionResult:
    evidence = f"Overridden by a person: {review.note or 'no reason given'}"
    update = {"passed": bool(review.passed), "skipped": False, "terminal": False}
    return result.model_copy(update={**update, "evidence": evidence})


def with_overrides(critiques: Sequence[Critique], reviews: Sequence[Review]) -> list[Critique]:
    """Return the critiques with every person's override of a criterion's result applied."""
    overrides = [r for r in reviews if r.action == "override" and r.criterion_id is not None]
    if not overrides:
        return list(critiques)
    changed = []
    for critique in critiques:
        decided = {r.criterion_id: r for r in overrides if r.draft == critique.ref}  # last wins
        if critique.verdict is None or not decided:
            changed.append(critique)
            continue
        results = [
            _overridden(result, review) if (review := decided.get(result.criterion_id)) else result
            for result in critique.verdict.results
        ]
        verdict = critique.verdict.model_copy(update={"results": results})
        changed.append(critique.model_copy(update={"verdict": verdict}))
    return changed


def extra_rounds(reviews: Sequence[Review], cap: int) -> int:
    """Return the rounds people granted past the cap by rejecting at it (never past the limit)."""
    granted = sum(1 for review in reviews if review.action == "reject" and review.at_round >= cap)
    return max(0, min(granted, MAX_ITERATIONS_LIMIT - cap))
