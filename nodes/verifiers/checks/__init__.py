"""Deterministic checks: every criterion kind except "llm" is decided here, by code.

`trust` says whose rubric it is: a client's may name only the functions and files the
operator allowed (`critic_loop.nodes.operator_policy`).
"""

from __future__ import annotations

import asyncio

from critic_loop.nodes.operator_policy import OPERATOR, Trust, runnable_suite
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


def _text_check(criterion: CriterionBase, draft: str) -> CheckResult:
    match criterion:
        case WordCount():
            return check_word_count(criterion, draft)
        case CharCount():
            return check_char_count(criterion, draft)
        case Regex():
            return check_regex(criterion, draft)
        case Contains():
            return check_contains(criterion, draft)
        case Headings():
            return check_headings(criterion, draft)
        case ValidJson():
            return check_json(draft)
        case MatchesJsonSchema():
            return check_json_schema(criterion, draft)
        case PythonSyntax():
            return check_python_syntax(draft)
    raise TypeError(f"criterion {criterion.id!r} of kind {type(criterion).__name__} has no check")


def run_check(criterion: CriterionBase, draft: str, trust: Trust = OPERATOR) -> CheckResult:
    """Run the deterministic check of `criterion` on `draft`."""
    if isinstance(criterion, TestSuite):
        sandbox_for(trust)
        return run_test_suite(runnable_suite(criterion, trust), draft)
    if isinstance(criterion, PythonCheck):
        return run_python_check(criterion, draft, trust)
    return _text_check(criterion, draft)


async def arun_check(criterion: CriterionBase, draft: str, trust: Trust = OPERATOR) -> CheckResult:
    """`run_check` without blocking the event loop."""
    if isinstance(criterion, TestSuite):
        await asyncio.to_thread(sandbox_for, trust)
        inline = await asyncio.to_thread(runnable_suite, criterion, trust)
        return await arun_test_suite(inline, draft)
    if isinstance(criterion, PythonCheck):
        return await asyncio.to_thread(run_python_check, criterion, draft, trust)
    return _text_check(criterion, draft)
