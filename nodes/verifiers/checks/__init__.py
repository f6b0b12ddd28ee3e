"""Deterministic checks: every criterion kind except "llm" is decided here, by code.

A kind's class names its check (`CriterionBase.check`); `python` and `tests` run code the
rubric names, so `trust` (whose rubric it is) holds them to the operator's policy.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
from collections.abc import Callable
from typing import Any

from critic_loop.nodes.operator_policy import OPERATOR, Trust, runnable_suite
from critic_loop.nodes.verifiers.checks.python_function import run_python_check
from critic_loop.nodes.verifiers.checks.test_suite import (
    arun_test_suite,
    run_test_suite,
    sandbox_for,
)
from critic_loop.state.rubric import CriterionBase, PythonCheck, TestSuite
from critic_loop.state.verdict import CheckResult


@functools.cache
def check_of(kind: type[CriterionBase]) -> Callable[[Any, str], CheckResult]:
    """Return the function its class names as the check of criteria of `kind`."""
    if kind.check is None:
        raise TypeError(f"a {kind.__name__} criterion has no check of its own")
    module, _, function = kind.check.partition(":")
    return getattr(importlib.import_module(f"{__name__}.{module}"), function)  # type: ignore[no-any-return]


def run_check(criterion: CriterionBase, draft: str, trust: Trust = OPERATOR) -> CheckResult:
    """Run the deterministic check of `criterion` on `draft`."""
    if isinstance(criterion, TestSuite):
        sandbox_for(trust)
        return run_test_suite(runnable_suite(criterion, trust), draft)
    if isinstance(criterion, PythonCheck):
        return run_python_check(criterion, draft, trust)
    return check_of(type(criterion))(criterion, draft)


async def arun_check(criterion: CriterionBase, draft: str, trust: Trust = OPERATOR) -> CheckResult:
    """`run_check` without blocking the event loop."""
    if isinstance(criterion, TestSuite):
        await asyncio.to_thread(sandbox_for, trust)
        inline = await asyncio.to_thread(runnable_suite, criterion, trust)
        return await arun_test_suite(inline, draft)
    if isinstance(criterion, PythonCheck) or criterion.check_blocks:
        return await asyncio.to_thread(run_check, criterion, draft, trust)
    return check_of(type(criterion))(criterion, draft)
