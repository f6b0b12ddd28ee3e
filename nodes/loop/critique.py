"""The critic: deterministic checks first, then the LLM judge, merged into one verdict.

Its input schema is `CriticView`: the rubric and the drafts, never the task or the
worker's conversation. For the newest draft:

1. every deterministic criterion (word counts, patterns, JSON, Python functions, test
   suites, ...) is checked by code, in rubric order;
2. the LLM judge (one critic model, or a panel) grades only the `llm` criteria, and is
   skipped when there are none, or (by default) when the failed checks already rule out a
   pass this round (a must check failed, or too much weight is lost): its criteria are
   then marked as not graded this round;
3. the results merge into one verdict, one result per criterion in rubric order.

A judge whose answers stay invalid after `Context.critic_attempts` calls ends the run as
`verifier_error`, never as a pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langgraph.runtime import Runtime

from critic_loop.nodes.events import verdict_event
from critic_loop.nodes.loop.feedback import worker_feedback
from critic_loop.nodes.runtime import context_of
from critic_loop.nodes.steps import Steps, dual_node
from critic_loop.nodes.trust import trust_of
from critic_loop.nodes.verifiers.checks import check_call
from critic_loop.nodes.verifiers.judge import judge_steps
from critic_loop.state.context import Context
from critic_loop.state.loop import CriticView
from critic_loop.state.records import Critique, Draft
from critic_loop.state.rubric import CriterionBase
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


def not_graded(criterion: CriterionBase) -> CriterionResult:
    """Mark an `llm` criterion as not graded this round (the judge was skipped)."""
    return CriterionResult(
        criterion_id=criterion.id,
        passed=False,
        skipped=True,
        evidence="Not graded this round: the failed checks already rule out a pass.",
    )


def _recorded(
    critique: Critique, rubric: Sequence[CriterionBase], runtime: Runtime[Context]
) -> dict[str, Any]:
    runtime.stream_writer(verdict_event(critique))
    update: dict[str, Any] = {"critiques": [critique.model_dump(mode="json")]}
    verdict = critique.verdict
    if verdict is not None and not verdict.passed:
        note = worker_feedback(critique.round, verdict, rubric)
        update["feedback"] = [note.model_dump(mode="json")]
    return update


def critique_steps(state: CriticView, runtime: Runtime[Context]) -> Steps[dict[str, Any]]:
    """Grade the newest draft and append the critique (and the worker's feedback)."""
    context = context_of(runtime)
    trust = trust_of(runtime)
    rubric: Sequence[CriterionBase] = state.rubric
    draft = state.drafts[-1]
    threshold = context.pass_threshold
    unusable = unusable_draft_verdict(draft, rubric, threshold)
    if unusable is not None:
        return _recorded(Critique(round=draft.round, verdict=unusable, attempts=0), rubric, runtime)

    results: dict[str, CriterionResult] = {}
    for criterion in rubric:
        if criterion.deterministic:
            outcome: CheckResult = yield check_call(criterion, draft.text, trust)
            evidence = outcome.evidence.strip() or "The check gave no evidence."
            results[criterion.id] = CriterionResult(
                criterion_id=criterion.id, **{**outcome.model_dump(), "evidence": evidence}
            )

    critique = Critique(round=draft.round, attempts=0)
    feedback = ""
    judged = [criterion for criterion in rubric if not criterion.deterministic]
    hopeless = checks_rule_out_a_pass(rubric, results, threshold)
    if judged and hopeless and context.skip_judge_on_failed_check:
        results.update({criterion.id: not_graded(criterion) for criterion in judged})
    elif judged:
        judgement = yield from judge_steps(judged, draft.text, context)
        critique = Critique(
            round=draft.round,
            attempts=judgement.calls,
            rejected=judgement.rejected,
            usage=judgement.usage,
            error=judgement.error,
        )
        if judgement.error is not None:
            return _recorded(critique, rubric, runtime)
        results.update({result.criterion_id: result for result in judgement.results})
        feedback = judgement.feedback

    verdict = Verdict(
        results=[weighed(results[criterion.id], criterion) for criterion in rubric],
        feedback=feedback,
        pass_threshold=threshold,
    )
    return _recorded(critique.model_copy(update={"verdict": verdict}), rubric, runtime)


critique = dual_node(critique_steps)
"""The critique node (sync and async)."""
