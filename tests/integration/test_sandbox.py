"""The `tests` criterion's sandbox against hostile drafted code: what the code cannot do."""

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.integration

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
