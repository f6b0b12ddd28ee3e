"""Run a pytest suite against drafted code in a sandbox.

The draft's code is saved as `<module>.py` beside the tests in a fresh temporary directory,
and pytest runs on them in a child process inside the sandbox of `checks.sandbox`: where
the system allows (bubblewrap, Linux), as an unprivileged user that sees only a private,
size-limited working directory and a read-only Python installation, with no network and
no view of other processes. Always:

- with a wall-clock timeout (every process of the run is killed when it runs out),
- with limits on memory (address space), CPU time, processes, file size and open files,
- with a clean environment: none of the parent's variables (API keys, database URLs),
- with its output read in bounded chunks (a bounded head and tail are kept), secret-looking
  values of the parent's environment scrubbed from it as a second line of defence; failing
  test names and the tail of their assertion output become the evidence and the hint. A
  test counts only if it ran and passed: skipped or expected-to-fail tests do not.

The drafted code runs in the pytest process, so it can make its tests pass by tampering
with pytest: the sandbox protects the machine and its secrets, not the verdict.

A timeout, a crash or a collection error is a failing criterion, never a crash of the loop.
A test file that no draft could satisfy (it does not compile, imports a module that is not
installed, or defines no tests) is a terminal failure: the run ends as infeasible instead
of spending its remaining rounds. Where the sandbox is incomplete, a warning says once what
is missing; with CRITIC_LOOP_REQUIRE_ISOLATION=1 both functions raise
`IsolationUnavailable` instead, before running anything.
"""

from __future__ import annotations

import ast
import asyncio
import importlib.util
import os
import re
import shutil
import signal
import tempfile
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

from critic_loop.nodes.verifiers.checks import sandbox
from critic_loop.nodes.verifiers.checks.bounded_run import Finished, arun, read_bounded, run
from critic_loop.nodes.verifiers.checks.failure_notes import describe_failure
from critic_loop.nodes.verifiers.checks.structured import extract_code
from critic_loop.state.rubric import TestSuite
from critic_loop.state.verdict import CheckResult

OUTPUT_TAIL = 1500
"""How much of the end of pytest's output the evidence keeps."""

MAX_REPORT_BYTES = 8 * 1024 * 1024
"""A bigger JUnit report is not read (the drafted code can write to it)."""

SECRET_NAMES = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|DATABASE_URL|DSN", re.IGNORECASE)
"""Environment variables whose values must never appear in evidence or hints."""


def scrub_secrets(text: str) -> str:
    """Replace the values of secret-looking environment variables in `text`."""
    for name, value in os.environ.items():
        if len(value) >= 6 and SECRET_NAMES.search(name) and value in text:
            text = text.replace(value, f"[{name} redacted]")
    return text


@dataclass(frozen=True)
class Prepared:
    """A temporary directory holding the drafted module and the tests, and the report file."""

    directory: Path
    report: Path


def _tests_source(criterion: TestSuite) -> str:
    if criterion.tests is not None:
        return criterion.tests
    return Path(str(criterion.tests_file)).read_text()


def test_file_problem(criterion: TestSuite) -> str | None:
    """Say why no draft could pass these tests (the tests themselves are broken), if so."""
    source = _tests_source(criterion)
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        return f"The test file does not compile: {error.msg} at line {error.lineno}."
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {
        node.module.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0
    }
    for name in sorted(imported - {criterion.module}):
        if importlib.util.find_spec(name) is None:
            return f"The test file imports {name!r}, which is not installed."
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    if not any(
        isinstance(node, functions) and node.name.startswith("test") for node in ast.walk(tree)
    ):
        return "The test file defines no tests (functions named test_*)."
    return None


def _broken_tests(problem: str) -> CheckResult:
    return CheckResult(passed=False, terminal=True, evidence=problem, hint="")


def prepare(criterion: TestSuite, draft: str) -> Prepared:
    """Write the draft and the tests into a fresh temporary directory."""
    directory = Path(tempfile.mkdtemp(prefix="critic-loop-tests-"))
    # the report lives outside the draft's directory, under a name it cannot guess
    report = Path(tempfile.mkdtemp(prefix="critic-loop-report-")) / f"{os.urandom(8).hex()}.xml"
    report.touch()
    (directory / f"{criterion.module}.py").write_text(extract_code(draft))
    (directory / f"test_{criterion.module}.py").write_text(_tests_source(criterion))
    (directory / "pytest.ini").write_text("[pytest]\n")
    return Prepared(directory, report)


def limits(criterion: TestSuite) -> sandbox.Limits:
    """Return the resource limits the criterion sets for its run."""
    mib = 1024 * 1024
    return sandbox.Limits(
        memory_bytes=criterion.memory_mb * mib,
        cpu_seconds=int(criterion.timeout_seconds) + 1,
        processes=criterion.max_processes,
        file_bytes=criterion.max_file_mb * mib,
        open_files=criterion.max_open_files,
        disk_bytes=criterion.work_dir_mb * mib,
    )


def command(
    isolation: sandbox.Isolation, criterion: TestSuite, prepared: Prepared
) -> sandbox.Command:
    """Build the sandboxed pytest run of the prepared directory."""

    def arguments(directory: Path, report: str) -> list[str]:
        return [
            "-q",
            "--no-header",
            "-rfE",
            "--tb=short",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(directory),
            "-c",
            str(directory / "pytest.ini"),
            f"--junitxml={report}",
            f"test_{criterion.module}.py",
        ]

    return sandbox.build(
        isolation, prepared.directory, prepared.report, limits(criterion), arguments
    )


