"""The critic: deterministic checks first, then the LLM judge, merged into one verdict each.

Its input schema is `CriticView`: the rubric, the drafts and the critiques so far, never
the task or the worker's conversation. It grades every draft of the newest round (round 1
may hold several candidates):

1. a draft that repeats an earlier one word for word (whitespace aside) is not graded
   again: it gets that draft's verdict, marked as a repeat (a stall signal);
2. every deterministic criterion (word counts, patterns, JSON, Python functions, test
   suites, ...) is checked by code, in rubric order, on every other draft;
   With `Context.lint_checks`, a judged criterion the rubric linter can decide exactly
   (`rubric_lint.decided_by_code`) is checked by code here too, not judged;
3. the LLM judge (one critic model, or a panel) grades only the `llm` criteria, and only
   for the candidates the checks leave in contention (the best on the checks), so N
   candidates do not cost N judge calls when the checks decide. It is skipped when there
   are no `llm` criteria, or (by default) when the failed checks already rule out a pass
   (a must check failed, or too much weight is lost); its criteria are then marked as
   not graded this round;
4. the results merge into one verdict per draft, one result per criterion in rubric order;
5. when several candidates of the round passed and the rubric has a test suite, the
   candidates are run on further inputs varied from the suite's examples and grouped by
   behaviour (`critic_loop.nodes.verifiers.agreement`): each compared critique records how
   many candidates behaved like it, and the test result's evidence says so. That ranks
   the passing drafts among themselves (`progress.best_critique`); no verdict changes.

A judge whose answers stay invalid after `Context.critic_attempts` calls ends the run as
`verifier_error`, never as a pass. Judge calls are held to the run's budgets: when they
run out mid-round, the rest of the round's `llm` criteria are not graded (`stopped`),
and the route ends the run as `exhausted`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from functools import partial
from typing import Any

from langgraph.runtime import Runtime

from critic_loop.nodes.events import verdict_event
from critic_loop.nodes.loop.feedback import worker_feedback
from critic_loop.nodes.loop.history_queries import normalized
from critic_loop.nodes.models.ledger import Ledger
from critic_loop.nodes.operator_policy import Trust, context_of, runnable_suite, trust_of
from critic_loop.nodes.steps import Call, Steps, StepsNode, gather, subroutine
from critic_loop.nodes.verifiers.agreement import Grouping, behaviour_groups
from critic_loop.nodes.verifiers.checks import check_call
from critic_loop.nodes.verifiers.judge import judge_steps
from critic_loop.nodes.verifiers.rubric_lint import decided_by_code
from critic_loop.state.budget import allowance, spent_on
from critic_loop.state.context import Context
from critic_loop.state.loop import CriticView
from critic_loop.state.records import Agreement, Critique, Draft, DraftRef, TokenUsage
from critic_loop.state.rubric import CriterionBase, TestSuite
from critic_loop.state.verdict import CheckResult, CriterionResult, Verdict


def weighed(result: CriterionResult, criterion: CriterionBase) -> CriterionResult:
    """Give a result its criterion's severity and weight, so the verdict is self-contained."""
    return result.model_copy(update={"severity": criterion.severity, "weight": criterion.weight})


def unusable_draft_verdict(
    draft: Draft, rubric: Sequence[CriterionBase], threshold: float
) -> Verdict | None:
    """Fail every criterion of an empty or oversized draft, without checks or the judge.

    Returns None when the draft can be graded.
    """
    if draft.full_length is not None:
        limit = len(draft.text)
        evidence = f"The draft has {draft.full_length} characters; the most allowed is {limit}."
        hint = f"Write a complete artifact of fewer than {limit} characters."
    elif not draft.text.strip():
        evidence, hint = "The draft is empty.", "Write the artifact the task asks for."
    else:
        return None
    return Verdict(
        results=[
            weighed(
                CriterionResult(criterion_id=c.id, evidence=evidence, passed=False, hint=hint), c
            )
            for c in rubric
        ],
        feedback=f"{evidence} Reply with the complete artifact.",
        pass_threshold=threshold,
    )


