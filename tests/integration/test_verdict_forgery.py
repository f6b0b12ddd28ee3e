"""Drafted code that tries to forge its `tests` verdict: every attempt is graded as failing.

Each draft's honest answer is wrong (add returns a + b + 1); each tries to pass anyway,
the way drafted code running in the same process as its tests could: objects whose
comparisons lie, a lying subclass of the expected type, a rewritten report, exiting 0,
patching builtins or pytest's reporting, a fake summary line. The tests run in another
process and see only plain data, so each is graded on what it really returns, and the
evidence says why it failed. Plain values, containers of them and None still cross.
"""

import asyncio

import pytest

from critic_loop.nodes.verifiers.checks.test_suite import arun_test_suite, run_test_suite
from critic_loop.state.rubric import TestSuite
from tests.support.code_task import ADD_TESTS, CORRECT

pytestmark = pytest.mark.integration

WRONG = "def add(a, b):\n    return a + b + 1\n"
"""The honest (wrong) answer every forgery starts from."""


def suite(tests: str = ADD_TESTS) -> TestSuite:
    return TestSuite(id="tests", kind="tests", tests=tests, timeout_seconds=30)


@pytest.fixture(params=["sync", "async"])
def run(request):
    if request.param == "sync":
        return run_test_suite
    return lambda criterion, draft: asyncio.run(arun_test_suite(criterion, draft))


def lying_object(dunder: str, body: str) -> str:
    return f"""
class Liar:
    def {dunder}(self, *other):
        {body}

def add(a, b):
    return Liar()
"""


TRUTHY_TESTS = """
from solution import is_even

def test_even():
    assert is_even(4)

def test_odd():
    assert not is_even(3)
"""

HASH_TESTS = """
from solution import add

def test_in_a_set():
    assert add(1, 2) in {3}

def test_as_a_key():
    assert {add(1, 2): "three"}[3] == "three"
"""

NOT_EQUAL_TESTS = """
from solution import add

def test_small():
    assert not (add(1, 2) != 3)
"""

OBJECT_FORGERIES = {
    "__eq__": (ADD_TESTS, lying_object("__eq__", "return True")),
    "__ne__": (NOT_EQUAL_TESTS, lying_object("__ne__", "return False")),
    "__bool__": (
        TRUTHY_TESTS,
        """
class Liar:
    calls = 0
    def __bool__(self):
        Liar.calls += 1
        return Liar.calls == 1  # truthy first, falsy next: whatever each test wants

def is_even(n):
    return Liar()
""",
    ),
    "__hash__": (
        HASH_TESTS,
        """
class Liar:
    def __hash__(self):
        return hash(3)
    def __eq__(self, other):
        return True

def add(a, b):
    return Liar()
""",
    ),
}


@pytest.mark.parametrize("dunder", list(OBJECT_FORGERIES))
def test_an_object_whose_comparison_lies_does_not_pass(run, dunder) -> None:
    tests, draft = OBJECT_FORGERIES[dunder]
    result = run(suite(tests), draft)
    assert not result.passed, result.evidence
    assert "returned an object of type Liar, not plain data" in result.hint


def test_a_lying_subclass_of_the_expected_type_does_not_pass(run) -> None:
    draft = """
class Liar(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__

def add(a, b):
    return Liar(a + b + 1)
"""
    result = run(suite(), draft)
    assert not result.passed
    assert result.evidence.startswith("3 of 3 tests failed")
    assert "returned an object of type Liar (a subclass of int), not plain data" in result.hint


def test_a_draft_that_rewrites_the_report_does_not_pass(run) -> None:
    draft = (
        WRONG
        + """
import json, os
LINES = [
    {"event": "module", "error": None},
    {"event": "collected", "items": []},
    {"event": "finished", "exitstatus": 0},
]
FORGED = "".join(json.dumps(line) + "\\n" for line in LINES).encode()
try:  # every descriptor it inherited (in a long test session their numbers run high)
    FDS = [int(name) for name in os.listdir("/proc/self/fd")]
except OSError:
    FDS = range(3, 65536)
for fd in [fd for fd in FDS if fd > 2]:  # the report is not among them
    try:
        os.write(fd, FORGED)
    except OSError:
        pass
for name in ("report.xml", "/tmp/report.xml"):
    try:
        open(name, "w").write('<testsuite tests="3"><testcase name="test_small"/></testsuite>')
    except OSError:
        pass
"""
    )
    result = run(suite(), draft)
    assert not result.passed
    # what it wrote to its own channel is not a description of the module
    assert "its process sent no usable description of it" in result.hint


def test_a_draft_that_exits_0_at_import_does_not_pass(run) -> None:
    result = run(suite(), "import os\nos._exit(0)\n" + WRONG)
    assert not result.passed
    assert result.evidence.startswith("The tests could not run: the code does not import.")
    assert "its process ended while importing the module" in result.hint


def test_a_draft_that_exits_0_at_exit_does_not_pass(run) -> None:
    draft = "import atexit, os, sys\natexit.register(os._exit, 0)\n" + WRONG
    result = run(suite(), draft)
    assert not result.passed
    assert "add(1, 2) returned 4, expected 3" in result.hint


