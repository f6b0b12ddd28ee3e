"""The memory of all the processes of one test run is held to one total.

The drafted code starts three processes that each try to hold 700 MB at once.
Under the default total (CRITIC_LOOP_SANDBOX_MEMORY_MB) they cannot, however much memory
the run asks for each process; with a total large enough, the same code holds all three,
so what stops them is the total. The run's events say how the total is enforced.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from critic_loop.graphs.app import build_graph
from critic_loop.nodes.verifiers.checks.test_suite import run_test_suite
from critic_loop.sandbox import isolation as sandbox
from critic_loop.sandbox import memory_bound
from critic_loop.sandbox.isolation import Isolation, Limits
from critic_loop.state.operator_settings import OperatorSettings, operator_settings
from critic_loop.state.rubric import TestSuite
from tests.support.contexts import scripted_context

pytestmark = pytest.mark.integration

MIB = 1024 * 1024

HOLDS_THREE = """
import subprocess, sys

HOLD = (
    "import sys, time\\n"
    "block = bytearray(700 * 1024 * 1024)\\n"
    "block[::4096] = b'x' * len(block[::4096])\\n"  # touched: really held
    "print('held', flush=True)\\n"
    "time.sleep(30)\\n"
)


def hold_three():
    started = [
        subprocess.Popen([sys.executable, "-c", HOLD], stdout=subprocess.PIPE)
        for _ in range(3)
    ]
    try:
        return [process.stdout.readline() == b"held\\n" for process in started]
    finally:
        for process in started:
            process.kill()
            process.wait()
"""
"""The drafted code: it starts three processes that each hold 700 MB, and says which did."""

THREE_AT_ONCE = """
from solution import hold_three

def test_three_processes_hold_700_mb_each_at_once():
    assert hold_three() == [True, True, True]
"""

ASKING_FOR_MUCH = {"memory_mb": 800, "max_processes": 5, "timeout_seconds": 60}
"""A run that asks for enough per process (an operator's run may ask above the ceilings)."""


def suite() -> TestSuite:
    return TestSuite(id="memory", kind="tests", tests=THREE_AT_ONCE, **ASKING_FOR_MUCH)


@pytest.fixture
def total(monkeypatch: pytest.MonkeyPatch):
    def set_total(megabytes: int | None) -> None:
        if megabytes is None:
            monkeypatch.delenv("CRITIC_LOOP_SANDBOX_MEMORY_MB", raising=False)
        else:
            monkeypatch.setenv("CRITIC_LOOP_SANDBOX_MEMORY_MB", str(megabytes))
        operator_settings.cache_clear()

    yield set_total
    operator_settings.cache_clear()


@pytest.fixture
def complete() -> None:
    if not sandbox.isolation().complete:
        pytest.skip("needs the complete sandbox (bubblewrap with user namespaces)")


def test_three_processes_of_700_mb_cannot_be_held_at_once_under_the_default_total(
    total, complete
) -> None:
    total(None)
    assert OperatorSettings().sandbox_memory_mb * MIB < 3 * 700 * 10**6
    result = run_test_suite(suite(), HOLDS_THREE)
    assert not result.passed, result.evidence


def test_the_same_code_holds_all_three_when_the_total_allows(total, complete) -> None:
    total(8 * 1024)  # the drafted code's and the tests' sandboxes share it
    result = run_test_suite(suite(), HOLDS_THREE)
    assert result.passed, result.evidence


def test_the_run_says_how_its_memory_is_bounded(models, total, complete) -> None:
    total(None)
    models.script("worker", HOLDS_THREE)
    criterion = {"id": "memory", "kind": "tests", "tests": THREE_AT_ONCE, **ASKING_FOR_MUCH}
    events = list(
        build_graph().stream(
            {"task": "Write nothing.", "rubric": [criterion]},
            context=scripted_context(max_iterations=1),
            stream_mode="custom",
        )
    )
    [announced] = [event for event in events if event["event"] == "sandbox"]
    assert announced["criterion"] == "memory"
    assert announced["isolation"] == "bwrap"
    expected = "cgroup" if memory_bound.delegated_cgroup(None) else "rlimit"
    assert announced["memory_bound"] == expected
    assert announced["total_mb"] == 1536
    if expected == "rlimit":  # the processes times their limit fit under the total
        assert announced["processes"] * announced["process_mb"] <= 1536
    [verdict] = [event for event in events if event["event"] == "verdict"]
    assert verdict["criteria"][0]["passed"] is False


LIMITS = Limits(
    memory_bytes=1024 * MIB,
    cpu_seconds=60,
    processes=64,
    file_bytes=64 * MIB,
    open_files=256,
    disk_bytes=256 * MIB,
)
WITH_PROCESS_LIMIT = Isolation("bwrap", "/usr/bin/bwrap", process_limit=True)


def test_process_limits_times_memory_limits_fit_under_the_total() -> None:
    bound = memory_bound.plan(LIMITS, 1024 * MIB, WITH_PROCESS_LIMIT)
    assert bound.method == "rlimit"
    assert (bound.processes, bound.process_bytes) == (8, 128 * MIB)  # processes go first
    two = memory_bound.plan(LIMITS, 1024 * MIB, WITH_PROCESS_LIMIT, sandboxes=2)
    assert 2 * two.processes * two.process_bytes <= 1024 * MIB
    assert two.process_bytes >= memory_bound.MIN_PROCESS_BYTES
    roomy = memory_bound.plan(LIMITS, 128 * 1024 * MIB, WITH_PROCESS_LIMIT)
    assert (roomy.processes, roomy.process_bytes) == (64, 1024 * MIB)  # nothing lowered
    unlimited = memory_bound.plan(LIMITS, 1024 * MIB, Isolation("none"))
    assert unlimited.method == "per-process" and unlimited.event()["total_mb"] is None


def fake_cgroup_tree(root: Path) -> Path:
    """A directory shaped like a delegated cgroup v2 (as far as files go)."""
    delegated = root / "delegated"
    delegated.mkdir()
    (delegated / "cgroup.subtree_control").write_text("memory pids\n")
    return delegated


def test_a_delegated_cgroup_holds_the_total_for_every_process_of_the_run(tmp_path: Path) -> None:
    delegated = fake_cgroup_tree(tmp_path)
    memory_bound.delegated_cgroup.cache_clear()
    try:
        bound = memory_bound.plan(LIMITS, 1024 * MIB, WITH_PROCESS_LIMIT, 2, str(delegated))
    finally:
        memory_bound.delegated_cgroup.cache_clear()
    assert bound.method == "cgroup" and bound.event()["total_mb"] == 1024
    cgroup = memory_bound.make_cgroup(bound)
    assert cgroup is not None and cgroup.parent == delegated
    assert (cgroup / "memory.max").read_text() == str(1024 * MIB)
    argv = memory_bound.started_in(cgroup, ["bwrap", "--die-with-parent"])
    assert argv[:2] == ["/bin/sh", "-c"] and argv[3] == str(cgroup / "cgroup.procs")
    assert argv[4:] == ["bwrap", "--die-with-parent"]
    for name in ("memory.max", "memory.swap.max", "pids.max"):  # the kernel's own files
        (cgroup / name).unlink(missing_ok=True)
    memory_bound.remove_cgroup(cgroup)
    assert not cgroup.exists()


def test_a_directory_without_the_memory_controller_is_not_used(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "cgroup.subtree_control").write_text("pids\n")
    assert not memory_bound.usable(plain)
    assert not memory_bound.usable(tmp_path / "missing")
