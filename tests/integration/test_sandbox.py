"""The `tests` criterion's sandbox against hostile drafted code: what the code cannot do.

Each test drives the real check with a draft that attacks from inside a test, and reads
what the attack achieved back from the check's evidence (a failing assertion reports it).
"""

import asyncio
import base64
import json
import logging
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from critic_loop.nodes.verifiers.checks.test_suite import arun_test_suite, run_test_suite
from critic_loop.sandbox import isolation as sandbox
from critic_loop.state.rubric import TestSuite
from tests.support.code_task import ADD_TESTS, CORRECT

pytestmark = pytest.mark.integration

REPOSITORY = Path(__file__).resolve().parents[2]

REPORTING_TESTS = """
from solution import attack

def test_attack():
    assert False, "RES" "ULT<" + attack() + ">E" "ND"  # split: the source line shows too
"""
"""Tests that run the draft's `attack()` and report its one-line summary as the failure."""


def suite(tests: str = REPORTING_TESTS, **overrides: object) -> TestSuite:
    return TestSuite(id="tests", kind="tests", tests=tests, **overrides)


@pytest.fixture(params=["sync", "async"])
def run(request):
    if request.param == "sync":
        return run_test_suite
    return lambda criterion, draft: asyncio.run(arun_test_suite(criterion, draft))


@pytest.fixture
def complete() -> None:
    """Skip where this machine cannot isolate completely, unless CI requires it to."""
    found = sandbox.isolation()
    if found.complete:
        return
    message = f"incomplete sandbox here: {found.reason}; {'; '.join(found.missing)}"
    if os.environ.get(sandbox.REQUIRE_VARIABLE) == "1":
        pytest.fail(message)
    pytest.skip(message)


def attack_result(result) -> str:
    """The summary the draft's attack() returned, read back from the evidence."""
    found = re.search(r"RESULT<(.*?)>END", result.evidence + result.hint)
    assert found, result.evidence
    return found.group(1)


def test_drafted_code_cannot_read_files_outside_its_directory(run, complete, tmp_path) -> None:
    secret = secrets.token_hex(16)
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    planted = private / "secret.txt"
    planted.write_text(f"planted {secret}\n")
    planted.chmod(0o600)
    draft = f"""
def attack():
    outcomes = []
    for path in ({str(planted)!r}, "/etc/shadow"):
        try:
            with open(path) as file:
                outcomes.append("read:" + file.read().strip())
        except OSError as error:
            outcomes.append(type(error).__name__)
    return ",".join(outcomes)
"""
    result = run(suite(), draft)
    evidence = result.evidence + result.hint
    assert secret not in evidence
    assert "read:" not in attack_result(result)
    assert "root:" not in evidence


def test_drafted_code_cannot_write_outside_its_directory(run, complete, tmp_path) -> None:
    name = f"critic-loop-sandbox-marker-{secrets.token_hex(4)}"
    targets = [tmp_path / name, REPOSITORY / name, Path.home() / name]
    draft = f"""
import pathlib

def attack():
    outcomes = []
    for path in {[str(target) for target in targets]!r}:
        try:
            pathlib.Path(path).write_text("written")
            outcomes.append("wrote")
        except OSError as error:
            outcomes.append(type(error).__name__)
    return ",".join(outcomes)
"""
    try:
        result = run(suite(), draft)
        assert "wrote" not in attack_result(result)
        assert [target for target in targets if target.exists()] == []
    finally:
        for target in targets:
            target.unlink(missing_ok=True)


def test_drafted_code_runs_unprivileged_and_cannot_make_namespaces(run, complete) -> None:
    draft = """
import ctypes, os

def attack():
    capabilities = open("/proc/self/status").read().split("CapEff:")[1].split()[0]
    libc = ctypes.CDLL(None, use_errno=True)
    made = libc.unshare(0x10000000) == 0  # CLONE_NEWUSER: root of a namespace of its own
    return f"uid={os.getuid()} gid={os.getgid()} caps={capabilities} userns={made}"
"""
    assert attack_result(run(suite(), draft)) == (
        f"uid={sandbox.SANDBOX_UID if os.geteuid() == 0 else os.geteuid()} "
        f"gid={sandbox.SANDBOX_UID if os.geteuid() == 0 else os.getegid()} "
        "caps=0000000000000000 userns=False"
    )


FORK_BOMB = """
import os, time

def attack():
    children, error = [], "none"
    try:
        for _ in range(200):
            pid = os.fork()
            if pid == 0:
                time.sleep(30)
                os._exit(0)
            children.append(pid)
    except OSError as caught:
        error = type(caught).__name__
    for pid in children:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    return f"started={len(children)} error={error}"
"""


