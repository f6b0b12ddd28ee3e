"""Checks on the artifact's text: word and character counts, patterns, phrases, headings."""

from __future__ import annotations

import re

from critic_loop.state.rubric import CharCount, Contains, Headings, Regex, WordCount
from critic_loop.state.verdict import CheckResult

WORD = re.compile(r"\w+(?:['’-]\w+)*")
"""A word: letters or digits, with inner apostrophes or hyphens ("don't", "well-known")."""

HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
"""A Markdown ATX heading line and its title."""


def count_words(text: str) -> int:
    """Count the words of `text` (punctuation and Markdown symbols are not words)."""
    return len(WORD.findall(text))


def _within(value: int, low: int | None, high: int | None, unit: str) -> CheckResult:
    evidence = f"The draft has {value} {unit}."
    if high is not None and value > high:
        return CheckResult(
            passed=False, evidence=evidence, hint=f"Cut it to at most {high} {unit}."
        )
    if low is not None and value < low:
        return CheckResult(
            passed=False, evidence=evidence, hint=f"Expand it to at least {low} {unit}."
        )
    return CheckResult(passed=True, evidence=evidence)


def check_word_count(criterion: WordCount, draft: str) -> CheckResult:
    """Check the draft's word count against the bounds."""
    return _within(count_words(draft), criterion.min, criterion.max, "words")


def check_char_count(criterion: CharCount, draft: str) -> CheckResult:
    """Check the draft's character count against the bounds."""
    return _within(len(draft), criterion.min, criterion.max, "characters")


def _snippet(draft: str, match: re.Match[str]) -> str:
    start, end = max(0, match.start() - 30), min(len(draft), match.end() + 30)
    return draft[start:end].replace("\n", " ")


def check_regex(criterion: Regex, draft: str) -> CheckResult:
    """Check that the pattern occurs (or, with must_match false, that it does not)."""
    flags = re.MULTILINE | (re.IGNORECASE if criterion.ignore_case else 0)
    match = re.search(criterion.pattern, draft, flags)
    pattern = f"/{criterion.pattern}/"
    if criterion.must_match:
        if match:
            return CheckResult(
                passed=True, evidence=f"It matches {pattern}: {_snippet(draft, match)!r}."
            )
        return CheckResult(
            passed=False,
            evidence=f"Nothing in the draft matches {pattern}.",
            hint=f"Include text that matches {pattern}.",
        )
    if match:
        return CheckResult(
            passed=False,
            evidence=f"It matches {pattern} at {_snippet(draft, match)!r}.",
            hint=f"Remove or rewrite the text matching {pattern} (first at {match.group(0)!r}).",
        )
    return CheckResult(passed=True, evidence=f"Nothing in the draft matches {pattern}.")


def check_contains(criterion: Contains, draft: str) -> CheckResult:
    """Check that every phrase appears."""
    haystack = draft if criterion.case_sensitive else draft.lower()
    missing = [
        phrase
        for phrase in criterion.phrases
        if (phrase if criterion.case_sensitive else phrase.lower()) not in haystack
    ]
    if missing:
        listed = ", ".join(repr(phrase) for phrase in missing)
        return CheckResult(passed=False, evidence=f"Missing: {listed}.", hint=f"Include {listed}.")
    return CheckResult(passed=True, evidence=f"All {len(criterion.phrases)} phrases appear.")


def _normal(title: str) -> str:
    return " ".join(title.lower().split())


def check_headings(criterion: Headings, draft: str) -> CheckResult:
    """Check that every heading appears as a Markdown heading."""
    present = {_normal(title) for title in HEADING.findall(draft)}
    missing = [heading for heading in criterion.headings if _normal(heading) not in present]
    if missing:
        listed = ", ".join(repr(heading) for heading in missing)
        return CheckResult(
            passed=False,
            evidence=f"Missing headings: {listed}.",
            hint=f"Add Markdown headings (lines starting with '#') titled {listed}.",
        )
    return CheckResult(passed=True, evidence=f"All {len(criterion.headings)} headings appear.")
