"""The `tests` criterion: the rubric's test suite, run by `critic_loop.sandbox`, as a check.

A client's drafted code runs only in the complete sandbox unless the operator allows less; the
operator's own runs use what there is, with a warning, unless `CRITIC_LOOP_REQUIRE_ISOLATION=1`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from critic_loop.nodes.operator_policy import Trust
from critic_loop.nodes.verifiers.checks.structured import extract_code
from critic_loop.sandbox import isolation as sandbox
from critic_loop.sandbox import runner
from critic_loop.sandbox.memory_bound import MIB, MemoryBound
from critic_loop.state.errors import IsolationUnavailable
from critic_loop.state.operator_settings import operator_settings
from critic_loop.state.rubric import TestSuite
from critic_loop.state.verdict import CheckResult


def sandbox_for(trust: Trust) -> sandbox.Isolation:
    """Raise `IsolationUnavailable` if the sandbox is incomplete where the run must have it."""
    found = sandbox.isolation()
    if trust.served and not found.complete and not trust.policy.allow_incomplete_sandbox:
        raise IsolationUnavailable(
            "This server runs no client's drafted code without the complete sandbox, and "
            f"{sandbox.shortfall(found)}: {sandbox.INSTALL}, or set "
            "CRITIC_LOOP_ALLOW_INCOMPLETE_SANDBOX=true to run it with less isolation."
        )
    return sandbox.ensure_isolation()  # what is missing: a warning, or an error if required


def _limits(criterion: TestSuite) -> sandbox.Limits:
    return sandbox.Limits(
        memory_bytes=criterion.memory_mb * MIB,
        cpu_seconds=int(criterion.timeout_seconds) + 1,
        processes=criterion.max_processes,
        file_bytes=criterion.max_file_mb * MIB,
        open_files=criterion.max_open_files,
        disk_bytes=criterion.work_dir_mb * MIB,
    )


def _suite(criterion: TestSuite) -> runner.Suite:
    tests = criterion.tests
    if tests is None:
        tests = Path(str(criterion.tests_file)).read_text()
    return runner.Suite(tests, criterion.module, criterion.timeout_seconds, _limits(criterion))


def host_limits() -> runner.HostLimits:
    """Return the operator's bounds on every test run of this process."""
    settings = operator_settings()
    return runner.HostLimits(
        settings.sandbox_memory_mb * MIB, settings.max_concurrent_tests, settings.sandbox_cgroup
    )


def memory_plan(criterion: TestSuite, isolation: sandbox.Isolation) -> MemoryBound:
    """Return how the criterion's runs are held to the operator's memory total."""
    return runner.memory_plan(_limits(criterion), isolation, host_limits())


def run_test_suite(criterion: TestSuite, draft: str) -> CheckResult:
    """Run the criterion's tests against the draft's code (blocking) and grade it."""
    judged = runner.run_suite(_suite(criterion), extract_code(draft), host_limits())
    return CheckResult.model_validate(judged, from_attributes=True)


async def arun_test_suite(criterion: TestSuite, draft: str) -> CheckResult:
    """`run_test_suite` without blocking the event loop."""
    suite = await asyncio.to_thread(_suite, criterion)
    judged = await runner.arun_suite(suite, extract_code(draft), host_limits())
    return CheckResult.model_validate(judged, from_attributes=True)
