"""Judge proposed rule texts: duplicates of existing rules, and copies instead of lessons.

Two rule texts are the same rule when, after normalization (case, punctuation and spacing
ignored), they use the same content words in any order and form ("Count the words before
answering." / "Count the words before you answer."), or differ only by a typo. Rules with
different numbers are never the same ("under 50 words" / "under 100 words"). A duplicate
is merged rather than stored twice. A proposed rule that copies the task, a draft or a
criterion verbatim is a log, not a lesson, and is refused.

A rule the distiller writes must restate a lesson of the run (`restates`): keep what the
lesson quotes and its numbers ("Include 'Order now'." may become "End every product
description with 'Order now'.", not "Write clearly."), or, for a lesson with nothing
quoted, share a content word with it. And it may use only the words of its lessons, of the
task and of instructions (`invented_words`): a small model told to generalise "Include
'Order now'." copies the frame of its prompt's example ("Sign every email with ..."), which
would send the worker after something no check asked for.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from difflib import SequenceMatcher

from critic_loop.nodes.memory.content_words import STOP_WORDS, words
from critic_loop.nodes.memory.relevance import FUNCTION_WORDS, INSTRUCTION_WORDS
from critic_loop.nodes.memory.relevance import stem as _stem
from critic_loop.state.rubric import CriterionBase
from critic_loop.state.rules import MAX_RULE_WORDS

NEAR_DUPLICATE_RATIO = 0.92
"""Normalized texts at least this similar (difflib ratio) count as the same rule (typos)."""

COPIED_SPAN_WORDS = 8
"""A run of this many words shared with the task, a draft or a criterion is a copy."""

MIN_COPIED_WORDS = 4
"""Sources shorter than this are ordinary phrases, not something a rule could copy."""

MIN_RULE_WORDS = 2
"""A terse hint ("simpler") is a note on one draft, not a rule."""


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
    """Say why `text` cannot be a rule (blank, one word, too long, a copy), or None if it can."""
    tokens = words(text)
    if not tokens:
        return "the rule is empty"
    if len(tokens) < MIN_RULE_WORDS:
        return "a single word is not a rule"
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


PATTERN = re.compile(r"(?<![\w/])/[^/\s](?:[^/\n]*[^/\s])?/(?![\w/])")
"""A regular expression as checks' hints write it: /pattern/."""

QUOTED = re.compile(r"(?<!\w)'([^'\n]+)'(?!\w)|\"([^\"\n]+)\"|“([^”\n]+)”|‘([^’\n]+)’|`([^`\n]+)`")
"""Text in single, double, typographic or back quotes."""

NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


def anchors(text: str) -> list[str]:
    """Return what a rule restating `text` must keep: its quoted phrases and numbers.

    Numbers inside a quoted phrase or a /pattern/ are not counted twice (or at all).
    """
    plain = PATTERN.sub(" ", text)
    quoted = [next(group for group in match.groups() if group) for match in QUOTED.finditer(plain)]
    unquoted = QUOTED.sub(" ", plain)
    return [phrase.strip() for phrase in quoted if phrase.strip()] + NUMBER.findall(unquoted)


def _mentions(text: str, phrase: str) -> bool:
    """Tell whether `text` holds `phrase` (case and spacing ignored) as whole words."""
    folded = " ".join(phrase.lower().split())
    before = r"(?<!\w)" if folded[:1].isalnum() else ""
    after = r"(?!\w)" if folded[-1:].isalnum() else ""
    return re.search(before + re.escape(folded) + after, " ".join(text.lower().split())) is not None


def restates(text: str, lesson: str) -> bool:
    """Tell whether a proposed rule `text` restates `lesson` (see the module docstring)."""
    kept = anchors(lesson)
    if kept:
        return all(_mentions(text, anchor) for anchor in kept)
    return bool(_content(words(PATTERN.sub(" ", text))) & _content(words(PATTERN.sub(" ", lesson))))


RULE_WORDS = frozenset(
    words(
        """
        add after always avoid begin close end ensure finish first follow include instead
        keep last line mention never once put remember say sentence show start state sure
        word words
        """
    )
)
"""Words any rule may use to say what to do, beyond those of its lessons and its task."""


def _stems(text: str) -> set[str]:
    return {_stem(word) for word in words(PATTERN.sub(" ", text))}


def says_what_to_do(text: str, lesson: str) -> bool:
    """Tell whether `text` says more than what `lesson` quotes: an instruction, not a quote.

    "Order now at Tidewater." restates "Include 'Order now at Tidewater'." but tells the
    worker nothing about what to do with the words.
    """
    rest = PATTERN.sub(" ", text).lower()
    for anchor in anchors(lesson):
        rest = rest.replace(" ".join(anchor.lower().split()), " ")
    return bool(_content(words(rest)))


def invented_words(text: str, lessons: Iterable[str], task: str) -> list[str]:
    """List the words of `text` found in none of `lessons`, the task or `RULE_WORDS`."""
    allowed = set().union(*(_stems(lesson) for lesson in lessons), _stems(task))
    allowed |= {_stem(word) for word in RULE_WORDS | FUNCTION_WORDS | INSTRUCTION_WORDS}
    return [
        word
        for word in dict.fromkeys(words(PATTERN.sub(" ", text)))
        if _stem(word) not in allowed and not word.isdigit()
    ]
