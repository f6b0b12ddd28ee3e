"""Run a pytest suite against drafted code, with the verdict out of the drafted code's reach."""

from __future__ import annotations

import ast
import asyncio
import concurrent.futures
import importlib.util
import os
import shutil
import signal
import socket
import tempfile
import threading
from collections.abc import AsyncIterator, Coroutine
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from critic_loop.sandbox import boundary, memory_bound
from critic_loop.sandbox.bounded_run import PairFinished, run_pair
from critic_loop.sandbox.isolation import Command, Isolation, Limits, build, ensure_isolation, lost
from critic_loop.sandbox.report import Judged, defined_tests, judge, parse_report, scrub_secrets

T = TypeVar("T")

OUTPUT_TAIL = 1500  # of the end of pytest's output, in the evidence
MAX_REPORT_BYTES = 8 * 1024 * 1024  # a longer report is not read: the run fails
LIBRARY_PACKAGE = "critic_loop_boundary"  # `boundary` inside the sandboxes
SANDBOXES = 2  # harness and draft, sharing the memory total
WAIT_SECONDS = 0.05  # how often a run waiting for its turn looks for a free slot
SANDBOX_PARTS = ("tests", "draft", "library")


@dataclass(frozen=True)
class Suite:
    """A pytest file to run against drafted code, and the limits of each of its sandboxes."""

    tests: str  # the test file's source
    module: str  # the name the tests import the drafted code as
    timeout_seconds: float
    limits: Limits


@dataclass(frozen=True)
class HostLimits:
    """What the operator allows every run of this process."""

    memory_bytes: int  # all the processes of one run together
    concurrent_runs: int = 1  # the others wait for a slot
    cgroup: str | None = None  # delegated for the runs' cgroups (`memory_bound`)


class Slots:
    """A count of the runs in progress, shared by this process's threads and event loops."""

    def __init__(self) -> None:
        self.running = 0
        self._lock = threading.Lock()

    @asynccontextmanager
    async def held(self, limit: int) -> AsyncIterator[None]:
        """Hold a slot while the block runs, once fewer than `limit` runs are in progress."""
        while True:
            with self._lock:
                if self.running < limit:
                    self.running += 1
                    break
            await asyncio.sleep(WAIT_SECONDS)
        try:
            yield
        finally:
            with self._lock:
                self.running -= 1


SLOTS = Slots()


def memory_plan(limits: Limits, isolation: Isolation, host: HostLimits) -> memory_bound.MemoryBound:
    """Return how all the processes of a run with `limits` are held to the host's total."""
    return memory_bound.plan(limits, host.memory_bytes, isolation, SANDBOXES, host.cgroup)


def _unusable_tests(suite: Suite) -> str | None:  # why no draft could pass these tests
    try:
        tree = ast.parse(suite.tests)
    except SyntaxError as error:
        return f"The test file does not compile: {error.msg} at line {error.lineno}."
    except (RecursionError, MemoryError, ValueError):
        return "The test file cannot be parsed (it is nested too deeply, or not text)."
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            imported.add(node.module.split(".")[0])
    for name in sorted(imported - {suite.module}):
        if importlib.util.find_spec(name) is None:
            return f"The test file imports {name!r}, which is not installed."
    if not defined_tests(suite.tests):
        return "The test file defines no tests (functions named test_*)."
    return None


def _close(*descriptors: int) -> None:
    for descriptor in descriptors:
        with suppress(OSError):
            os.close(descriptor)


@dataclass
class _Run:
    directories: list[Path]
    cgroup: Path | None = None
    commands: list[Command] = field(default_factory=list)
    report: int = -1  # the report pipe's read end, until `run_pair` takes it

    def remove(self) -> None:
        for command in self.commands:
            command.close()
        if self.report >= 0:
            _close(self.report)
        memory_bound.remove_cgroup(self.cgroup)
        for directory in self.directories:
            shutil.rmtree(directory, ignore_errors=True)


def _pytest_arguments(suite: Suite, directory: Path, channel: int, report: int) -> list[str]:
    return [
        *("-m", "pytest", "-q", "--no-header", "-rfE", "--tb=short"),
        *("-p", "no:cacheprovider", "-p", f"{LIBRARY_PACKAGE}.plugin"),
        f"--boundary-channel={channel}",
        f"--boundary-report={report}",
        f"--boundary-module={suite.module}",
        *("--rootdir", str(directory), "-c", str(directory / "pytest.ini")),
        f"test_{suite.module}.py",
    ]


