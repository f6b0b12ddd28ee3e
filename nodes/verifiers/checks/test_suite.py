"""Run a pytest suite against drafted code, with the verdict out of the drafted code's reach.

Two processes run side by side, each in a sandbox of its own (`checks.sandbox`: where the
system allows, bubblewrap, an unprivileged user, a private size-limited working
directory, a read-only Python installation, no network, no view of other processes):

- the **draft process** imports the drafted code (the draft's first ```python block, or
  the draft itself, saved as `<module>.py`) and answers calls to its functions;
- the **harness process** runs pytest on the tests. The module the tests import is a
  stand-in: each call crosses to the draft process as plain data (JSON-like values) and
  its return value comes back as plain data, so the tests compare values of their own
  process's making. The harness alone holds the pipe its report is written to.

The drafted code cannot reach the tests, pytest or the report: an object with a lying
`__eq__` cannot cross, exiting early only ends the draft process (and fails the calls
that needed it), and patching `builtins` or pytest patches the draft process only. What
crosses, and what a test suite may rely on, is documented in docs/test-suites.md
(`boundary.wire` has the exact list).

Always: at most `CRITIC_LOOP_MAX_CONCURRENT_TESTS` runs at once in a process (the others
wait for a slot, their timeout starting when they run: see `test_slots`); a wall-clock
timeout for the pair (every process is killed when it runs out);
one memory total for every process of both sandboxes (`memory_bound`: a cgroup where the
host delegates one, else process limits times address-space limits under it); limits on
CPU time, processes, file size and open files; a clean
environment (none of the parent's variables); output read in bounded chunks, with
secret-looking values of the parent's environment scrubbed from evidence and hints. The
verdict comes from the harness's report alone, and only when everything agrees (see
`suite_report`): an exit status never means "passed" by itself.

A timeout, a crash or a collection error is a failing criterion, never a crash of the loop.
A test file that no draft could satisfy (it does not compile, imports a module that is not
installed, or defines no tests) is a terminal failure: the run ends as infeasible instead
of spending its remaining rounds. Where the sandbox is incomplete, a warning says once what
is missing; with CRITIC_LOOP_REQUIRE_ISOLATION=1 every entry point raises
`IsolationUnavailable` instead, before running anything. Without PID namespaces (no
bubblewrap and no `unshare`) the two processes run as one user in one process tree, and
the drafted code could reach the harness: the verdict is then only as safe as the host.

Entry points: `run_test_suite` / `arun_test_suite` grade a draft (a `CheckResult`);
`run_suite` / `arun_suite` run the tests against a draft and return every test's
outcome (`SuiteRun`), for callers that compare drafts by behaviour, such as a check of
several candidates' agreement on further inputs. The tests decide what is compared;
`test_file_problem` says first whether a test file can run at all.
"""

from __future__ import annotations

import ast
import asyncio
import importlib.util
import os
import shutil
import signal
import socket
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from critic_loop.nodes.verifiers.checks import boundary, memory_bound, sandbox
from critic_loop.nodes.verifiers.checks.bounded_run import (
    Launch,
    PairFinished,
    arun_pair,
    run_pair,
)
from critic_loop.nodes.verifiers.checks.structured import extract_code
from critic_loop.nodes.verifiers.checks.suite_report import (
    SuiteReport,
    TestOutcome,
    defined_tests,
    judge,
    parse_report,
    scrub_secrets,
)
from critic_loop.nodes.verifiers.checks.test_slots import SLOTS
from critic_loop.state.operator_settings import operator_settings
from critic_loop.state.rubric import TestSuite
from critic_loop.state.verdict import CheckResult

__all__ = [
    "SuiteRun",
    "TestOutcome",
    "arun_suite",
    "arun_test_suite",
    "run_suite",
    "run_test_suite",
    "scrub_secrets",
    "test_file_problem",
]

OUTPUT_TAIL = 1500
"""How much of the end of pytest's output the evidence keeps."""

MAX_REPORT_BYTES = 8 * 1024 * 1024
"""A longer report is not read: the run fails."""

LIBRARY_PACKAGE = "critic_loop_boundary"
"""The name the code of `boundary` has inside the sandboxes."""


@dataclass(frozen=True)
class Prepared:
    """The temporary directories of one run: the tests', the draft's and the library's."""

    tests: Path
    draft: Path
    library: Path
    defined: tuple[str, ...]
    """The test functions the test file defines."""


