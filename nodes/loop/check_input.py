"""Refuse bad input and unusable models before any model is called.

Streams the "sandbox" and "lint" events.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from typing import Any, TypedDict

from langgraph.config import get_config
from langgraph.runtime import Runtime

from critic_loop.nodes.models.loading import grading_model, worker_model
from critic_loop.nodes.operator_policy import OPERATOR, Trust, check_rubric, trust_of
from critic_loop.nodes.prompts import load_prompts
from critic_loop.nodes.verifiers.checks.test_suite import memory_plan, sandbox_for
from critic_loop.nodes.verifiers.judge import panel
from critic_loop.nodes.verifiers.rubric_lint import lint_rubric
from critic_loop.sandbox import isolation as sandbox
from critic_loop.state.context import Context
from critic_loop.state.errors import InvalidInput, MissingDependency, ThreadFinished
from critic_loop.state.extras import missing_extra_message
from critic_loop.state.rubric import CriterionBase, TestSuite, dump_rubric
from critic_loop.state.run_input import validated_input


class SubmittedInput(TypedDict, total=False):
    """The caller's input as received, before validation, and what the thread already holds."""

    task: Any
    rubric: Any
    drafts: list[Any]
    outcome: Any


def preflight(context: Context, rubric: Sequence[CriterionBase], trust: Trust = OPERATOR) -> None:
    """Raise if the worker's or critic's models, checks or prompts cannot be used."""
    worker_model(context, context.temperature)  # the very model round 1 will use
    grading_preflight(context, rubric, trust)


def grading_preflight(
    context: Context, rubric: Sequence[CriterionBase], trust: Trust = OPERATOR
) -> None:
    """Raise a clear error if the critic cannot grade against `rubric`, before any model call.

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
    suites = [criterion for criterion in rubric if isinstance(criterion, TestSuite)]
    if suites and importlib.util.find_spec("pytest") is None:
        raise MissingDependency(
            missing_extra_message(
                f"criterion {suites[0].id!r} runs its tests with pytest, which is not installed",
                "tests",
            )
        )
    if suites and trust.served:
        sandbox_for(trust)  # a client's code runs only in the complete sandbox
    load_prompts(context.prompts_dir)  # a missing directory or a broken template fails here


def refuse_a_second_run(state: SubmittedInput) -> None:
    """Refuse input to a thread holding a run, whose rounds would start again at 1.

    Raises ThreadFinished (the run ended) or InvalidInput (it resumes from `None` as input).
    """
    thread = get_config()["configurable"].get("thread_id")
    if state.get("outcome") is not None:
        raise ThreadFinished(
            f"thread {thread} already finished ({state['outcome']}); a thread holds one run: "
            "use a new thread id, or fork_loop (critic-loop fork) to go on from a round"
        )
    if state.get("drafts"):
        unfinished = f"thread {thread} holds a run that has not finished: resume it from None"
        raise InvalidInput([f"{unfinished} (run_loop with its thread id), or use a new one"])


def check_input(state: SubmittedInput, runtime: Runtime[Context]) -> dict[str, Any]:
    """Validate the run before the first draft (raising as `validated_input`, `preflight`)."""
    refuse_a_second_run(state)
    checked = validated_input({key: state[key] for key in ("task", "rubric") if key in state})
    preflight(runtime.context, checked.rubric, trust_of(runtime))
    for criterion in checked.rubric:
        if isinstance(criterion, TestSuite):
            isolation = sandbox.isolation()
            bound = memory_plan(criterion, isolation).event()
            described = {"criterion": criterion.id, "isolation": isolation.mode, **bound}
            runtime.stream_writer({"event": "sandbox", **described})
    checkable = [f for f in lint_rubric(checked.rubric) if f.problem == "checkable"]
    if checkable:
        decided = runtime.context.lint_checks
        findings = [
            {**finding.as_json(), "decided_by_code": decided and finding.proposal is not None}
            for finding in checkable
        ]
        runtime.stream_writer({"event": "lint", "findings": findings})
    return {"rubric": dump_rubric(checked.rubric)}
