"""Refuse bad input and unusable models before any model is called.

The graph's boundary: the task and rubric are validated here (`LoopInput`), read leniently
so that a thread with bad input can still be inspected, and written back as plain JSON.
Then the environment: each model's provider and key, the checks' code and files, the
sandbox. Its events describe each `tests` criterion's sandbox ("sandbox") and name the
judged criteria that code could decide ("lint", `rubric_lint`).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from typing import Any, TypedDict

from langgraph.runtime import Runtime
from pydantic import ValidationError

from critic_loop.nodes.events import lint_event, sandbox_event
from critic_loop.nodes.models.loading import grading_model, worker_model
from critic_loop.nodes.operator_policy import OPERATOR, Trust, check_rubric, trust_of
from critic_loop.nodes.prompts import load_prompts
from critic_loop.nodes.verifiers.checks.test_suite import memory_plan, sandbox_for
from critic_loop.nodes.verifiers.judge import panel
from critic_loop.nodes.verifiers.rubric_lint import lint_rubric
from critic_loop.sandbox import isolation as sandbox
from critic_loop.state.context import Context
from critic_loop.state.errors import InvalidInput, MissingDependency
from critic_loop.state.extras import missing_extra_message
from critic_loop.state.input_errors import ItemLabel, default_label, describe_input_errors
from critic_loop.state.loop import LoopInput
from critic_loop.state.rubric import CriterionBase, TestSuite, dump_rubric


class SubmittedInput(TypedDict, total=False):
    """The caller's input as received, before validation."""

    task: Any
    rubric: Any


def preflight(context: Context, rubric: Sequence[CriterionBase], trust: Trust = OPERATOR) -> None:
    """Raise a clear error if the models, checks or prompts of a run cannot be used.

    The worker's model, then what the critic needs (`grading_preflight`). The distiller is
    not checked: memory never costs a run, so a distiller that cannot be created is
    recorded in `memory_errors` when the run completes.
    """
    worker_model(context, context.temperature)  # the very model round 1 will use
    grading_preflight(context, rubric, trust)


def grading_preflight(
    context: Context, rubric: Sequence[CriterionBase], trust: Trust = OPERATOR
) -> None:
    """Raise a clear error if the critic cannot grade against `rubric`, before any model call.

    The critic models are needed only when the rubric has `llm` criteria. In a served run
    (`trust`), the rubric may name only the code and files the operator allowed, and a
    `tests` criterion needs the complete sandbox (`sandbox_for`). `critic-loop
    calibrate` calls it alone: grading needs no worker.

    Raises:
        ModelSetupError: a critic model cannot be created (unknown provider, missing key).
        TrustViolation: a client named code or files the operator did not allow.
        LookupError, FileNotFoundError: a check's function, test file or prompts are missing.
        MissingDependency: a `tests` criterion needs pytest.
        IsolationUnavailable: a served run's tests would run without the complete sandbox.
    """
    if any(not criterion.deterministic for criterion in rubric):
        for spec in dict.fromkeys(judge.spec for judge in panel(context)):
            grading_model(spec, "critic", context)
    check_rubric(rubric, trust)
    for criterion in rubric:
        if isinstance(criterion, TestSuite) and importlib.util.find_spec("pytest") is None:
            raise MissingDependency(
                missing_extra_message(
                    f"criterion {criterion.id!r} runs its tests with pytest, which is not "
                    "installed",
                    "tests",
                )
            )
    if trust.served and any(isinstance(criterion, TestSuite) for criterion in rubric):
        sandbox_for(trust)  # a client's code runs only in the complete sandbox
    load_prompts(context.prompts_dir)  # a missing directory or a broken template fails here


def validated_input(data: Any, label: ItemLabel = default_label) -> LoopInput:
    """Validate a run's task and rubric.

    Raises:
        InvalidInput: they are unusable; one line per problem, items named by `label`.
    """
    try:
        return LoopInput.model_validate(data)
    except ValidationError as error:
        raise InvalidInput(describe_input_errors(error, data, label)) from error


def check_input(state: SubmittedInput, runtime: Runtime[Context]) -> dict[str, Any]:
    """Validate the run before the first draft (raising as `validated_input`, `preflight`)."""
    checked = validated_input(dict(state))
    preflight(runtime.context, checked.rubric, trust_of(runtime))
    for criterion in checked.rubric:
        if isinstance(criterion, TestSuite):
            isolation = sandbox.isolation()
            bound = memory_plan(criterion, isolation).event()
            runtime.stream_writer(sandbox_event(criterion.id, isolation.mode, bound))
    checkable = [f for f in lint_rubric(checked.rubric) if f.problem == "checkable"]
    if checkable:
        decided = runtime.context.lint_checks
        findings = [
            {**finding.as_json(), "decided_by_code": decided and finding.proposal is not None}
            for finding in checkable
        ]
        runtime.stream_writer(lint_event(findings))
    return {"rubric": dump_rubric(checked.rubric)}
