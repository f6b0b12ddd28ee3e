"""The critic: a fresh model call that grades the newest draft against the rubric.

Its input schema is `CriticView`: the rubric and the drafts, never the task or the
worker's conversation. Its answer is pinned to the verdict schema with structured output
and then checked against the rubric (every criterion graded once, evidence given, the
overall claim consistent). An answer that fails those checks is retried, up to
`Context.critic_attempts` calls; after that the critique records the error and the run
ends as `verifier_error`, never as a pass.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from nodes.events import verdict_event
from nodes.feedback import worker_feedback
from nodes.models import load_chat_model, with_json_output
from nodes.prompts import render_prompt
from nodes.runtime import context_of
from nodes.steps import Steps, dual_node
from nodes.structured import ask_until_valid, parse_answer
from state.context import Context
from state.loop import CriticView
from state.records import Critique
from state.rubric import Criterion
from state.verdict import (
    CriterionResult,
    CriticReport,
    Verdict,
    check_report,
    critic_output_schema,
)


def critic_prompt(
    rubric: Sequence[Criterion], artifact: str, context: Context, rejection: str | None
) -> list[BaseMessage]:
    """Build the critic's prompt: the rubric and the artifact, fenced by a fresh random marker."""
    ids = ", ".join(criterion.id for criterion in rubric)
    messages: list[BaseMessage] = [
        SystemMessage(render_prompt("critic_system.jinja", context.prompts_dir)),
        HumanMessage(
            render_prompt(
                "critic_grade.jinja",
                context.prompts_dir,
                rubric=rubric,
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


def accept_answer(answer: dict[str, Any], rubric: Sequence[Criterion]) -> Verdict:
    """Turn the critic's structured answer into a verdict, or raise `InvalidAnswer`."""
    return check_report(parse_answer(answer, CriticReport), rubric)


def empty_draft_verdict(rubric: Sequence[Criterion]) -> Verdict:
    """Fail every criterion of an empty draft, without asking the critic."""
    return Verdict(
        results=[
            CriterionResult(
                criterion_id=criterion.id,
                evidence="The draft is empty.",
                passed=False,
                hint="Write the artifact the task asks for.",
            )
            for criterion in rubric
        ],
        feedback="Your reply was empty. Reply with the complete artifact.",
    )


def _recorded(
    critique: Critique, rubric: Sequence[Criterion], runtime: Runtime[Context]
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
    draft = state.drafts[-1]
    if not draft.text.strip():
        empty = Critique(round=draft.round, verdict=empty_draft_verdict(state.rubric), attempts=0)
        return _recorded(empty, state.rubric, runtime)
    critic = with_json_output(
        load_chat_model(
            context.critic_model,
            role="critic",
            temperature=context.critic_temperature,
            base_url=context.base_url,
        ),
        context.critic_model,
        critic_output_schema(),
        context.structured_output_method,
    )
    attempts = yield from ask_until_valid(
        critic,
        lambda problem: critic_prompt(state.rubric, draft.text, context, problem),
        lambda answer: accept_answer(answer, state.rubric),
        context.critic_attempts,
    )
    if attempts.value is not None:
        critique = Critique(
            round=draft.round,
            verdict=attempts.value,
            attempts=attempts.calls,
            rejected=attempts.rejected,
            usage=attempts.usage,
        )
    else:
        critique = Critique(
            round=draft.round,
            error=(
                f"no acceptable verdict after {attempts.calls} critic call(s); "
                f"last problem: {attempts.rejected[-1]}"
            ),
            attempts=attempts.calls,
            rejected=attempts.rejected,
            usage=attempts.usage,
        )
    return _recorded(critique, state.rubric, runtime)


critique = dual_node(critique_steps)
"""The critique node (sync and async)."""