def _add_commands(run: _Run, isolation: Isolation, suite: Suite, limits: Limits) -> None:
    tests, drafted, library = run.directories
    harness_end, draft_end = socket.socketpair()
    channel, draft_channel = harness_end.detach(), draft_end.detach()
    run.report, report_write = os.pipe()
    try:
        harness = build(
            isolation,
            tests,
            limits,
            lambda inner: _pytest_arguments(suite, inner, channel, report_write),
            library=library,
        )
        run.commands.append(harness)
        draft = build(
            isolation,
            drafted,
            limits,
            lambda _: ["-m", f"{LIBRARY_PACKAGE}.artifact", str(draft_channel), suite.module],
            library=library,
        )
        run.commands.append(draft)
    except BaseException:
        _close(channel, draft_channel, report_write)
        raise
    harness.fds += [channel, report_write]
    draft.fds.append(draft_channel)
    for command in run.commands:  # every process of the run starts inside its cgroup
        command.argv = memory_bound.started_in(run.cgroup, command.argv)


def _prepare(isolation: Isolation, suite: Suite, code: str, host: HostLimits) -> _Run:
    run = _Run([Path(tempfile.mkdtemp(prefix=f"critic-loop-{p}-")) for p in SANDBOX_PARTS])
    try:
        tests, drafted, library = run.directories
        (tests / f"test_{suite.module}.py").write_text(suite.tests)
        (tests / "pytest.ini").write_text("[pytest]\n")
        (drafted / f"{suite.module}.py").write_text(code)
        package = library / LIBRARY_PACKAGE
        package.mkdir()
        for source in Path(boundary.__file__).parent.glob("*.py"):
            shutil.copyfile(source, package / source.name)
        bound = memory_plan(suite.limits, isolation, host)
        run.cgroup = memory_bound.make_cgroup(bound)
        _add_commands(run, isolation, suite, bound.applied_to(suite.limits))
    except BaseException:
        run.remove()
        raise
    return run


async def arun_suite(suite: Suite, code: str, host: HostLimits) -> Judged:
    """Judge the drafted module `code` by the tests (`IsolationUnavailable`: no sandbox for it)."""
    isolation, problem = await asyncio.to_thread(
        lambda: (ensure_isolation(), _unusable_tests(suite))
    )
    if problem is not None:
        return Judged(False, problem, terminal=True)
    async with SLOTS.held(host.concurrent_runs):
        run = await asyncio.to_thread(_prepare, isolation, suite, code, host)
        try:
            harness, draft = run.commands
            report, run.report = run.report, -1
            try:
                finished = await run_pair(
                    harness,
                    draft,
                    report_fd=report,
                    report_limit=MAX_REPORT_BYTES,
                    timeout=suite.timeout_seconds,
                )
            except (FileNotFoundError, PermissionError) as error:  # the sandbox, not the code
                raise lost(harness, error) from error
        finally:
            await asyncio.to_thread(run.remove)
    return _judged(suite, harness, draft, finished)


def run_to_end(work: Coroutine[Any, Any, T]) -> T:
    """Run `work` to its end from sync code, in a thread of its own if this one runs a loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(work)
    with concurrent.futures.ThreadPoolExecutor(1) as thread:  # this thread's loop is busy
        return thread.submit(asyncio.run, work).result()


def run_suite(suite: Suite, code: str, host: HostLimits) -> Judged:
    """Run `arun_suite` to its end from sync code (the same raises)."""
    return run_to_end(arun_suite(suite, code, host))


def _tail(output: str) -> str:
    output = scrub_secrets(output).strip()
    return output if len(output) <= OUTPUT_TAIL else "..." + output[-OUTPUT_TAIL:]


def _with_output(text: str, output: str) -> str:
    tail = _tail(output)
    return f"{text}\n{tail}" if tail else text


def _failed(text: str, output: str, hint: str) -> Judged:
    return Judged(False, _with_output(text, output), hint)


def _killed(status: int, whose: str, output: str) -> Judged:
    name = signal.Signals(-status).name
    text = f"The test run was killed by {name} (memory or CPU limit?) in {whose}."
    return _failed(text, output, "Make the code use less memory and time.")


def _judged(suite: Suite, harness: Command, draft: Command, finished: PairFinished) -> Judged:
    output, draft_output = finished.main.output, finished.helper.output
    if finished.main.returncode is None:
        return _failed(
            f"The tests did not finish within {suite.timeout_seconds:g} seconds "
            "(an endless loop or a slow algorithm?).",
            output,
            "Make sure every loop ends and the code finishes quickly.",
        )
    if finished.helper.returncode is not None:
        draft_status = draft.returncode(finished.helper.returncode)
        if draft_status < 0:
            return _killed(draft_status, "the drafted code's process", draft_output)
    status = harness.returncode(finished.main.returncode)
    if status < 0:
        return _killed(status, "the tests' process", output)
    report = parse_report(finished.report)
    if report is None or report.exitstatus is None:
        return _failed(
            f"The tests gave no complete report (pytest exit status {status}), so "
            "they count as failed.",
            output,
            "Make the module importable: fix the errors shown.",
        )
    judged = judge(report, suite.tests, status)
    if judged.passed:
        return judged
    evidence = _with_output(judged.evidence, output)
    if report.module_error is not None and draft_output.strip():
        evidence += f"\nThe drafted code's process printed:\n{_tail(draft_output)}"
    return Judged(False, evidence, judged.hint)
