"""Say in one short line why a test failed: which example, what came back, what was expected.

Small models revise better from "add(1, 2) returned 4, expected 3" than from pytest's
report (and paste the report into their code otherwise). The line is built from the
failing test's own source line (the assert in the test file, as pytest's short traceback
shows it) and pytest's assertion message. A call that could not cross the boundary to the
drafted code (see `boundary.plugin`) says so in its own words.
"""

from __future__ import annotations

import re

MAX_NOTE_CHARACTERS = 200
"""A note longer than this is cut."""

ASSERT_EQUAL = re.compile(r"^assert (?P<left>.+?) == (?P<right>.+)$")

BOUNDARY_ERRORS = ("NotPlainData", "DraftEnded", "DraftRaised", "BrokenReply")
"""Errors of a call across the boundary to the drafted code; their message is the note."""


def _bounded(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_NOTE_CHARACTERS else text[: MAX_NOTE_CHARACTERS - 3] + "..."


def _test_line(traceback: str) -> str:
    """Return the assert in the test file that failed, as the short traceback quotes it."""
    lines = traceback.splitlines()
    for position, line in enumerate(lines):
        if re.match(r"^\S+:\d+: in test", line) and position + 1 < len(lines):
            return lines[position + 1].strip()
    return ""


def _reported(message: str) -> list[str]:
    """Pytest's message lines, without the exception's class name."""
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    if lines and lines[0].startswith("AssertionError: "):
        lines[0] = lines[0].removeprefix("AssertionError: ")
    return lines


def describe_failure(message: str, traceback: str = "") -> str:
    """Return one short line saying why a test failed (see the module docstring)."""
    reported = _reported(message)
    if not reported:
        return ""
    error, _, said = reported[-1].partition(": ")
    if error in BOUNDARY_ERRORS:  # "add(1, 2) returned an object of type Any, not plain..."
        return _bounded(said)
    source = _test_line(traceback)
    asserted = ASSERT_EQUAL.match(source)
    found = next((m for line in reported if (m := ASSERT_EQUAL.match(line))), None)
    if asserted and found and "(" in asserted["left"]:
        return _bounded(f"{asserted['left']} returned {found['left']}, expected {found['right']}")
    if found:
        said = f" ({reported[0]})" if not reported[0].startswith("assert") else ""
        return _bounded(f"got {found['left']}, expected {found['right']}{said}")
    if source.startswith("assert") and not reported[0].startswith("assert"):
        call = asserted["left"] if asserted else source.removeprefix("assert ")
        return _bounded(f"{call} raised {reported[-1]}")
    return _bounded(reported[0])
