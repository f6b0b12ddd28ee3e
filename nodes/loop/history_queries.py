"""How the loop is doing, read from its history: rounds, the best draft, regressions, overrides.

Pure functions, so the route, the worker and finalize agree, and a resumed or forked thread
reads the same story from its checkpoint.
"""

from __future__ import annotations

from collections.abc import Sequence

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


SHRUNK = 0.4  # a failing draft with less than this share of its base's text lost it


def regression(
    draft: Draft,
    verdict: Verdict | None,
    drafts: Sequence[Draft],
    critiques: Sequence[Critique],
    code: bool = False,
) -> str | None:
    """Say why a failing draft is worse than what came before it, or None.

    A revision is worse when it fails what the draft it revises passed, or keeps under 40% of
    its text; any later draft (a fresh sample too) when it keeps under 40% of the run's first
    draft (a refusal, a title, instructions echoed back), unless it is `code` that scores
    better (shorter code can be better code; shorter prose that still fails is not).
    """
    if verdict is None or verdict.passed:
        return None
    # the first draft's critique is in `critiques` from round 2 on: round 1 is never judged so
    first = next((c for c in critiques if c.ref == drafts[0].ref and c.verdict), None)
    length = len(drafts[0].text) if drafts else 0
    if (
        first is not None
        and first.verdict is not None
        and len(draft.text) < SHRUNK * length
        and not (code and verdict.score > first.verdict.score + SCORE_TOLERANCE)
    ):
        return f"it keeps {len(draft.text)} of the {length} characters of the first draft"
    base = next((c for c in critiques if c.ref == draft.revises and c.verdict), None)
    if base is None or base.verdict is None:
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
