"""Judge a test run from the harness's report (docs/test-suites.md says when it passes)."""

from __future__ import annotations

import ast
import json
import os
import re
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

OUTCOMES = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")
MAX_NAMED = 20  # failing tests the evidence names (the rest are counted)
MAX_HINT = 600
MAX_NOTE_CHARACTERS = 200
# environment variables whose values never appear in evidence or hints
SECRET_NAMES = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|DATABASE_URL|DSN", re.IGNORECASE)
ASSERT_EQUAL = re.compile(r"^assert (?P<left>.+?) == (?P<right>.+)$")
WHERE_CALL = re.compile(r"^\+\s+where (?P<value>.+?) = (?P<call>[\w.]+\(.*\))$")
TEST_FRAME = re.compile(r"^[^:\s]+:\d+: in test")
# errors of a call across the boundary to the drafted code: their message is the note
BOUNDARY_ERRORS = ("NotPlainData", "DraftEnded", "DraftRaised", "BrokenReply")


def _bounded(text: str) -> str:  # on one line and cut, its whitespace as written
    text = text.replace("\n", " ")
    return text if len(text) <= MAX_NOTE_CHARACTERS else text[: MAX_NOTE_CHARACTERS - 3] + "..."


def _written(node: ast.expr, statement: str) -> str:  # as written, or its repr if on many lines
    text = ast.get_source_segment(statement, node) or ""
    return text if "\n" not in text else ast.unparse(node)


def _asserted(traceback: str, source: str) -> tuple[str, str]:
    """Return what the failing assert tested, as written, and the left side of its `==` (or "").

    The assert is read whole from the test file, else from the line the traceback quotes.
    """
    lines = traceback.splitlines()
    frame = next((n for n, line in enumerate(lines[:-1]) if TEST_FRAME.match(line)), None)
    if frame is None:
        return "", ""
    at = int(lines[frame].split(":")[1])
    for text, line in ((source, at), (lines[frame + 1].strip(), 1)):
        with suppress(SyntaxError, ValueError, RecursionError, StopIteration):
            nodes = [node for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Assert)]
            test = next(node.test for node in nodes if node.lineno == line)
            equal = isinstance(test, ast.Compare) and [type(op) for op in test.ops] == [ast.Eq]
            left = _written(test.left, text) if isinstance(test, ast.Compare) and equal else ""
            return _written(test, text), left
    return "", ""


def _reported(message: str) -> list[str]:  # pytest's message, without "AssertionError: "
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    if lines and lines[0].startswith("AssertionError: "):
        lines[0] = lines[0].removeprefix("AssertionError: ")
    return lines


def describe_failure(message: str, traceback: str = "", source: str = "") -> str:
    """Say in one short line why a test failed, from its assert (in `source`) and pytest's words."""
    reported = _reported(message)
    if not reported:
        return ""
    error, _, said = reported[-1].partition(": ")
    if error in BOUNDARY_ERRORS:  # "add(1, 2) returned an object of type Any, not plain..."
        return _bounded(said)
    tested, left = _asserted(traceback, source)
    found = next((m for line in reported if (m := ASSERT_EQUAL.match(line))), None)
    if found and "(" in left:
        return _bounded(f"{left} returned {found['left']}, expected {found['right']}")
    if found:
        said = f" ({reported[0]})" if not reported[0].startswith("assert") else ""
        return _bounded(f"got {found['left']}, expected {found['right']}{said}")
    if tested and not reported[0].startswith("assert"):
        return _bounded(f"{left or tested} raised {reported[-1]}")
    if tested:  # pytest's last "where" names the innermost value: "where None = slugify('x')"
        where = [m for line in reported if (m := WHERE_CALL.match(line))]
        value = f": {where[-1]['call']} returned {where[-1]['value']}" if where else ""
        return _bounded(f"{tested} was false{value}")
    return _bounded(reported[0])


@dataclass(frozen=True)
class CollectedTest:
    """A test pytest collected: its node id, and the function it comes from."""

    nodeid: str
    function: str

    @property
    def name(self) -> str:  # as pytest shows it, with its parameters
        return self.nodeid.rpartition("::")[2]


@dataclass(frozen=True)
class TestOutcome:
    """One test's result: its outcome, and why it did not pass (message, short traceback)."""

    __test__ = False  # not a pytest test class

    nodeid: str
    outcome: str
    message: str = ""
    traceback: str = ""

    @property
    def passed(self) -> bool:  # skipped and expected failures do not pass
        return self.outcome == "passed"


@dataclass
class SuiteReport:
    """What the harness process reported, line by line."""

    module_error: str | None = None  # why the drafted module did not import
    collect_errors: list[str] = field(default_factory=list)
    collected: list[CollectedTest] = field(default_factory=list)
    results: dict[str, TestOutcome] = field(default_factory=dict)
    repeated: list[str] = field(default_factory=list)  # node ids reported more than once
    exitstatus: int | None = None  # from the report's last line (None: it never came)


class UnreadableReport(ValueError):
    """The report is not what the harness process writes."""


