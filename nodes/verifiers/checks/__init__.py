"""Deterministic checks: every criterion kind except "llm" is decided here, by code.

`trust` says whose rubric it is: a client's may name only the functions and files the
operator allowed (`critic_loop.nodes.operator_policy`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from critic_loop.nodes.operator_policy import OPERATOR, Trust, runnable_suite
from critic_loop.nodes.verifiers.checks import structured, text
from critic_loop.nodes.verifiers.checks.python_function import run_python_check
from critic_loop.nodes.verifiers.checks.test_suite import (
    arun_test_suite,
    run_test_suite,
    sandbox_for,
)
from critic_loop.state import rubric
from critic_loop.state.rubric import CriterionBase, PythonCheck, TestSuite
from critic_loop.state.verdict import CheckResult

_TEXT_CHECKS: dict[type[CriterionBase], Callable[[Any, str], CheckResult]] = {
    rubric.WordCount: text.check_word_count,
    rubric.CharCount: text.check_char_count,
    rubric.Regex: text.check_regex,
    rubric.Contains: text.check_contains,
    rubric.Headings: text.check_headings,
    rubric.ValidJson: lambda _, draft: structured.check_json(draft),
    rubric.MatchesJsonSchema: structured.check_json_schema,
    rubric.PythonSyntax: lambda _, draft: structured.check_python_syntax(draft),
    rubric.Language: text.check_language,
    rubric.PythonFeature: structured.check_python_feature,
}


def _text_check(criterion: CriterionBase, draft: str) -> CheckResult:
    for kind, check in _TEXT_CHECKS.items():
        if isinstance(criterion, kind):
            return check(criterion, draft)
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
    if isinstance(criterion, rubric.Language):  # its first use reads the identifier's model
        return await asyncio.to_thread(_text_check, criterion, draft)
    return _text_check(criterion, draft)
