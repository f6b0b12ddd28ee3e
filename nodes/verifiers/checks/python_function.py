"""Run a user's Python check function on the draft."""

from __future__ import annotations

import logging
from typing import Any

from critic_loop.nodes.operator_policy import OPERATOR, Trust, resolve_check
from critic_loop.state.rubric import PythonCheck
from critic_loop.state.verdict import CheckResult

logger = logging.getLogger(__name__)


def _as_check_result(value: Any, reference: str) -> CheckResult:
    if isinstance(value, CheckResult):
        return value
    if isinstance(value, bool):
        verdict = "passed" if value else "failed"
        return CheckResult(passed=value, evidence=f"{reference} {verdict}.")
    if isinstance(value, tuple) and len(value) in (2, 3) and isinstance(value[0], bool):
        passed, evidence, *hint = value
        return CheckResult(passed=passed, evidence=str(evidence), hint=str(hint[0]) if hint else "")
    raise TypeError(
        f"{reference} returned {type(value).__name__}; return a CheckResult, "
        "a (passed, evidence, hint) tuple or a bool"
    )


def run_python_check(criterion: PythonCheck, draft: str, trust: Trust = OPERATOR) -> CheckResult:
    """Raise `TrustViolation` if a client named a function the operator did not allow."""
    reference = str(criterion.function)
    function = resolve_check(reference, trust)
    try:
        return _as_check_result(function(draft), reference)
    except Exception as error:
        logger.warning("check %s raised on a draft: %s", reference, error, exc_info=True)
        evidence = f"The check {reference} raised {type(error).__name__}: {error}"
        return CheckResult(passed=False, evidence=evidence)
