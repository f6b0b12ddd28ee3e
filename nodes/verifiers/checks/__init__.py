"""Deterministic checks: every criterion kind except "llm" is decided here, by code.

`check_call(criterion, draft, trust)` returns the check as a `Call`, so the critique node
runs it with blocking I/O under `invoke` and without blocking the event loop under
`ainvoke`: pure text checks run inline, Python functions in a worker thread, test suites as
async subprocesses. `trust` says whose rubric it is: a client's may name only the
functions and files the operator allowed (see `critic_loop.nodes.operator_policy`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from critic_loop.nodes.operator_policy import OPERATOR, Trust, runnable_suite
from critic_loop.nodes.steps import Call
from critic_loop.nodes.verifiers.checks.python_function import run_python_check
from critic_loop.nodes.verifiers.checks.structured import (
    check_json,
    check_json_schema,
    check_python_syntax,
)
from critic_loop.nodes.verifiers.checks.test_suite import (
    arun_test_suite,
    run_test_suite,
    sandbox_for,
)
from critic_loop.nodes.verifiers.checks.text import (
    check_char_count,
    check_contains,
    check_headings,
    check_regex,
    check_word_count,
)
from critic_loop.state.rubric import (
    CharCount,
    Contains,
    CriterionBase,
    Headings,
    MatchesJsonSchema,
    PythonCheck,
    PythonSyntax,
    Regex,
    TestSuite,
    ValidJson,
    WordCount,
)
from critic_loop.state.verdict import CheckResult


def _pure(check: Callable[[], CheckResult]) -> Call[CheckResult]:
    async def run() -> CheckResult:
        return check()

    return Call(check, run)


def _checker(criterion: CriterionBase, draft: str) -> Callable[[], CheckResult]:
    match criterion:
        case WordCount():
            return lambda: check_word_count(criterion, draft)
        case CharCount():
            return lambda: check_char_count(criterion, draft)
        case Regex():
            return lambda: check_regex(criterion, draft)
        case Contains():
            return lambda: check_contains(criterion, draft)
        case Headings():
            return lambda: check_headings(criterion, draft)
        case ValidJson():
            return lambda: check_json(draft)
        case MatchesJsonSchema():
            return lambda: check_json_schema(criterion, draft)
        case PythonSyntax():
            return lambda: check_python_syntax(draft)
    raise TypeError(f"criterion {criterion.id!r} of kind {type(criterion).__name__} has no check")


def check_call(criterion: CriterionBase, draft: str, trust: Trust = OPERATOR) -> Call[CheckResult]:
    """Return the deterministic check of `criterion` on `draft`, as a sync/async call."""
    if isinstance(criterion, TestSuite):

        def run_tests() -> CheckResult:
            sandbox_for(trust)
            return run_test_suite(runnable_suite(criterion, trust), draft)

        async def arun_tests() -> CheckResult:
            await asyncio.to_thread(sandbox_for, trust)
            inline = await asyncio.to_thread(runnable_suite, criterion, trust)
            return await arun_test_suite(inline, draft)

        return Call(run_tests, arun_tests)
    if isinstance(criterion, PythonCheck):
        return Call(
            lambda: run_python_check(criterion, draft, trust),
            lambda: asyncio.to_thread(run_python_check, criterion, draft, trust),
        )
    return _pure(_checker(criterion, draft))
