"""The LLM judge: the critic model (or a panel of them) grades the rubric's `llm` criteria.

A single judge is asked with bounded retries until its answer is a valid verdict for the
criteria it was given: all the `llm` criteria at once, or one per call with
`Context.judge_granularity="criterion"`. A panel (`Context.critic_models`,
`Context.critic_samples`) asks every judge side by side; each criterion's result is the
majority vote (a tie fails), the evidence and hint come from a judge in the majority, and
every judge's vote is recorded in the result. A judge that gives no valid answer abstains;
if all abstain, the critique records a verifier error.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from critic_loop.nodes.models.structured import (
    Attempts,
    ask_until_valid,
    parse_answer,
    structured_model,
)
from critic_loop.nodes.prompts import render_prompt
from critic_loop.nodes.steps import Steps, gather, subroutine
from critic_loop.nodes.verifiers.grounding import grounded, ungrounded_passes
from critic_loop.state.context import Context
from critic_loop.state.records import TokenUsage
from critic_loop.state.rubric import CriterionBase
from critic_loop.state.verdict import (
    CriterionResult,
    CriticReport,
    InvalidVerdict,
    check_report,
    critic_output_schema,
)

Graded = tuple[list[CriterionResult], str]
"""One judge's accepted answer: a result per criterion, and its note to the worker."""


@dataclass(frozen=True)
class Judge:
    """One member of the panel: a model, and a label that tells repeated samples apart."""

    label: str
    spec: str


@dataclass
class Judgement:
    """The panel's combined answer, or why there is none."""

    results: list[CriterionResult] = field(default_factory=list)
    feedback: str = ""
    calls: int = 0
    rejected: list[str] = field(default_factory=list)
    usage: TokenUsage = field(default_factory=TokenUsage)
    error: str | None = None


def panel(context: Context) -> list[Judge]:
    """Return the judges: each critic model (default: `critic_model`), `critic_samples` times."""
    models = context.critic_models or [context.critic_model]
    judges = []
    for position, spec in enumerate(models, start=1):
        name = spec if models.count(spec) == 1 else f"{spec}@{position}"
        for sample in range(1, context.critic_samples + 1):
            label = name if context.critic_samples == 1 else f"{name}#{sample}"
            judges.append(Judge(label, spec))
    return judges


def judge_prompt(
    criteria: Sequence[CriterionBase], artifact: str, context: Context, rejection: str | None
) -> list[BaseMessage]:
    """Build a judge's prompt: the criteria and the artifact, fenced by a fresh random marker."""
    ids = ", ".join(criterion.id for criterion in criteria)
    messages: list[BaseMessage] = [
        SystemMessage(render_prompt("critic_system.jinja", context.prompts_dir)),
        HumanMessage(
            render_prompt(
                "critic_grade.jinja",
                context.prompts_dir,
                rubric=criteria,
                artifact=artifact,
                fence=secrets.token_hex(8),
                ids=ids,
            )
        ),
    ]
    if rejection is not None:
        messages.append(
            HumanMessage(
                render_prompt(
                    "critic_retry.jinja", context.prompts_dir, problems=rejection, ids=ids
                )
            )
        )
    return messages


UNVERIFIED_PASS = (
    "Not met: the judge passed this without quoting the draft, so the pass could not be checked."
)
"""The evidence of a pass the judge could not ground, counted as a failure."""


def accept_answer(
    answer: dict[str, Any],
    criteria: Sequence[CriterionBase],
    artifact: str,
    unverified: Literal["reject", "fail"] = "reject",
) -> Graded:
    """Turn a judge's structured answer into results for `criteria`, or raise `InvalidAnswer`.

    Besides the report's own consistency (`check_report`), every pass must quote the
    artifact (`grounding`): a pass whose evidence restates the criterion is rejected, or,
    with `unverified="fail"` (the judge's last attempt), counted as not met. A pass no one
    can check is never a pass, and one weak judgement does not end the run.
    """
    report = parse_answer(answer, CriticReport)
    results = check_report(report, criteria)
    ungrounded = ungrounded_passes(
        [(result.criterion_id, result.evidence) for result in results if result.passed], artifact
    )
    if ungrounded and unverified == "reject":
        raise InvalidVerdict(ungrounded)
    if ungrounded:
        results = [
            result
            if not result.passed or grounded(result.evidence, artifact)
            else result.model_copy(
                update={
                    "passed": False,
                    "evidence": UNVERIFIED_PASS,
                    "hint": "",
                }
            )
            for result in results
        ]
    return results, report.feedback