def checks_rule_out_a_pass(
    rubric: Sequence[CriterionBase], checked: dict[str, CriterionResult], threshold: float
) -> bool:
    """Tell whether the failed checks alone already rule out a pass this round."""
    hopeful = Verdict(
        results=[
            weighed(
                checked.get(criterion.id)
                or CriterionResult(criterion_id=criterion.id, passed=True, evidence="-"),
                criterion,
            )
            for criterion in rubric
        ],
        pass_threshold=threshold,
    )
    return not hopeful.passed


def not_graded(criterion: CriterionBase, why: str) -> CriterionResult:
    """Mark an `llm` criterion as not graded this round (the judge was skipped)."""
    evidence = f"Not graded this round: {why}"
    return CriterionResult(criterion_id=criterion.id, passed=False, skipped=True, evidence=evidence)


def repeat_of(draft: Draft, earlier: Sequence[tuple[Draft, Critique]]) -> Critique | None:
    """Return the critique of an earlier graded draft that `draft` repeats, if any."""
    text = normalized(draft.text)
    return next(
        (c for d, c in earlier if c.verdict is not None and normalized(d.text) == text), None
    )


def as_repeat(original: Critique, draft: Draft) -> Critique:
    """Return `original`'s verdict as the critique of `draft`, which repeats its draft."""
    return original.model_copy(
        update={
            "round": draft.round,
            "candidate": draft.candidate,
            "duplicate_of": original.ref,
            "attempts": 0,
            "rejected": [],
            "usage": TokenUsage(),
            "stopped": None,
        }
    )


def check_results(
    rubric: Sequence[CriterionBase], draft: Draft, trust: Trust
) -> Steps[dict[str, CriterionResult]]:
    """Run every deterministic criterion on `draft`, in rubric order."""
    results: dict[str, CriterionResult] = {}
    for criterion in rubric:
        if criterion.deterministic:
            outcome: CheckResult = yield check_call(criterion, draft.text, trust)
            evidence = outcome.evidence.strip() or "The check gave no evidence."
            results[criterion.id] = CriterionResult(
                criterion_id=criterion.id,
                **{**outcome.model_dump(), "evidence": evidence},
                source="check",
            )
    return results


def check_strength(
    rubric: Sequence[CriterionBase], checked: dict[str, CriterionResult]
) -> tuple[int, float]:
    """Rank a draft by its checks alone: must checks passed, then their weighted share."""
    weights = {criterion.id: criterion for criterion in rubric}
    musts = sum(r.passed for cid, r in checked.items() if weights[cid].severity == "must")
    total = sum(weights[cid].weight for cid in checked) or 1.0
    return musts, sum(weights[cid].weight for cid, r in checked.items() if r.passed) / total


def _recorded(
    critique: Critique, rubric: Sequence[CriterionBase], runtime: Runtime[Context]
) -> dict[str, Any]:
    runtime.stream_writer(verdict_event(critique))
    update: dict[str, Any] = {"critiques": [critique.model_dump(mode="json")], "feedback": []}
    verdict = critique.verdict
    if verdict is not None and not verdict.passed and critique.stopped is None:
        note = worker_feedback(critique.round, critique.candidate, verdict, rubric)
        update["feedback"] = [note.model_dump(mode="json")]
    return update