def test_drafted_code_cannot_start_more_processes_than_the_limit(run, complete) -> None:
    result = run(suite(), FORK_BOMB)
    started = int(re.search(r"started=(\d+)", attack_result(result)).group(1))
    assert started <= suite().max_processes == 64, attack_result(result)
    assert "error=BlockingIOError" in attack_result(result)  # EAGAIN: the limit stopped it


BIG_WRITE = """
import os

def attack():
    error = "none"
    chunk = b"x" * (1024 * 1024)
    try:
        with open("big.bin", "wb") as file:
            for _ in range(300):
                file.write(chunk)
                file.flush()
    except OSError as caught:
        error = type(caught).__name__
    return f"size={os.path.getsize('big.bin')} error={error}"
"""


def test_drafted_code_cannot_write_a_file_past_the_size_limit(run, complete) -> None:
    result = run(suite(), BIG_WRITE)
    size = int(re.search(r"size=(\d+)", attack_result(result)).group(1))
    assert size <= suite().max_file_mb * 1024 * 1024 == 64 * 1024 * 1024, attack_result(result)


def test_the_parents_secrets_do_not_reach_the_evidence_in_any_encoding(
    run, complete, monkeypatch
) -> None:
    secret = "sk-" + secrets.token_hex(12)
    monkeypatch.setenv("CRITIC_LOOP_TEST_SANDBOX_TOKEN", secret)
    dotenv = REPOSITORY / f".env.sandbox-test-{secrets.token_hex(4)}"  # the checkout's .env
    dotenv.write_text(f"CRITIC_LOOP_TEST_SANDBOX_TOKEN={secret}\n")
    dotenv.chmod(0o600)
    draft = f"""
import base64, os, pathlib

def attack():
    values = list(os.environ.values())
    for path in pathlib.Path("/proc").glob("*/environ"):
        try:
            entries = path.read_bytes().decode(errors="replace").split("\\0")
        except OSError:
            continue
        values += [entry.partition("=")[2] for entry in entries]
    try:
        values += [line.partition("=")[2] for line in open({str(dotenv)!r}).read().splitlines()]
    except OSError:
        pass
    leaked = [v[::-1] + "/" + base64.b64encode(v.encode()).decode() for v in set(values) if v]
    return " ".join(leaked)
"""
    try:
        result = run(suite(), draft)
    finally:
        dotenv.unlink()
    evidence = result.evidence + result.hint
    assert result.evidence.startswith("1 of 1 tests failed: test_attack.")
    for form in (secret, secret[::-1], base64.b64encode(secret.encode()).decode()):
        assert form not in evidence


FLOOD = """
import os

def _pipe():  # the pipe to the parent, under pytest's output capture
    for fd in sorted(map(int, os.listdir("/proc/self/fd"))):
        try:
            if os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:"):
                return fd
        except OSError:
            pass
    return 1

_out, _chunk = _pipe(), b"y" * (1024 * 1024 - 1) + b"\\n"
for _ in range(100):
    os.write(_out, _chunk)

def add(a, b):
    return a + b
"""