@dataclass(frozen=True)
class SuiteRun:
    """A finished run of a test suite against one draft, before it is judged.

    Exit statuses are -N when a process was killed by signal N.
    """

    timed_out: bool
    harness_status: int | None
    """pytest's exit status (None: it timed out)."""
    draft_status: int | None
    """The draft process's own exit status, if it ended before the tests did."""
    output: str
    """pytest's output, bounded."""
    draft_output: str
    """What the draft process printed outside calls, bounded."""
    report: SuiteReport | None
    """The harness's report (None: missing, too long, or unreadable)."""
    defined: tuple[str, ...]
    """The test functions the test file defines."""

    @property
    def outcomes(self) -> list[TestOutcome]:
        """Every test's outcome, in the order the tests were collected."""
        if self.report is None:
            return []
        found = self.report.results
        return [found[test.nodeid] for test in self.report.collected if test.nodeid in found]


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
    except (RecursionError, MemoryError, ValueError):
        return "The test file cannot be parsed (it is nested too deeply, or not text)."
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
    if not defined_tests(source):
        return "The test file defines no tests (functions named test_*)."
    return None


def _broken_tests(problem: str) -> CheckResult:
    return CheckResult(passed=False, terminal=True, evidence=problem, hint="")


def _copy_library(library: Path) -> None:
    package = library / LIBRARY_PACKAGE
    package.mkdir()
    for source in Path(boundary.__file__).parent.glob("*.py"):
        shutil.copyfile(source, package / source.name)


def prepare(criterion: TestSuite, draft: str) -> Prepared:
    """Write the tests, the drafted module and the library into fresh temporary directories."""
    source = _tests_source(criterion)
    tests = Path(tempfile.mkdtemp(prefix="critic-loop-tests-"))
    drafted = Path(tempfile.mkdtemp(prefix="critic-loop-draft-"))
    library = Path(tempfile.mkdtemp(prefix="critic-loop-library-"))
    prepared = Prepared(tests, drafted, library, tuple(defined_tests(source)))
    try:
        (tests / f"test_{criterion.module}.py").write_text(source)
        (tests / "pytest.ini").write_text("[pytest]\n")
        (drafted / f"{criterion.module}.py").write_text(extract_code(draft))
        _copy_library(library)
    except BaseException:
        _clean_up(prepared)
        raise
    return prepared


def _clean_up(prepared: Prepared) -> None:
    for directory in (prepared.tests, prepared.draft, prepared.library):
        shutil.rmtree(directory, ignore_errors=True)


def limits(criterion: TestSuite) -> sandbox.Limits:
    """Return the resource limits the criterion sets for each of its two sandboxes."""
    mib = 1024 * 1024
    return sandbox.Limits(
        memory_bytes=criterion.memory_mb * mib,
        cpu_seconds=int(criterion.timeout_seconds) + 1,
        processes=criterion.max_processes,
        file_bytes=criterion.max_file_mb * mib,
        open_files=criterion.max_open_files,
        disk_bytes=criterion.work_dir_mb * mib,
    )


def _pytest_arguments(
    criterion: TestSuite, directory: Path, channel: int, report: int
) -> list[str]:
    return [
        "-m",
        "pytest",
        "-q",
        "--no-header",
        "-rfE",
        "--tb=short",
        "-p",
        "no:cacheprovider",
        "-p",
        f"{LIBRARY_PACKAGE}.plugin",
        f"--boundary-channel={channel}",
        f"--boundary-report={report}",
        f"--boundary-module={criterion.module}",
        "--rootdir",
        str(directory),
        "-c",
        str(directory / "pytest.ini"),
        f"test_{criterion.module}.py",
    ]


@dataclass
class Commands:
    """The two sandboxed commands of one run, and the read end of the report pipe."""

    harness: sandbox.Command
    draft: sandbox.Command
    report: int

    def launches(self) -> tuple[Launch, Launch]:
        """Return the harness's and the draft's launch, each releasing its files once started."""
        return (
            Launch(
                self.harness.argv,
                self.harness.cwd,
                self.harness.environment,
                tuple(self.harness.fds),
                self.harness.close,
            ),
            Launch(
                self.draft.argv,
                self.draft.cwd,
                self.draft.environment,
                tuple(self.draft.fds),
                self.draft.close,
            ),
        )


