"""Checks on the artifact's text: word and character counts, patterns, phrases, headings."""

from __future__ import annotations

import functools
import re
from difflib import get_close_matches
from typing import Any

import regex

from critic_loop.state.operator_settings import operator_settings
from critic_loop.state.rubric import (
    LANGUAGES,
    CharCount,
    Contains,
    Headings,
    Language,
    Regex,
    WordCount,
)
from critic_loop.state.verdict import CheckResult

WORD = re.compile(r"\w+(?:['’-]\w+)*")  # with inner apostrophes or hyphens: "don't"
NEAR_MISS = " Near miss: "  # starts a hint's note on one draft's nearest text (no lesson)
NEAR_RATIO = 0.6  # difflib's ratio of a stretch of the draft to a phrase, to be named
LITERAL_PATTERN = re.compile(r"(?:\(\?[a-z]+\))?(\^|\\A)?((?:[^\\.^$*+?{}\[\]|()]|\\\W)+)(\$|\\Z)?")


def _heading_titles(text: str) -> list[str]:
    """Return the titles of the Markdown ATX headings in `text`, in linear time."""
    titles = []
    for line in text.splitlines():
        stripped = line.lstrip(" ")
        if len(line) - len(stripped) > 3:
            continue
        hashes = len(stripped) - len(stripped.lstrip("#"))
        rest = stripped[hashes:]
        if not 1 <= hashes <= 6 or not rest[:1].isspace():
            continue
        title = rest.strip()
        closing = title.rstrip("#")
        if closing != title and (not closing or closing[-1].isspace()):
            title = closing.strip()
        if title:
            titles.append(title)
    return titles


def count_words(text: str) -> int:
    """Count the words of `text` (punctuation and Markdown symbols are not words)."""
    return len(WORD.findall(text))


def _within(value: int, low: int | None, high: int | None, unit: str) -> CheckResult:
    hint = ""
    if high is not None and value > high:
        hint = f"Cut it to at most {high} {unit}."
    elif low is not None and value < low:
        hint = f"Expand it to at least {low} {unit}."
    return CheckResult(passed=not hint, evidence=f"The draft has {value} {unit}.", hint=hint)


def check_word_count(criterion: WordCount, draft: str) -> CheckResult:
    """Check the draft's word count against the bounds."""
    return _within(count_words(draft), criterion.min, criterion.max, "words")


def check_char_count(criterion: CharCount, draft: str) -> CheckResult:
    """Check the draft's character count against the bounds."""
    return _within(len(draft), criterion.min, criterion.max, "characters")


def _snippet(draft: str, match: regex.Match[str]) -> str:
    start, end = max(0, match.start() - 30), min(len(draft), match.end() + 30)
    return draft[start:end].replace("\n", " ")


def near_miss(phrase: str, draft: str, ignore_case: bool) -> str:
    """Return the stretch of `draft` closest to `phrase` if it is close but not it (else "")."""
    size, tokens = len(phrase.split()), draft.split()
    stretches = {
        " ".join(tokens[start : start + width]): None
        for width in {max(1, size - 1), size, size + 1}
        for start in range(len(tokens) - width + 1)
    }
    fold = str.lower if ignore_case else str
    by_fold = {fold(stretch): stretch for stretch in reversed(stretches)}
    found = get_close_matches(fold(phrase), by_fold, n=1, cutoff=NEAR_RATIO)
    closest = by_fold[found[0]] if found else ""
    return "" if fold(closest) == fold(phrase) else closest


def _with_near_miss(hint: str, phrase: str, draft: str, ignore_case: bool) -> str:
    near = near_miss(phrase, draft, ignore_case)
    told = f"{NEAR_MISS}{near!r} is there; it must read exactly {phrase!r}." if near else ""
    return hint + told


def _missing_hint(criterion: Regex, draft: str) -> str:
    # a pattern that is plain text (a line, when anchored at both ends) is asked for as text
    literal = LITERAL_PATTERN.fullmatch(criterion.pattern)
    if literal is None:
        return f"Include text that matches /{criterion.pattern}/."
    start, text, end = literal.groups()
    text = re.sub(r"\\(.)", r"\1", text)
    if not (start and end):
        return _with_near_miss(f"Include {text!r}.", text, draft, criterion.ignore_case)
    asked = f"Add the line {text!r} on its own."
    if text in draft:  # there, but within a longer line
        return f"{asked}{NEAR_MISS}{text!r} is there, but not on a line of its own."
    return _with_near_miss(asked, text, draft, criterion.ignore_case)


