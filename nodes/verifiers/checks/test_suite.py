"""The `tests` criterion: the rubric's test suite, run by `critic_loop.sandbox`, as a check.

A client's drafted code (a served run: LangGraph server, or `CRITIC_LOOP_UNTRUSTED_INPUT`)
runs only in the complete sandbox: where bubblewrap is missing or cannot work, such a run
is refused, at `check_input` before any model call and again before each test run, with
one line saying what to install. The operator may accept less, explicitly:
`CRITIC_LOOP_ALLOW_INCOMPLETE_SANDBOX=true`. The operator's own runs (command line,
Python) use what there is, with a warning, unless `CRITIC_LOOP_REQUIRE_ISOLATION=1` makes
them refuse too.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from critic_loop.nodes.operator_policy import Trust
from critic_loop.nodes.verifiers.checks.structured import extract_code
from critic_loop.sandbox import isolation as sandbox
from critic_loop.sandbox import runner
from critic_loop.sandbox.memory_bound import MIB, MemoryBound
from critic_loop.sandbox.report import Judged
from critic_loop.state.errors import IsolationUnavailable
from critic_loop.state.operator_settings import operator_settings
from critic_loop.state.rubric import TestSuite
from critic_loop.state.verdict import CheckResult

ALLOW_VARIABLE = "CRITIC_LOOP_ALLOW_INCOMPLETE_SANDBOX"
"""The operator's explicit consent to run clients' code in an incomplete sandbox."""


def sandbox_for(trust: Trust) -> sandbox.Isolation:
    """Return the sandbox this run's drafted code runs in (probed once per process).

    Raises:
        IsolationUnavailable: the run is served, the sandbox incomplete and the operator
            did not allow that; or CRITIC_LOOP_REQUIRE_ISOLATION=1 and it is incomplete.
    """
    found = sandbox.isolation()
    if trust.served and not found.complete and not trust.policy.allow_incomplete_sandbox:
        raise IsolationUnavailable(
            "This server runs no client's drafted code without the complete sandbox, and "
            f"{sandbox.shortfall(found)}: {sandbox.INSTALL}, or set {ALLOW_VARIABLE}=true "
            "to run it with less isolation."
        )
    return sandbox.ensure_isolation()  # what is missing: a warning, or an error if required


def limits_of(criterion: TestSuite) -> sandbox.Limits:
    """Return the resource limits the criterion sets for each of its two sandboxes."""
    return sandbox.Limits(
        memory_bytes=criterion.memory_mb * MIB,
        cpu_seconds=int(criterion.timeout_seconds) + 1,
        processes=criterion.max_processes,
        file_bytes=criterion.max_file_mb * MIB,
        open_files=criterion.max_open_files,
        disk_bytes=criterion.work_dir_mb * MIB,
    )


def suite_of(criterion: TestSuite) -> runner.Suite:
    """Return the suite the criterion runs, its test file read if it names one."""
    tests = criterion.tests
    if tests is None:
        tests = Path(str(criterion.tests_file)).read_text()
    return runner.Suite(tests, criterion.module, criterion.timeout_seconds, limits_of(criterion))


def host_limits() -> runner.HostLimits:
    """Return the operator's bounds on every test run of this process."""
    settings = operator_settings()
    return runner.HostLimits(
        settings.sandbox_memory_mb * MIB, settings.max_concurrent_tests, settings.sandbox_cgroup
    )


def memory_plan(criterion: TestSuite, isolation: sandbox.Isolation) -> MemoryBound:
    """Return how the criterion's runs are held to the operator's memory total."""
    return runner.memory_plan(limits_of(criterion), isolation, host_limits())


def check_result(judged: Judged) -> CheckResult:
    """Return the runner's verdict on a draft as the criterion's result."""
    return CheckResult(
        passed=judged.passed, evidence=judged.evidence, hint=judged.hint, terminal=judged.terminal
    )


def run_test_suite(criterion: TestSuite, draft: str) -> CheckResult:
    """Run the criterion's tests against the draft's code (blocking) and grade it.

    Raises:
        IsolationUnavailable: the sandbox is incomplete and CRITIC_LOOP_REQUIRE_ISOLATION=1,
            or its program is gone.
    """
    return check_result(runner.run_suite(suite_of(criterion), extract_code(draft), host_limits()))


async def arun_test_suite(criterion: TestSuite, draft: str) -> CheckResult:
    """Run the criterion's tests against the draft's code and grade it (see `run_test_suite`)."""
    suite = await asyncio.to_thread(suite_of, criterion)
    return check_result(await runner.arun_suite(suite, extract_code(draft), host_limits()))