def _tail(output: str) -> str:
    output = scrub_secrets(output).strip()
    return output if len(output) <= OUTPUT_TAIL else "..." + output[-OUTPUT_TAIL:]


@dataclass(frozen=True)
class _Case:
    name: str
    message: str


def _failed_cases(report: Path) -> tuple[int, list[_Case]] | None:
    """Count the test cases and list the ones that did not pass (failed, errored, skipped)."""
    content = read_bounded(report, MAX_REPORT_BYTES)
    if content is None:
        return None
    try:
        root = ElementTree.fromstring(content)
    except ElementTree.ParseError:
        return None
    total, failed = 0, []
    for case in root.iter("testcase"):
        total += 1
        found = [case.find(tag) for tag in ("failure", "error", "skipped")]
        problem = next((element for element in found if element is not None), None)
        if problem is None:
            continue
        if problem.tag == "skipped":
            lines = (problem.get("message") or "").strip().splitlines()
            message = "skipped" + (f": {scrub_secrets(lines[0])}" if lines else "")
        else:
            message = scrub_secrets(
                describe_failure(problem.get("message") or "", problem.text or "")
            )
        failed.append(_Case(case.get("name", "?"), message))
    return total, failed


def interpret(prepared: Prepared, returncode: int, output: str) -> CheckResult:
    """Turn pytest's exit status, report and output into a check result."""
    counted = _failed_cases(prepared.report)
    if returncode < 0:
        name = signal.Signals(-returncode).name
        return CheckResult(
            passed=False,
            evidence=f"The test run was killed by {name} (memory or CPU limit?).\n{_tail(output)}",
            hint="Make the code use less memory and time.",
        )
    if returncode == 2:  # interrupted: the tests could not be collected
        errors = [line[1:].strip() for line in output.splitlines() if line.startswith("E ")]
        cause = errors[-1] if errors else f"pytest exit status {returncode}"
        return CheckResult(
            passed=False,
            evidence=f"The tests could not run: the code does not import.\n{_tail(output)}",
            hint=f"Make the code importable; it fails with: {cause}",
        )
    if returncode == 0 and counted and counted[0] > 0 and not counted[1]:
        return CheckResult(passed=True, evidence=f"All {counted[0]} tests passed.")
    if returncode == 5 or (counted is not None and counted[0] == 0):
        return CheckResult(passed=False, evidence=f"No tests ran.\n{_tail(output)}", hint="")
    if counted and counted[1]:
        total, failed = counted
        names = ", ".join(case.name for case in failed)
        hints = "; ".join(
            f"{case.name}: {case.message}" if case.message else case.name for case in failed
        )
        return CheckResult(
            passed=False,
            evidence=f"{len(failed)} of {total} tests failed: {names}.\n{_tail(output)}",
            hint=f"Fix these: {hints}"[:600],
        )
    return CheckResult(
        passed=False,
        evidence=f"The tests could not run (pytest exit status {returncode}).\n{_tail(output)}",
        hint="Make the module importable: fix the errors shown.",
    )


def _timed_out(criterion: TestSuite, output: str) -> CheckResult:
    return CheckResult(
        passed=False,
        evidence=(
            f"The tests did not finish within {criterion.timeout_seconds:g} seconds "
            f"(an endless loop or a slow algorithm?).\n{_tail(output)}"
        ),
        hint="Make sure every loop ends and the code finishes quickly.",
    )


def _clean_up(prepared: Prepared) -> None:
    shutil.rmtree(prepared.directory, ignore_errors=True)
    shutil.rmtree(prepared.report.parent, ignore_errors=True)


def _finish(
    criterion: TestSuite, prepared: Prepared, ready: sandbox.Command, finished: Finished
) -> CheckResult:
    if finished.returncode is None:
        return _timed_out(criterion, finished.output)
    return interpret(prepared, ready.returncode(finished.returncode), finished.output)


def run_test_suite(criterion: TestSuite, draft: str) -> CheckResult:
    """Run the tests against the draft (blocking).

    Raises:
        IsolationUnavailable: the sandbox is incomplete and CRITIC_LOOP_REQUIRE_ISOLATION=1.
    """
    isolation = sandbox.ensure_isolation()
    problem = test_file_problem(criterion)
    if problem is not None:
        return _broken_tests(problem)
    prepared = prepare(criterion, draft)
    try:
        ready = command(isolation, criterion, prepared)
        with ready:
            finished = run(
                ready.argv,
                cwd=ready.cwd,
                env=ready.environment,
                pass_fds=ready.fds,
                timeout=criterion.timeout_seconds,
            )
        return _finish(criterion, prepared, ready, finished)
    finally:
        _clean_up(prepared)


async def arun_test_suite(criterion: TestSuite, draft: str) -> CheckResult:
    """Run the tests against the draft without blocking the event loop.

    Raises:
        IsolationUnavailable: the sandbox is incomplete and CRITIC_LOOP_REQUIRE_ISOLATION=1.
    """
    isolation = await asyncio.to_thread(sandbox.ensure_isolation)
    problem = await asyncio.to_thread(test_file_problem, criterion)
    if problem is not None:
        return _broken_tests(problem)
    prepared = await asyncio.to_thread(prepare, criterion, draft)
    try:
        ready = await asyncio.to_thread(command, isolation, criterion, prepared)
        with ready:
            finished = await arun(
                ready.argv,
                cwd=ready.cwd,
                env=ready.environment,
                pass_fds=ready.fds,
                timeout=criterion.timeout_seconds,
            )
        return await asyncio.to_thread(_finish, criterion, prepared, ready, finished)
    finally:
        await asyncio.to_thread(_clean_up, prepared)