def _close(*descriptors: int) -> None:
    for descriptor in descriptors:
        with suppress(OSError):
            os.close(descriptor)


SANDBOXES = 2
"""How many sandboxes one run starts side by side (harness and draft share the memory total)."""


def memory_plan(criterion: TestSuite, isolation: sandbox.Isolation) -> memory_bound.MemoryBound:
    """Return how all the run's processes are held to the operator's memory total."""
    settings = operator_settings()
    total = settings.sandbox_memory_mb * memory_bound.MIB
    return memory_bound.plan(
        limits(criterion), total, isolation, SANDBOXES, settings.sandbox_cgroup
    )


@contextmanager
def commands(
    isolation: sandbox.Isolation,
    criterion: TestSuite,
    prepared: Prepared,
    bound: memory_bound.MemoryBound | None = None,
    cgroup: Path | None = None,
) -> Iterator[Commands]:
    """Build the two sandboxed commands, joined by a socket; the harness gets the report pipe.

    Both are held to `bound` (default: `memory_plan`), and start in `cgroup` if given, so
    every process the drafted code or the tests start counts toward one total. Each command
    owns the descriptors it was given (and closes them once its process has them, or on
    leaving); the report's read end goes to the runner, which closes it.
    """
    harness_end, draft_end = socket.socketpair()
    report_read, report_write = os.pipe()
    channel, draft_channel = harness_end.detach(), draft_end.detach()
    every = (bound or memory_plan(criterion, isolation)).applied_to(limits(criterion))
    try:
        harness = sandbox.build(
            isolation,
            prepared.tests,
            every,
            lambda inner: _pytest_arguments(criterion, inner, channel, report_write),
            fds=[channel, report_write],
            library=prepared.library,
        )
    except BaseException:
        _close(draft_channel, report_read)
        raise
    try:
        draft = sandbox.build(
            isolation,
            prepared.draft,
            every,
            lambda _inner: [
                "-m",
                f"{LIBRARY_PACKAGE}.artifact",
                str(draft_channel),
                criterion.module,
            ],
            fds=[draft_channel],
            library=prepared.library,
        )
    except BaseException:
        harness.close()
        _close(report_read)
        raise
    harness.argv = memory_bound.started_in(cgroup, harness.argv)
    draft.argv = memory_bound.started_in(cgroup, draft.argv)
    with harness, draft:
        yield Commands(harness, draft, report_read)


def _status(command: sandbox.Command, status: int | None) -> int | None:
    return None if status is None else command.returncode(status)


def _finished(prepared: Prepared, ready: Commands, finished: PairFinished) -> SuiteRun:
    return SuiteRun(
        timed_out=finished.main.returncode is None,
        harness_status=_status(ready.harness, finished.main.returncode),
        draft_status=_status(ready.draft, finished.helper.returncode),
        output=finished.main.output,
        draft_output=finished.helper.output,
        report=parse_report(finished.report),
        defined=prepared.defined,
    )


def run_suite(criterion: TestSuite, draft: str) -> SuiteRun:
    """Run the tests against the draft (blocking) and return every test's outcome.

    Raises:
        IsolationUnavailable: the sandbox is incomplete and CRITIC_LOOP_REQUIRE_ISOLATION=1,
            or its program is gone.
    """
    isolation = sandbox.ensure_isolation()
    prepared = prepare(criterion, draft)
    bound = memory_plan(criterion, isolation)
    cgroup = memory_bound.make_cgroup(bound)
    try:
        with SLOTS.held(), commands(isolation, criterion, prepared, bound, cgroup) as ready:
            harness, helper = ready.launches()
            try:
                finished = run_pair(
                    harness,
                    helper,
                    report_fd=ready.report,
                    report_limit=MAX_REPORT_BYTES,
                    timeout=criterion.timeout_seconds,
                )
            except (FileNotFoundError, PermissionError) as error:  # the sandbox, not the code
                raise sandbox.lost(ready.harness, error) from error
        return _finished(prepared, ready, finished)
    finally:
        memory_bound.remove_cgroup(cgroup)
        _clean_up(prepared)