def _ask(
    judge: Judge, criteria: Sequence[CriterionBase], artifact: str, context: Context
) -> Steps[Attempts[Graded]]:
    model = structured_model(
        judge.spec,
        role="critic",
        schema=critic_output_schema(),
        method=context.structured_output_method,
        context=context,
    )
    attempts = yield from ask_until_valid(
        model,
        lambda problem: judge_prompt(criteria, artifact, context, problem),
        lambda answer: accept_answer(answer, criteria, artifact),
        context.critic_attempts,
        accept_last=lambda answer: accept_answer(answer, criteria, artifact, unverified="fail"),
    )
    return attempts


def _majority(graded: list[tuple[Judge, Graded]], count: int) -> Graded:
    results = []
    for index in range(count):
        votes = {judge.label: answer[0][index].passed for judge, answer in graded}
        passed = 2 * sum(votes.values()) > len(votes)
        terminal = not passed and 2 * sum(a[0][index].terminal for _, a in graded) > len(graded)
        representative = next(
            answer[0][index]
            for _, answer in graded
            if answer[0][index].passed == passed and (answer[0][index].terminal or not terminal)
        )
        results.append(
            representative.model_copy(
                update={"passed": passed, "votes": votes, "terminal": terminal}
            )
        )
    agreement = [
        sum(mine.passed == final.passed for mine, final in zip(answer[0], results, strict=True))
        for _, answer in graded
    ]
    feedback = graded[agreement.index(max(agreement))][1][1]
    return results, feedback


def judge_steps(
    criteria: Sequence[CriterionBase], artifact: str, context: Context
) -> Steps[Judgement]:
    """Grade the `llm` criteria with the critic model, or with the panel.

    With `judge_granularity="criterion"`, each criterion is graded in a call of its own
    (side by side under async) and the answers are merged.
    """
    if context.judge_granularity == "rubric" or len(criteria) == 1:
        return (yield from _judge_together(criteria, artifact, context))
    parts: list[Judgement] = yield gather(
        [subroutine(partial(_judge_together, [one], artifact, context)) for one in criteria]
    )
    merged = Judgement(
        calls=sum(part.calls for part in parts),
        usage=sum((part.usage for part in parts), TokenUsage()),
        rejected=[problem for part in parts for problem in part.rejected],
        error=next((part.error for part in parts if part.error is not None), None),
    )
    if merged.error is None:
        merged.results = [result for part in parts for result in part.results]
        merged.feedback = " ".join(part.feedback for part in parts if part.feedback.strip())
    return merged


def _judge_together(
    criteria: Sequence[CriterionBase], artifact: str, context: Context
) -> Steps[Judgement]:
    judges = panel(context)
    if len(judges) == 1:
        outcomes = [(yield from _ask(judges[0], criteria, artifact, context))]
    else:
        asks = [subroutine(partial(_ask, judge, criteria, artifact, context)) for judge in judges]
        outcomes = yield gather(asks)
    judgement = Judgement(
        calls=sum(outcome.calls for outcome in outcomes),
        usage=sum((outcome.usage for outcome in outcomes), TokenUsage()),
        rejected=[
            problem if len(judges) == 1 else f"{judge.label}: {problem}"
            for judge, outcome in zip(judges, outcomes, strict=True)
            for problem in outcome.rejected
        ],
    )
    graded = [
        (judge, outcome.value)
        for judge, outcome in zip(judges, outcomes, strict=True)
        if outcome.value is not None
    ]
    if not graded:
        judgement.error = (
            f"no acceptable verdict after {judgement.calls} critic call(s); "
            f"last problem: {judgement.rejected[-1]}"
        )
        return judgement
    if len(judges) == 1:
        judgement.results, judgement.feedback = graded[0][1]
    else:
        judgement.results, judgement.feedback = _majority(graded, len(criteria))
    return judgement