def check_regex(criterion: Regex, draft: str) -> CheckResult:
    """Check that the pattern occurs (or not); past the operator's time limit it fails."""
    pattern = f"/{criterion.pattern}/"
    limit = operator_settings().regex_timeout_seconds
    try:
        match = regex.search(criterion.pattern, draft, criterion.flags, timeout=limit)
    except TimeoutError:
        return CheckResult(
            passed=False,
            evidence=(
                f"Matching {pattern} against the draft took longer than {limit:g} s "
                "(the pattern backtracks too much on this text), so it could not be decided."
            ),
            hint="Rewrite the text this pattern is about more plainly.",
        )
    if match is None:
        hint = _missing_hint(criterion, draft) if criterion.must_match else ""
        nothing = f"Nothing in the draft matches {pattern}."
        return CheckResult(passed=not criterion.must_match, evidence=nothing, hint=hint)
    snippet = _snippet(draft, match)
    if criterion.must_match:
        return CheckResult(passed=True, evidence=f"It matches {pattern}: {snippet!r}.")
    return CheckResult(
        passed=False,
        evidence=f"It matches {pattern} at {snippet!r}.",
        hint=f"Remove or rewrite the text matching {pattern} (first at {match.group(0)!r}).",
    )


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
        hint = f"Include {listed}."
        for phrase in missing:
            hint = _with_near_miss(hint, phrase, draft, not criterion.case_sensitive)
        return CheckResult(passed=False, evidence=f"Missing: {listed}.", hint=hint)
    return CheckResult(passed=True, evidence=f"All {len(criterion.phrases)} phrases appear.")


def _normal(title: str) -> str:
    return " ".join(title.lower().split())


def check_headings(criterion: Headings, draft: str) -> CheckResult:
    """Check that every heading appears as a Markdown heading."""
    present = {_normal(title) for title in _heading_titles(draft)}
    missing = [heading for heading in criterion.headings if _normal(heading) not in present]
    if missing:
        listed = ", ".join(repr(heading) for heading in missing)
        return CheckResult(
            passed=False,
            evidence=f"Missing headings: {listed}.",
            hint=f"Add Markdown headings (lines starting with '#') titled {listed}.",
        )
    return CheckResult(passed=True, evidence=f"All {len(criterion.headings)} headings appear.")


@functools.cache  # loading the identifier takes a second; a process does it once
def _identifier() -> Any:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(list(LANGUAGES))
    return identifier


SENTENCE_WORDS = 4  # a line or sentence this long is read on its own too
SURE = 0.9  # how sure the identifier must be that such a sentence is another language


def _sentences(prose: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])\s+|\n+", prose)
    return [part for part in parts if len(re.findall(r"[^\W\d_]+", part)) >= SENTENCE_WORDS]


def check_language(criterion: Language, draft: str) -> CheckResult:
    """Identify the language of the draft's prose (py3langid, Lui and Baldwin's langid.py).

    The whole must read as the language, and so must each line or sentence of some length:
    a text half in another language is not written in this one.
    """
    prose = re.sub(r"```.*?(```|\Z)", " ", draft, flags=re.S)  # code is no language's prose
    found, share = _identifier().classify(prose) if prose.strip() else ("", 0.0)
    wanted = LANGUAGES[criterion.language]
    hint = f"Write all of it in {wanted}."
    if found != criterion.language:
        seen = LANGUAGES.get(found, "no language")
        return CheckResult(passed=False, evidence=f"It reads as {seen}, not {wanted}.", hint=hint)
    for sentence in _sentences(prose):
        other, sure = _identifier().classify(sentence)
        if other != criterion.language and sure >= SURE:
            evidence = f'"{sentence.strip()[:120]}" reads as {LANGUAGES[other]}, not {wanted}.'
            return CheckResult(passed=False, evidence=evidence, hint=hint)
    return CheckResult(passed=True, evidence=f"It reads as {wanted} ({share:.0%} sure).")
