"""Judge proposed rule texts: duplicates of existing rules, and copies instead of lessons.

Two rule texts are the same rule when, after normalization (case, punctuation and spacing
ignored), they use the same content words in any order and form ("Count the words before
answering." / "Count the words before you answer."), or differ only by a typo. Rules with
different numbers are never the same ("under 50 words" / "under 100 words"). A duplicate
is merged rather than stored twice. A proposed rule that copies the task, a draft or a
criterion verbatim is a log, not a lesson, and is refused.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from difflib import SequenceMatcher

from critic_loop.nodes.memory.content_words import STOP_WORDS, words
from critic_loop.state.rubric import CriterionBase
from critic_loop.state.rules import MAX_RULE_WORDS

NEAR_DUPLICATE_RATIO = 0.92
"""Normalized texts at least this similar (difflib ratio) count as the same rule (typos)."""

COPIED_SPAN_WORDS = 8
"""A run of this many words shared with the task, a draft or a criterion is a copy."""

MIN_COPIED_WORDS = 4
"""Sources shorter than this are ordinary phrases, not something a rule could copy."""


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > 4 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _content(tokens: list[str]) -> frozenset[str]:
    return frozenset(_stem(word) for word in tokens if word not in STOP_WORDS)


def is_near_duplicate(first: str, second: str) -> bool:
    """Tell whether two rule texts say the same thing (see the module docstring)."""
    a, b = words(first), words(second)
    if [w for w in a if w.isdigit()] != [w for w in b if w.isdigit()]:
        return False
    if a == b or _content(a) == _content(b):
        return True
    return SequenceMatcher(None, " ".join(a), " ".join(b)).ratio() >= NEAR_DUPLICATE_RATIO


def find_duplicate(text: str, rules: Mapping[str, str], exclude: str | None = None) -> str | None:
    """Return the id of a rule in `rules` (id -> text) that `text` duplicates, if any."""
    for rule_id, existing in rules.items():
        if rule_id != exclude and is_near_duplicate(text, existing):
            return rule_id
    return None


def _spans(tokens: list[str], size: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + size]) for i in range(len(tokens) - size + 1)}


def copies(text: str, source: str) -> bool:
    """Tell whether `text` repeats a run of `COPIED_SPAN_WORDS` words of `source`.

    A source shorter than that counts as copied when it appears whole (if it has at least
    `MIN_COPIED_WORDS` words).
    """
    source_words = words(source)
    size = min(COPIED_SPAN_WORDS, len(source_words))
    if size < MIN_COPIED_WORDS:
        return False
    return bool(_spans(words(text), size) & _spans(source_words, size))


def refusal(
    text: str, *, task: str, drafts: Iterable[str], rubric: Sequence[CriterionBase]
) -> str | None:
    """Say why `text` cannot be a rule (blank, too long, a copy), or None if it can."""
    tokens = words(text)
    if not tokens:
        return "the rule is empty"
    if len(tokens) > MAX_RULE_WORDS:
        return f"the rule has {len(tokens)} words; rules are at most {MAX_RULE_WORDS} words"
    if copies(text, task):
        return "the rule copies the task verbatim"
    if any(copies(text, draft) for draft in drafts):
        return "the rule copies a draft verbatim"
    for criterion in rubric:
        if copies(text, criterion.describe()):
            return f"the rule quotes criterion {criterion.id!r} verbatim"
    return None
