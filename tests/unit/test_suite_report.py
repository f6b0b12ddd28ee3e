"""A test run passes only when the harness's whole report agrees; anything else fails."""

import json

from critic_loop.sandbox.report import (
    defined_tests,
    judge,
    parse_report,
)

SOURCE = """
import pytest

def test_a():
    pass

@pytest.mark.parametrize("n", [1, 2])
def test_b(n):
    pass

class TestThing:
    def test_c(self):
        pass

def helper():
    pass
"""

COLLECTED = [
    {"nodeid": "t.py::test_a", "function": "test_a", "class": None},
    {"nodeid": "t.py::test_b[1]", "function": "test_b", "class": None},
    {"nodeid": "t.py::test_b[2]", "function": "test_b", "class": None},
    {"nodeid": "t.py::TestThing::test_c", "function": "test_c", "class": "TestThing"},
]


def report(*, collected=COLLECTED, results=None, status=0, finished=True, extra=()) -> bytes:
    lines = [{"event": "module", "error": None}, {"event": "collected", "items": collected}]
    if results is None:
        results = {item["nodeid"]: "passed" for item in collected}
    lines += [
        {"event": "result", "nodeid": nodeid, "outcome": outcome, "message": "", "traceback": ""}
        for nodeid, outcome in results.items()
    ]
    lines += list(extra)
    if finished:
        lines.append({"event": "finished", "exitstatus": status})
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def verdict(data: bytes, status: int = 0):
    parsed = parse_report(data)
    assert parsed is not None
    return judge(parsed, SOURCE, status)


def test_the_file_defines_what_pytest_collects() -> None:
    assert defined_tests(SOURCE) == ["test_a", "test_b", "test_c"]


def test_a_complete_passing_report_passes() -> None:
    judged = verdict(report())
    assert judged.passed and judged.evidence == "All 4 tests passed."


def test_a_defined_test_that_was_not_collected_fails() -> None:
    judged = verdict(report(collected=COLLECTED[:3]))
    assert not judged.passed
    assert "defines 3 test functions, but test_c was not collected" in judged.evidence


def test_a_collected_test_without_a_result_fails() -> None:
    results = {item["nodeid"]: "passed" for item in COLLECTED[:3]}
    judged = verdict(report(results=results))
    assert not judged.passed
    assert "1 of 4 collected tests have no result: test_c" in judged.evidence


def test_a_result_twice_or_for_an_unknown_test_fails() -> None:
    twice = {"event": "result", "nodeid": "t.py::test_a", "outcome": "passed"}
    twice |= {"message": "", "traceback": ""}
    assert not verdict(report(extra=[twice])).passed
    ghost = {**twice, "nodeid": "t.py::test_ghost"}
    assert not verdict(report(extra=[ghost])).passed


def test_skipped_and_expected_failures_do_not_pass() -> None:
    for outcome in ("skipped", "xfailed", "xpassed", "error", "failed"):
        results = {item["nodeid"]: "passed" for item in COLLECTED} | {"t.py::test_a": outcome}
        assert not verdict(report(results=results)).passed, outcome


def test_an_exit_status_never_passes_by_itself() -> None:
    assert not verdict(report(status=1)).passed  # the report says pytest failed
    assert not verdict(report(), status=1).passed  # the process says so


def test_a_missing_truncated_or_unreadable_report_is_unreadable() -> None:
    assert parse_report(None) is None
    assert parse_report(b"") is None
    assert parse_report(b"not json\n") is None
    assert parse_report(report()[:-5]) is None  # cut mid-line
    assert parse_report(report() + report()) is None  # lines after the end
    unfinished = parse_report(report(finished=False))
    assert unfinished is not None and unfinished.exitstatus is None  # judged as incomplete
    odd = b'{"event": "result", "nodeid": "x", "outcome": "passed-ish", "message": ""}\n'
    assert parse_report(odd) is None