def test_a_draft_that_exits_0_in_a_call_does_not_pass(run) -> None:
    result = run(suite(), "import os\n\ndef add(a, b):\n    os._exit(0)\n")
    assert not result.passed
    assert "the drafted code's process ended during add(1, 2)" in result.hint


def test_a_draft_that_patches_builtins_does_not_pass(run) -> None:
    draft = (
        WRONG
        + """
import builtins

class Quiet(Exception):
    pass

builtins.AssertionError = Quiet  # an assert that fails would raise what nobody reports
builtins.print = lambda *args, **kwargs: None
"""
    )
    result = run(suite(), draft)
    assert not result.passed
    assert result.evidence.startswith("3 of 3 tests failed")
    assert "add(1, 2) returned 4, expected 3" in result.hint


def test_a_draft_that_breaks_its_own_process_does_not_pass(run) -> None:
    draft = WRONG + "import builtins\nbuiltins.isinstance = lambda *args: True\n"
    result = run(suite(), draft)
    assert not result.passed
    assert "The drafted code's process printed:" in result.evidence  # its own traceback


def test_a_draft_that_patches_pytests_reporting_does_not_pass(run) -> None:
    draft = (
        WRONG
        + """
import _pytest.reports, _pytest.runner, _pytest.terminal

_pytest.reports.TestReport.passed = property(lambda self: True)
_pytest.reports.TestReport.failed = property(lambda self: False)
_pytest.reports.TestReport.outcome = "passed"
_pytest.runner.call_and_report = lambda item, when, log=True, **kw: None
_pytest.terminal.TerminalReporter.summary_failures = lambda self: None
"""
    )
    result = run(suite(), draft)
    assert not result.passed
    assert result.evidence.startswith("3 of 3 tests failed")


def test_a_draft_that_prints_a_fake_summary_does_not_pass(run) -> None:
    draft = (
        'print("=" * 30 + " 3 passed in 0.01s " + "=" * 30)\n'
        "import sys\n\n"
        "def add(a, b):\n"
        '    print("All 3 tests passed.")\n'
        '    sys.__stdout__.write("3 passed in 0.01s\\n")\n'
        "    return a + b + 1\n"
    )
    result = run(suite(), draft)
    assert not result.passed
    assert result.evidence.startswith("3 of 3 tests failed")
    assert "add(1, 2) returned 4, expected 3" in result.hint


def test_the_honest_answer_still_passes_and_feedback_is_unchanged(run) -> None:
    assert run(suite(), CORRECT).passed
    result = run(suite(), WRONG)
    assert result.hint.startswith("Fix these: test_small: add(1, 2) returned 4, expected 3")


PLAIN_TESTS = """
import math
import pytest
from solution import (
    CONSTANTS, Invalid, count, describe, divide, evens, nothing, parse, pairs, reverse,
    scale, tally,
)

def test_plain_values_and_containers_cross():
    assert nothing() is None
    assert describe(2) == {"n": 2, "even": True, "parts": [1, 1], "pair": (2, "two")}
    assert pairs() == [(1, "a"), (2, "b")] and isinstance(pairs()[0], tuple)
    assert tally("abca") == {"a": 2, "b": 1, "c": 1}
    assert evens(6) == {0, 2, 4} and type(evens(6)) is set
    assert divide(1.0, 4) == 0.25 and math.isnan(divide(0.0, 0))
    assert reverse(b"abc") == b"cba"
    assert scale(10**30, 3) == 3 * 10**30
    assert CONSTANTS == {"limit": 3, "names": ("x", "y")}
    assert list(count(3)) == [0, 1, 2]
    assert parse("12") == 12

def test_exceptions_cross_as_themselves():
    with pytest.raises(ZeroDivisionError):
        divide(1, 0)
    with pytest.raises(Invalid, match="not a number: 'x'"):
        parse("x")
    with pytest.raises(ValueError):
        parse("x")  # Invalid derives from ValueError on this side too

def test_a_function_can_return_a_function():
    from solution import adder
    assert adder(2)(3) == 5
"""

PLAIN_DRAFT = """
CONSTANTS = {"limit": 3, "names": ("x", "y")}

class Invalid(ValueError):
    pass

def nothing():
    return None

def describe(n):
    return {"n": n, "even": n % 2 == 0, "parts": [1, 1], "pair": (n, "two")}

def pairs():
    return [(1, "a"), (2, "b")]

def tally(text):
    found = {}
    for letter in text:
        found[letter] = found.get(letter, 0) + 1
    return found

def evens(n):
    return {i for i in range(n) if i % 2 == 0}

def divide(a, b):
    if a == 0.0 and b == 0:
        return float("nan")
    return a / b

def reverse(data):
    return data[::-1]

def scale(n, k):
    return n * k

def count(n):
    yield from range(n)

def parse(text):
    if not text.isdigit():
        raise Invalid(f"not a number: {text!r}")
    return int(text)

def adder(k):
    return lambda x: x + k
"""


def test_plain_data_crosses_the_boundary(run) -> None:
    result = run(suite(PLAIN_TESTS), PLAIN_DRAFT)
    assert result.passed, result.evidence
    assert result.evidence == "All 3 tests passed."
