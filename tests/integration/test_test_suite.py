"""The `tests` criterion: pytest against drafted code, in a sandboxed subprocess."""

import asyncio
import contextlib
import os
import secrets
import tempfile
import threading
import time
from pathlib import Path

import pytest

from critic_loop.nodes.verifiers.checks.test_suite import arun_test_suite, run_test_suite
from critic_loop.sandbox import isolation as sandbox
from critic_loop.state.rubric import TestSuite
from tests.support.code_task import ADD_TESTS, CORRECT, FAILS_TWO

pytestmark = pytest.mark.integration

TESTS = ADD_TESTS
WRONG = FAILS_TWO
RIGHT = "Here you go:\n" + CORRECT


def suite(tests: str = TESTS, **overrides) -> TestSuite:
    return TestSuite(id="tests", kind="tests", tests=tests, **overrides)


@pytest.fixture(params=["sync", "async"])
def run(request):
    if request.param == "sync":
        return run_test_suite
    return lambda criterion, draft: asyncio.run(arun_test_suite(criterion, draft))


def test_passing_code(run) -> None:
    result = run(suite(), RIGHT)
    assert result.passed, result.evidence
    assert result.evidence == "All 3 tests passed."


def test_failing_tests_are_named_in_evidence_and_hint(run) -> None:
    draft = "def add(a, b):\n    return a + b if a > 0 else 0\n"
    result = run(suite(), draft)
    assert not result.passed
    assert result.evidence.startswith("1 of 3 tests failed: test_negative.")
    assert "assert 0 == -2" in result.evidence
    assert result.hint == "Fix these: test_negative: add(-1, -1) returned 0, expected -2"


def test_an_endless_loop_times_out_inside_the_limit(run) -> None:
    draft = "def add(a, b):\n    while True:\n        pass\n"
    started = time.monotonic()
    result = run(suite(timeout_seconds=2), draft)
    assert time.monotonic() - started < 10
    assert not result.passed
    assert "did not finish within 2 seconds" in result.evidence
    assert "loop" in result.hint


def test_memory_is_limited(run) -> None:
    draft = "def add(a, b):\n    hog = bytearray(2 * 1024 ** 3)\n    return a + b\n"
    result = run(suite(memory_mb=256), draft)
    assert not result.passed
    assert "MemoryError" in result.evidence or "killed" in result.evidence


def test_a_crash_is_reported_with_its_signal(run) -> None:
    result = run(suite(), "import ctypes\n\ndef add(a, b):\n    ctypes.string_at(0)\n")
    assert not result.passed
    assert result.evidence.startswith("The test run was killed by SIGSEGV")