def _take(report: SuiteReport, event: Any) -> None:
    match event:
        case {"event": "module", "error": str() | None as error}:
            report.module_error = error
        case {"event": "collect_error", "message": str() as message}:
            report.collect_errors.append(message)
        case {"event": "collected", "items": list() as items}:
            for item in items:
                match item:
                    case {"nodeid": str() as nodeid, "function": str() as function}:
                        report.collected.append(CollectedTest(nodeid, function))
                    case _:
                        raise UnreadableReport("a collected test is not a node id and function")
        case {
            "event": "result",
            "nodeid": str() as nodeid,
            "outcome": str() as outcome,
            "message": str() as message,
            "traceback": str() as traceback,
        } if outcome in OUTCOMES:
            if nodeid in report.results:
                report.repeated.append(nodeid)
            report.results[nodeid] = TestOutcome(nodeid, outcome, message, traceback)
        case {"event": "finished", "exitstatus": int() as status} if type(status) is int:
            report.exitstatus = status
        case _:
            raise UnreadableReport("an unknown or malformed line")


def parse_report(data: bytes | None) -> SuiteReport | None:
    """Read the report; None when it is missing, too long or not the harness's format."""
    if not data:
        return None
    report = SuiteReport()
    try:
        for line in data.decode("utf-8").splitlines():
            if report.exitstatus is not None:
                raise UnreadableReport("lines after the end")
            _take(report, json.loads(line))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return report


def defined_tests(source: str) -> list[str]:
    """Name the test functions a test file defines, as pytest collects them (not at run time)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    names = [node.name for node in tree.body if isinstance(node, functions)]
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and (
            node.name.startswith("Test")
            or any(ast.unparse(base).endswith("TestCase") for base in node.bases)
        ):
            names += [item.name for item in node.body if isinstance(item, functions)]
    return [name for name in names if name.startswith("test")]


def scrub_secrets(text: str) -> str:
    """Replace the values of secret-looking environment variables in `text`."""
    for name, value in os.environ.items():
        if len(value) >= 6 and SECRET_NAMES.search(name) and value in text:
            text = text.replace(value, f"[{name} redacted]")
    return text


def _note(outcome: TestOutcome, source: str) -> str:
    if outcome.outcome == "skipped":
        lines = outcome.message.strip().splitlines()
        reason = lines[0].removeprefix("Skipped: ") if lines else ""
        return "skipped" + (f": {scrub_secrets(reason)}" if reason else "")
    if outcome.outcome == "xfailed":
        return "expected to fail (xfail), so it does not count as passed"
    if outcome.outcome == "xpassed":
        return "marked as expected to fail (xfail), so it does not count as passed"
    return scrub_secrets(describe_failure(outcome.message, outcome.traceback, source))


@dataclass(frozen=True)
class Judged:
    """A suite's verdict on a draft: passed or not, and the evidence and hint saying why."""

    passed: bool
    evidence: str
    hint: str = ""
    terminal: bool = False  # the tests themselves are broken: no draft can pass them


def _consistency(report: SuiteReport, defined: Sequence[str]) -> str | None:
    collected_functions = {test.function for test in report.collected}
    missing = [name for name in dict.fromkeys(defined) if name not in collected_functions]
    if missing:
        return (
            f"The test file defines {len(set(defined))} test functions, but "
            f"{', '.join(missing[:MAX_NAMED])} {'was' if len(missing) == 1 else 'were'} "
            "not collected."
        )
    nodeids = [test.nodeid for test in report.collected]
    if len(set(nodeids)) != len(nodeids) or report.repeated:
        return "The report names a test more than once."
    unreported = [nodeid for nodeid in nodeids if nodeid not in report.results]
    if unreported:
        names = ", ".join(nodeid.rpartition("::")[2] for nodeid in unreported[:MAX_NAMED])
        return f"{len(unreported)} of {len(nodeids)} collected tests have no result: {names}."
    if set(report.results) - set(nodeids):
        return "The report has results for tests that were not collected."
    return None


def judge(report: SuiteReport, source: str, status: int) -> Judged:
    """Judge a complete report, given the test file's source and pytest's exit status."""
    if report.collect_errors:
        cause = report.module_error
        if cause is None:
            lines = [line.strip() for line in report.collect_errors[-1].splitlines()]
            marked = [line[1:].strip() for line in lines if line.startswith("E ")]
            cause = (marked or [line for line in lines if line] or ["a collection error"])[-1]
        return Judged(
            False,
            "The tests could not run: the code does not import.",
            f"Make the code importable; it fails with: {scrub_secrets(cause)}",
        )
    inconsistent = _consistency(report, defined_tests(source))
    if inconsistent is not None:
        return Judged(False, f"The test run cannot be trusted: {inconsistent}")
    total = len(report.collected)
    if total == 0:
        return Judged(False, "No tests ran.")
    failing = [
        (test, report.results[test.nodeid])
        for test in report.collected
        if not report.results[test.nodeid].passed
    ]
    if failing:
        names = ", ".join(test.name for test, _ in failing[:MAX_NAMED])
        more = f" and {len(failing) - MAX_NAMED} more" if len(failing) > MAX_NAMED else ""
        failed_by_note: dict[str, list[str]] = {}  # each note once, after the tests it fails
        for test, outcome in failing[:MAX_NAMED]:
            failed_by_note.setdefault(_note(outcome, source), []).append(test.name)
        notes = "; ".join(
            ", ".join(tests) + (f": {note}" if note else "")
            for note, tests in failed_by_note.items()
        )
        return Judged(
            False,
            f"{len(failing)} of {total} tests failed: {names}{more}.",
            f"Fix these: {notes}"[:MAX_HINT],
        )
    if report.exitstatus != 0 or status != 0:
        return Judged(
            False,
            f"Every test passed, but pytest exited with status {report.exitstatus} "
            f"(the process with {status}): something else failed.",
            "Fix the errors shown.",
        )
    return Judged(True, f"All {total} tests passed.")