async def arun_suite(criterion: TestSuite, draft: str) -> SuiteRun:
    """Run the tests against the draft without blocking the event loop (see `run_suite`).

    Raises:
        IsolationUnavailable: the sandbox is incomplete and CRITIC_LOOP_REQUIRE_ISOLATION=1,
            or its program is gone.
    """
    isolation = await asyncio.to_thread(sandbox.ensure_isolation)
    prepared = await asyncio.to_thread(prepare, criterion, draft)
    bound = await asyncio.to_thread(memory_plan, criterion, isolation)
    cgroup = await asyncio.to_thread(memory_bound.make_cgroup, bound)
    try:
        async with SLOTS.aheld():
            with ExitStack() as stack:
                ready = await asyncio.to_thread(
                    stack.enter_context, commands(isolation, criterion, prepared, bound, cgroup)
                )
                harness, helper = ready.launches()
                try:
                    finished = await arun_pair(
                        harness,
                        helper,
                        report_fd=ready.report,
                        report_limit=MAX_REPORT_BYTES,
                        timeout=criterion.timeout_seconds,
                    )
                except (FileNotFoundError, PermissionError) as error:  # the sandbox, not code
                    raise sandbox.lost(ready.harness, error) from error
        return _finished(prepared, ready, finished)
    finally:
        await asyncio.to_thread(memory_bound.remove_cgroup, cgroup)
        await asyncio.to_thread(_clean_up, prepared)


def _tail(output: str) -> str:
    output = scrub_secrets(output).strip()
    return output if len(output) <= OUTPUT_TAIL else "..." + output[-OUTPUT_TAIL:]


def _with_output(text: str, output: str) -> str:
    tail = _tail(output)
    return f"{text}\n{tail}" if tail else text


def _killed(status: int, whose: str, output: str) -> CheckResult:
    name = signal.Signals(-status).name
    return CheckResult(
        passed=False,
        evidence=_with_output(
            f"The test run was killed by {name} (memory or CPU limit?) in {whose}.", output
        ),
        hint="Make the code use less memory and time.",
    )


def verdict(criterion: TestSuite, run: SuiteRun) -> CheckResult:
    """Grade a finished run: the timeout, a killed process, then the harness's report."""
    if run.timed_out:
        return CheckResult(
            passed=False,
            evidence=_with_output(
                f"The tests did not finish within {criterion.timeout_seconds:g} seconds "
                "(an endless loop or a slow algorithm?).",
                run.output,
            ),
            hint="Make sure every loop ends and the code finishes quickly.",
        )
    if run.draft_status is not None and run.draft_status < 0:
        return _killed(run.draft_status, "the drafted code's process", run.draft_output)
    status = run.harness_status if run.harness_status is not None else -1
    if status < 0:
        return _killed(status, "the tests' process", run.output)
    if run.report is None or run.report.exitstatus is None:
        return CheckResult(
            passed=False,
            evidence=_with_output(
                f"The tests gave no complete report (pytest exit status {status}), so "
                "they count as failed.",
                run.output,
            ),
            hint="Make the module importable: fix the errors shown.",
        )
    judged = judge(run.report, run.defined, status)
    if judged.passed:
        return CheckResult(passed=True, evidence=judged.evidence)
    evidence = _with_output(judged.evidence, run.output)
    if run.report.module_error is not None and run.draft_output.strip():
        evidence += f"\nThe drafted code's process printed:\n{_tail(run.draft_output)}"
    return CheckResult(passed=False, evidence=evidence, hint=judged.hint)


def run_test_suite(criterion: TestSuite, draft: str) -> CheckResult:
    """Run the tests against the draft (blocking) and grade it.

    Raises:
        IsolationUnavailable: the sandbox is incomplete and CRITIC_LOOP_REQUIRE_ISOLATION=1,
            or its program is gone.
    """
    sandbox.ensure_isolation()
    problem = test_file_problem(criterion)
    if problem is not None:
        return _broken_tests(problem)
    return verdict(criterion, run_suite(criterion, draft))


async def arun_test_suite(criterion: TestSuite, draft: str) -> CheckResult:
    """Run the tests against the draft without blocking the event loop, and grade it.

    Raises:
        IsolationUnavailable: the sandbox is incomplete and CRITIC_LOOP_REQUIRE_ISOLATION=1,
            or its program is gone.
    """
    await asyncio.to_thread(sandbox.ensure_isolation)
    problem = await asyncio.to_thread(test_file_problem, criterion)
    if problem is not None:
        return _broken_tests(problem)
    return verdict(criterion, await arun_suite(criterion, draft))
