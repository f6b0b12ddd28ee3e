"""How relevant a rule is to a task: the words it shares with what the rule was learned on.

The largest cosine similarity of stemmed content words between the task and the rule's
topics or its text outside quotes. Lexical on purpose: microseconds on any store, no model.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any


def words(text: str) -> list[str]:
    """Return the lower-case words of `text`, in order (punctuation dropped)."""
    return re.findall(r"\w+", text.lower())


STOP_WORDS = frozenset(  # no lesson in them: ignored in comparing and indexing rules
    words(
        """
        a an and are as at be been by for from has have in is it its of on or that the this
        to was were will with you your yours
        """
    )
)


def content_words(text: str) -> list[str]:
    """Return the words of `text` that are not stop words, in order."""
    return [word for word in words(text) if word not in STOP_WORDS]


MAX_TOPIC_WORDS = 40  # of a task's first content words, in its topic

FUNCTION_WORDS = frozenset(  # English words that carry no topic
    words(
        """
        a about above after again against all also am an and any are as at be because been
        before being below between both but by can could did do does doing down during each
        either every few for from further had has have having he her here hers herself him
        himself his how i if in into is it its itself just let me more most much must my
        myself neither no nor not now of off on once only or other our ours ourselves out
        over own per same she should so some such than that the their theirs them themselves
        then there these they this those through to too under until up upon us very via was
        we were what when where which while who whom whose why will with within without
        would yet you your yours yourself yourselves
        """
    )
)

INSTRUCTION_WORDS = frozenset(  # words that say what to do or how much, not what the task is about
    words(
        """
        write rewrite draft create make compose produce give provide generate prepare please
        short shorter brief simple small new good nice one two three four five six seven
        eight nine ten using use
        """
    )
)


def stem(word: str) -> str:
    """Strip a common English ending, so word forms compare equal ("socks" -> "sock")."""
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > 4 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _topical(text: str) -> list[str]:
    return [
        word
        for word in words(text)
        if word not in FUNCTION_WORDS and word not in INSTRUCTION_WORDS and not word.isdigit()
    ]


def topic_of(task: str) -> str:
    """Return what a task is about, as a rule keeps it: its first distinct content words."""
    return " ".join(list(dict.fromkeys(_topical(task)))[:MAX_TOPIC_WORDS])


@functools.lru_cache(maxsize=4096)
def topic_words(text: str) -> frozenset[str]:
    """Return the stems of the content words of `text` (a task, a topic or a rule)."""
    return frozenset(stem(word) for word in _topical(text))


QUOTED = re.compile(r"(?<!\w)'[^'\n]+'(?!\w)|\"[^\"\n]+\"")  # an apostrophe starts none


def unquoted(text: str) -> str:
    """Return `text` without its quoted phrases ("Never say 'sorry'." -> "Never say .")."""
    return QUOTED.sub(" ", text)


def similarity(first: frozenset[str], second: frozenset[str]) -> float:
    """Return the cosine similarity of two word sets (0 when either is empty)."""
    if not first or not second:
        return 0.0
    return len(first & second) / math.sqrt(len(first) * len(second))


def relevance(task: frozenset[str], rule: Mapping[str, Any]) -> float:
    """Return how relevant a stored rule (its raw value) is to a task (its `topic_words`)."""
    text = rule.get("text")
    texts: list[Any] = [unquoted(text) if isinstance(text, str) else None]
    texts += rule.get("topics") or []
    return max(
        (similarity(task, topic_words(text)) for text in texts if isinstance(text, str)),
        default=0.0,
    )


def with_topic(topics: Iterable[str], topic: str, limit: int) -> list[str]:
    """Return `topics` with `topic` added last (moved there if present), the latest `limit`."""
    kept = [existing for existing in topics if existing != topic]
    return [*kept, topic][-limit:] if topic else kept[-limit:]
