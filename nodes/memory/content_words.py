"""Words of a rule or a task, as memory compares and indexes them."""

from __future__ import annotations

import re


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