def _merged(updates: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return {
        "critiques": [c for update in updates for c in update["critiques"]],
        "feedback": [f for update in updates for f in update["feedback"]],
    }


def _judged(
    draft: Draft,
    rubric: Sequence[CriterionBase],
    checked: dict[str, CriterionResult],
    context: Context,
    ledger: Ledger,
) -> Steps[Critique]:
    """Have the judge grade the `llm` criteria of `draft`, and merge with its checks.

    When the run's budgets stop the judge, the `llm` criteria are not graded this round
    (the calls made are still recorded).
    """
    judged = [criterion for criterion in rubric if not criterion.deterministic]
    judgement = yield from judge_steps(judged, draft.text, context, ledger)
    critique = Critique(
        round=draft.round,
        candidate=draft.candidate,
        attempts=judgement.calls,
        rejected=judgement.rejected,
        usage=judgement.usage,
        error=judgement.error,
        stopped=judgement.stopped,
    )
    if judgement.stopped is not None:
        why = f"{judgement.stopped}."
        unjudged = _without_judge(draft, rubric, checked, context, why)
        return critique.model_copy(update={"verdict": unjudged.verdict})
    if judgement.error is not None:
        return critique
    results = {**checked, **{result.criterion_id: result for result in judgement.results}}
    verdict = Verdict(
        results=[weighed(results[criterion.id], criterion) for criterion in rubric],
        feedback=judgement.feedback,
        pass_threshold=context.pass_threshold,
    )
    return critique.model_copy(update={"verdict": verdict})


def _without_judge(
    draft: Draft,
    rubric: Sequence[CriterionBase],
    checked: dict[str, CriterionResult],
    context: Context,
    why: str,
) -> Critique:
    results = {
        **checked,
        **{c.id: not_graded(c, why) for c in rubric if not c.deterministic},
    }
    verdict = Verdict(
        results=[weighed(results[criterion.id], criterion) for criterion in rubric],
        pass_threshold=context.pass_threshold,
    )
    return Critique(round=draft.round, candidate=draft.candidate, attempts=0, verdict=verdict)


def grouping_call(suite: TestSuite, drafts: Sequence[Draft], trust: Trust) -> Call[Grouping | None]:
    """Describe grouping `drafts` by behaviour on `suite`'s further inputs.

    The suite is read and held to the operator's ceilings first (`runnable_suite`); each
    comparison then runs as the `tests` criterion does for `trust` (sandbox, ceilings,
    test slot).
    """
    texts = [draft.text for draft in drafts]

    async def asynchronous() -> Grouping | None:
        inline = await asyncio.to_thread(runnable_suite, suite, trust)
        return await behaviour_groups(inline, texts, trust).asynchronous()

    def sync() -> Grouping | None:
        return behaviour_groups(runnable_suite(suite, trust), texts, trust).sync()

    return Call(sync, asynchronous)


def with_agreement(critique: Critique, suite: TestSuite, agreement: Agreement) -> Critique:
    """Return `critique` with its agreement recorded and told in the suite's evidence."""
    verdict = critique.verdict
    assert verdict is not None
    results = [
        result.model_copy(update={"evidence": f"{result.evidence}\n{agreement.describe()}"})
        if result.criterion_id == suite.id
        else result
        for result in verdict.results
    ]
    update = {"verdict": verdict.model_copy(update={"results": results}), "agreement": agreement}
    return critique.model_copy(update=update)


def agreement_steps(
    done: list[Critique],
    drafts: dict[DraftRef, Draft],
    rubric: Sequence[CriterionBase],
    trust: Trust,
) -> Steps[list[Critique]]:
    """Record the agreement of a round's candidates when several passed (module doc, 5)."""
    suite = next((c for c in rubric if isinstance(c, TestSuite)), None)
    compared = [c for c in done if c.verdict is not None and c.ref in drafts]
    if suite is None or sum(c.verdict.passed for c in compared if c.verdict) < 2:
        return done
    grouping: Grouping | None = yield grouping_call(suite, [drafts[c.ref] for c in compared], trust)
    if grouping is None:
        return done
    agreements = {
        critique.ref: Agreement(
            probes=grouping.probes, support=grouping.support(index), candidates=len(compared)
        )
        for index, critique in enumerate(compared)
    }
    return [with_agreement(c, suite, agreements[c.ref]) if c.ref in agreements else c for c in done]


HOPELESS = "the failed checks already rule out a pass."
BEHIND = "another candidate did better on the checks."


def stopped_critique(draft: Draft) -> Critique:
    """Record a draft the worker never wrote (the budgets stopped its turn): nothing to grade."""
    return Critique(round=draft.round, candidate=draft.candidate, attempts=0, stopped=draft.stopped)


def critique_steps(state: CriticView, runtime: Runtime[Context]) -> Steps[dict[str, Any]]:
    """Grade every draft of the newest round and append the critiques (and feedback).

    Judge calls are held to what the run's budgets leave (derived from the history).
    """
    context = context_of(runtime)
    ledger = Ledger(allowance(spent_on(state.drafts, state.critiques), context))
    trust = trust_of(runtime)
    rubric: Sequence[CriterionBase] = state.rubric
    if context.lint_checks:  # judged criteria code can decide are checked by code
        rubric = decided_by_code(rubric)
    threshold = context.pass_threshold
    graded = {critique.ref for critique in state.critiques}
    history = [(d, c) for c in state.critiques for d in state.drafts if d.ref == c.ref]
    pending = sorted(
        (d for d in state.drafts if d.ref not in graded), key=lambda d: (d.round, d.candidate)
    )
    done: list[Critique] = []
    checked: dict[DraftRef, dict[str, CriterionResult]] = {}
    same_as: dict[DraftRef, DraftRef] = {}  # a candidate repeating another of its round
    first_with: dict[str, DraftRef] = {}
    for draft in pending:
        if draft.stopped is not None:
            done.append(stopped_critique(draft))
            continue
        unusable = unusable_draft_verdict(draft, rubric, threshold)
        if unusable is not None:
            done.append(
                Critique(round=draft.round, candidate=draft.candidate, verdict=unusable, attempts=0)
            )
            continue
        repeated = repeat_of(draft, history)
        if repeated is not None:
            done.append(as_repeat(repeated, draft))
            continue
        text = normalized(draft.text)
        if text in first_with:
            same_as[draft.ref] = first_with[text]
            continue
        first_with[text] = draft.ref
        checked[draft.ref] = yield from check_results(rubric, draft, trust)

    drafts = {draft.ref: draft for draft in pending}
    has_llm = any(not criterion.deterministic for criterion in rubric)
    leading = max((check_strength(rubric, r) for r in checked.values()), default=(0, 0.0))
    to_judge = []
    for ref, results in checked.items():
        if not has_llm:
            done.append(_without_judge(drafts[ref], rubric, results, context, HOPELESS))
        elif check_strength(rubric, results) < leading:
            done.append(_without_judge(drafts[ref], rubric, results, context, BEHIND))
        elif context.skip_judge_on_failed_check and checks_rule_out_a_pass(
            rubric, results, threshold
        ):
            done.append(_without_judge(drafts[ref], rubric, results, context, HOPELESS))
        else:
            to_judge.append(ref)
    if len(to_judge) == 1:
        ref = to_judge[0]
        done.append((yield from _judged(drafts[ref], rubric, checked[ref], context, ledger)))
    elif to_judge:
        done += yield gather(
            [
                subroutine(partial(_judged, drafts[ref], rubric, checked[ref], context, ledger))
                for ref in to_judge
            ]
        )
    graded_here = {ref: drafts[ref] for ref in checked}
    done = yield from agreement_steps(done, graded_here, rubric, trust)
    by_ref = {critique.ref: critique for critique in done}
    done += [as_repeat(by_ref[first], drafts[ref]) for ref, first in same_as.items()]
    done.sort(key=lambda critique: (critique.round, critique.candidate))
    seconds = ledger.seconds
    return _merged(
        [
            _recorded(critique.model_copy(update={"seconds": seconds}), rubric, runtime)
            for critique in done
        ]
    )


critique = StepsNode(critique_steps)
"""The critique node (sync and async)."""
