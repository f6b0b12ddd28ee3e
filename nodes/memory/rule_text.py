"""Judge proposed rule texts: duplicates of existing rules, and copies instead of lessons.

Two texts are one rule when their content words match in any order and form, or a typo
apart, never when their numbers differ. A distilled rule must restate its lesson and use only
the words of its lessons, its task and `RULE_WORDS` (small models copy their prompt's frame).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from difflib import SequenceMatcher

from critic_loop.nodes.memory.relevance import FUNCTION_WORDS, INSTRUCTION_WORDS, STOP_WORDS, words
from critic_loop.nodes.memory.relevance import stem as _stem
from critic_loop.state.rubric import CriterionBase
from critic_loop.state.rules import MAX_RULE_WORDS

NEAR_DUPLICATE_RATIO = 0.92  # difflib's ratio of two normalized texts: a typo apart
COPIED_SPAN_WORDS = 8  # a run of as many words shared with a source is a copy
MIN_COPIED_WORDS = 4  # a shorter source is an ordinary phrase
MIN_RULE_WORDS = 2  # a terse hint ("simpler") is a note on one draft, not a rule


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
    """Tell whether `text` repeats a run of `COPIED_SPAN_WORDS` words of `source` (or all of it)."""
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


PATTERN = re.compile(r"(?<![\w/])/[^/\s](?:[^/\n]*[^/\s])?/(?![\w/])")  # as hints write it

QUOTED = re.compile(r"(?<!\w)'([^'\n]+)'(?!\w)|\"([^\"\n]+)\"|“([^”\n]+)”|‘([^’\n]+)’|`([^`\n]+)`")

NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


def anchors(text: str) -> list[str]:
    """Return what a rule restating `text` must keep: its quoted phrases and other numbers."""
    plain = PATTERN.sub(" ", text)
    quoted = [next(group for group in match.groups() if group) for match in QUOTED.finditer(plain)]
    unquoted = QUOTED.sub(" ", plain)
    return [phrase.strip() for phrase in quoted if phrase.strip()] + NUMBER.findall(unquoted)


def _mentions(text: str, phrase: str) -> bool:
    # as whole words, case and spacing ignored
    folded = " ".join(phrase.lower().split())
    before = r"(?<!\w)" if folded[:1].isalnum() else ""
    after = r"(?!\w)" if folded[-1:].isalnum() else ""
    return re.search(before + re.escape(folded) + after, " ".join(text.lower().split())) is not None


def restates(text: str, lesson: str) -> bool:
    """Tell whether rule `text` restates `lesson`: keeps its `anchors` (none: shares a word)."""
    kept = anchors(lesson)
    if kept:
        return all(_mentions(text, anchor) for anchor in kept)
    return bool(_content(words(PATTERN.sub(" ", text))) & _content(words(PATTERN.sub(" ", lesson))))


RULE_WORDS = frozenset(  # any rule may use them, beyond the words of its lessons and task
    words(
        """
        add after always avoid begin close end ensure finish first follow include instead
        keep last line mention never once put remember say sentence show start state sure
        word words
        """
    )
)


def _stems(text: str) -> set[str]:
    return {_stem(word) for word in words(PATTERN.sub(" ", text))}


def says_what_to_do(text: str, lesson: str) -> bool:
    """Tell whether `text` says more than what `lesson` quotes: an instruction, not a quote."""
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