MEASURE = """
import asyncio, json, resource, sys
from critic_loop.nodes.verifiers.checks.test_suite import arun_test_suite, run_test_suite
from critic_loop.state.rubric import TestSuite

mode, tests, draft = sys.argv[1:]
criterion = TestSuite(id="tests", kind="tests", tests=tests)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
if mode == "sync":
    result = run_test_suite(criterion, draft)
else:
    result = asyncio.run(arun_test_suite(criterion, draft))
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"before": before, "after": after, "evidence": result.evidence}))
"""


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_flood_of_output_leaves_the_parents_memory_flat(mode) -> None:
    tests = "from solution import add\n\ndef test_add():\n    assert add(1, 2) == 3\n"
    measured = subprocess.run(
        [sys.executable, "-c", MEASURE, mode, tests, FLOOD],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    figures = json.loads(measured.stdout)
    grown_kib = figures["after"] - figures["before"]  # ru_maxrss is in KiB on Linux
    assert grown_kib < 50 * 1024, figures
    assert figures["evidence"] == "All 1 tests passed."  # read to the end


def test_there_is_no_network(run, complete) -> None:
    with socket.socket() as listener:  # reachable from here, not from the sandbox
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        draft = f"""
import socket

def attack():
    try:
        socket.create_connection(("127.0.0.1", {port}), timeout=2).close()
        return "connected"
    except OSError as error:
        return type(error).__name__
"""
        assert attack_result(run(suite(), draft)) != "connected"


def test_many_small_files_cannot_fill_the_disk(run, complete) -> None:
    draft = """
import os

def attack():
    written, error = 0, "none"
    try:
        for index in range(200):
            with open(f"file-{index}.bin", "wb") as file:
                file.write(b"z" * (1024 * 1024))
            written += 1024 * 1024
    except OSError as caught:
        error = type(caught).__name__ + ":" + os.strerror(caught.errno)
    return f"written={written} error={error}"
"""
    result = run(suite(work_dir_mb=16), draft)
    written = int(re.search(r"written=(\d+)", attack_result(result)).group(1))
    assert written <= 16 * 1024 * 1024, attack_result(result)
    assert "No space left on device" in attack_result(result)


WITHOUT_ISOLATION = {
    "no tools": {"bwrap": None, "unshare": None},
    "bwrap broken, unshare works": {"bwrap": "/bin/false", "unshare": shutil.which("unshare")},
}


@pytest.fixture(params=list(WITHOUT_ISOLATION))
def without_isolation(request, monkeypatch) -> sandbox.Isolation:
    """Pretend bubblewrap is unavailable or broken (and unshare too, or not)."""
    found = sandbox.probe(**WITHOUT_ISOLATION[request.param])
    monkeypatch.setattr(sandbox, "isolation", lambda: found)
    monkeypatch.setattr(sandbox, "_warned", set())
    return found


def test_without_isolation_a_warning_says_once_what_is_missing_and_limits_hold(
    run, without_isolation, monkeypatch, caplog
) -> None:
    monkeypatch.delenv(sandbox.REQUIRE_VARIABLE, raising=False)
    caplog.set_level(logging.WARNING, logger=sandbox.__name__)
    assert run(suite(ADD_TESTS), CORRECT).passed
    result = run(suite(), BIG_WRITE)
    size = int(re.search(r"size=(\d+)", attack_result(result)).group(1))
    assert size <= 64 * 1024 * 1024, attack_result(result)
    warnings = [record.getMessage() for record in caplog.records]
    assert len(warnings) == 1, warnings
    assert "a private view of the filesystem" in warnings[0]
    assert without_isolation.reason in warnings[0]
    unshared = "runs with PID and network namespaces (unshare)" in warnings[0]
    assert unshared == (without_isolation.mode == "unshare")


def test_with_isolation_required_an_incomplete_sandbox_is_an_error(
    run, without_isolation, monkeypatch
) -> None:
    monkeypatch.setenv(sandbox.REQUIRE_VARIABLE, "1")
    created = []
    monkeypatch.setattr(tempfile, "mkdtemp", lambda *args, **kwargs: created.append(args))
    with pytest.raises(sandbox.IsolationUnavailable, match="CRITIC_LOOP_REQUIRE_ISOLATION=1 but"):
        run(suite(ADD_TESTS), CORRECT)
    assert created == []  # nothing was prepared, let alone run


ORDINARY_DRAFT = """
import concurrent.futures, os, pathlib, tempfile

def square(x):
    return x * x

def squares(numbers):
    with concurrent.futures.ProcessPoolExecutor(2) as pool:  # semaphores in /dev/shm
        return list(pool.map(square, numbers))

def files():
    pathlib.Path("notes.txt").write_text("kept")
    with tempfile.NamedTemporaryFile() as file:
        file.write(b"x")
    return pathlib.Path("notes.txt").read_text(), os.environ["HOME"] == os.getcwd()
"""


def test_ordinary_code_still_works_inside(run, complete) -> None:
    """Processes, files and temporary files work, in the draft's sandbox and the tests'."""
    tests = """
import concurrent.futures, os, pathlib, tempfile
from solution import files, squares

def double(x):
    return 2 * x

def test_processes_files_and_temporary_files(tmp_path):
    assert squares([1, 2, 3]) == [1, 4, 9]
    assert files() == ("kept", True)
    with concurrent.futures.ProcessPoolExecutor(2) as pool:
        assert list(pool.map(double, [1, 2, 3])) == [2, 4, 6]
    pathlib.Path("notes.txt").write_text("kept")
    assert pathlib.Path("notes.txt").read_text() == "kept"
    with tempfile.NamedTemporaryFile() as file:
        file.write(b"x")
    (tmp_path / "scratch.txt").write_text("pytest's tmp_path works")
    assert os.environ["HOME"] == os.getcwd()
"""
    result = run(suite(tests), ORDINARY_DRAFT)
    assert result.passed, result.evidence