def test_the_parent_process_secrets_are_not_inherited(run, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-parent-secret")
    monkeypatch.setenv("CRITIC_LOOP_DATABASE_URL", "postgresql://user:pw@db/x")
    tests = """
import os, pathlib
def test_no_secrets_and_a_fresh_directory():
    assert "OPENAI_API_KEY" not in os.environ
    assert not any("CRITIC_LOOP" in name for name in os.environ)
    here = pathlib.Path.cwd()
    assert here.name.startswith("critic-loop-tests-")
    # the drafted module lives in the draft process's own directory, not beside the tests
    assert sorted(p.name for p in here.iterdir() if p.suffix == ".py") == ["test_solution.py"]
"""
    result = run(suite(tests), "x = 1\n")
    assert result.passed, result.evidence


def test_the_temporary_directories_are_removed(run, monkeypatch) -> None:
    created = []
    make = tempfile.mkdtemp

    def recording(*args, **kwargs):
        created.append(Path(make(*args, **kwargs)))
        return str(created[-1])

    monkeypatch.setattr(tempfile, "mkdtemp", recording)
    assert run(suite(), RIGHT).passed
    assert len(created) >= 2  # the draft's directory and the report's
    assert [path for path in created if path.exists()] == []


def test_code_that_does_not_import_fails_with_the_error(run) -> None:
    result = run(suite(), "def add(a, b) return a + b")
    assert not result.passed
    assert result.evidence.startswith("The tests could not run: the code does not import.")
    assert result.hint == "Make the code importable; it fails with: SyntaxError: expected ':'"


def test_a_test_file_on_disk(run, tmp_path) -> None:
    path = tmp_path / "test_add.py"
    path.write_text(TESTS)
    assert run(TestSuite(id="t", kind="tests", tests_file=str(path)), RIGHT).passed


def test_wrong_code_fails_two_of_three(run) -> None:
    result = run(suite(), WRONG)
    assert result.evidence.startswith("2 of 3 tests failed: test_small, test_large.")


@pytest.mark.parametrize(
    ("tests", "problem"),
    [
        ("def test_a(:\n    pass\n", "The test file does not compile: invalid syntax at line 1."),
        (
            "import numpy_not_here\nfrom solution import add\n\ndef test_a():\n    assert add\n",
            "The test file imports 'numpy_not_here', which is not installed.",
        ),
        ("from solution import add\nx = 1\n", "The test file defines no tests"),
    ],
)
def test_broken_tests_are_a_terminal_failure(run, tests, problem) -> None:
    result = run(suite(tests), RIGHT)
    assert not result.passed
    assert result.terminal
    assert result.evidence.startswith(problem)


def test_a_draft_that_does_not_import_is_not_terminal(run) -> None:
    result = run(suite(), "import numpy_not_here\ndef add(a, b):\n    return a + b\n")
    assert not result.passed
    assert not result.terminal
    assert "numpy_not_here" in result.hint


def require_isolation() -> None:
    """Skip where the machine cannot isolate, unless CI says isolation is required."""
    if sandbox.isolation().mode != "none":
        return
    message = "no namespaces on this machine"
    if os.environ.get("CRITIC_LOOP_REQUIRE_ISOLATION") == "1":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture
def isolated() -> None:
    require_isolation()


@pytest.mark.parametrize(
    "body",
    [
        "    import pytest\n    pytest.skip('later')\n",
        "    import unittest\n    raise unittest.SkipTest('x')\n",
    ],
    ids=["pytest.skip", "unittest.SkipTest"],
)
def test_a_draft_that_skips_its_tests_does_not_pass(run, body) -> None:
    tests = "from solution import add\n\ndef test_add():\n    assert add(1, 2) == 3\n"
    result = run(suite(tests), "def add(a, b):\n" + body)
    assert not result.passed
    assert result.evidence.startswith("1 of 1 tests failed: test_add.")
    assert "skip" in result.hint.lower()  # the draft's Skipped is its call's error


def test_a_draft_cannot_forge_the_report(run) -> None:
    forged = (
        "import os, pathlib\n"
        'xml = \'<testsuites><testsuite tests="3"><testcase name="test_small"/>'
        '<testcase name="test_negative"/><testcase name="test_large"/></testsuite></testsuites>\'\n'
        "pathlib.Path('report.xml').write_text(xml)\n"
        "os._exit(0)\n"
    )
    result = run(suite(), forged)
    assert not result.passed


def test_the_parent_environment_is_out_of_reach(run, isolated) -> None:
    import subprocess
    import sys

    holder = subprocess.Popen(  # a process of ours whose environment holds a secret
        [sys.executable, "-c", "import time; time.sleep(60)"],
        env={**os.environ, "OPENAI_API_KEY": "sk-held-by-another-process"},
    )
    try:
        tests = f"""
import os, pathlib
def test_no_view_of_other_processes():
    assert not pathlib.Path("/proc/{holder.pid}").exists()
    assert not pathlib.Path("/proc/{os.getpid()}").exists() or {os.getpid()} < 3
    assert len([p for p in os.listdir("/proc") if p.isdigit()]) < 10
"""
        assert run(suite(tests), "x = 1\n").passed
    finally:
        holder.kill()
        holder.wait()


def test_secret_values_are_scrubbed_from_evidence(run, monkeypatch) -> None:
    monkeypatch.setenv("CRITIC_LOOP_TEST_API_KEY", "sk-would-leak-12345")
    tests = "from solution import value\n\ndef test_value():\n    assert value() == 'ok'\n"
    draft = "def value():\n    return 'sk-would-leak-12345'\n"  # as if read from elsewhere
    result = run(suite(tests), draft)
    assert not result.passed
    assert "sk-would-leak-12345" not in result.evidence + result.hint
    assert "[CRITIC_LOOP_TEST_API_KEY redacted]" in result.evidence + result.hint


def test_an_escaped_grandchild_cannot_hold_the_run(run) -> None:
    draft = (
        "import os, subprocess, sys\n"
        "subprocess.Popen([sys.executable, '-c', 'import os, time; os.setsid(); time.sleep(30)'])\n"
        "def add(a, b):\n    while True:\n        pass\n"
    )
    started = time.monotonic()
    result = run(suite(timeout_seconds=2), draft)
    assert time.monotonic() - started < 10
    assert "did not finish within 2 seconds" in result.evidence


def processes_with(token: str) -> list[int]:
    """The processes of this machine whose command line holds `token`."""
    found = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit() and token.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
    return found


def test_a_timed_out_run_is_really_stopped(run) -> None:
    token = f"critic-loop-heart-{secrets.token_hex(4)}"
    draft = (
        "import subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', {token!r}])\n"
        "def add(a, b):\n"
        "    time.sleep(600)\n"
    )
    seen, stop = threading.Event(), threading.Event()

    def watch() -> None:
        while not stop.wait(0.05):
            if processes_with(token):
                seen.set()
                return

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        result = run(suite(timeout_seconds=2), draft)
    finally:
        stop.set()
        watcher.join()
    assert "did not finish within 2 seconds" in result.evidence
    assert seen.is_set()  # the child really ran...
    time.sleep(0.5)
    assert processes_with(token) == []  # ...and nothing is still running


def test_a_cancelled_run_is_stopped_at_once() -> None:
    token = f"critic-loop-cancelled-{secrets.token_hex(4)}"
    draft = (
        "import subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', {token!r}])\n"
        "def add(a, b):\n"
        "    time.sleep(600)\n"
    )

    async def cancel_once_running() -> float:
        running = asyncio.ensure_future(arun_test_suite(suite(timeout_seconds=120), draft))
        while not processes_with(token):
            await asyncio.sleep(0.05)
        cancelled_at = time.monotonic()
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running
        return time.monotonic() - cancelled_at

    assert asyncio.run(asyncio.wait_for(cancel_once_running(), 60)) < 10
    time.sleep(0.5)
    assert processes_with(token) == []  # the run's processes went with it
