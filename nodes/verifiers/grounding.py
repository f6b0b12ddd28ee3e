"""A pass from the LLM judge must point at the artifact: its evidence quotes it.

Weak judges pass criteria with evidence that is no evidence: the criterion's own sentence
("It has a docstring" for code without one), or the prompt's instructions ("The artifact
is everything between the two markers"). A pass is accepted only when its evidence
contains words found in the artifact: a quotation (in double quotes, curly quotes,
backticks or single quotes), or, unquoted, a run of several words the artifact has too.
The check is plain string matching (case, whitespace and the quote's edge punctuation
ignored; "..." may elide), cheap and independent of any model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

QUOTED = re.compile(r'"([^"\n]+)"|“([^”\n]+)”|`([^`\n]+)`|(?<!\w)\'([^\'\n]+)\'(?!\w)')
"""A quotation in evidence: the text between a pair of quote marks."""

ELLIPSIS = re.compile(r"\.\.\.|…")
"""Where a quotation elides part of the artifact."""

UNQUOTED_WORDS = 5
"""An unquoted run of this many of the artifact's words also grounds evidence."""

SHORTEST_FRAGMENT = 3
"""Quoted fragments shorter than this (in characters) prove nothing, unless they are the
whole artifact."""


def _normal(text: str) -> str:
    """Lower case without any whitespace: spacing never decides whether a quote matches."""
    return "".join(text.lower().split())


def _fragments(quote: str, whole: str) -> list[str]:
    pieces = [_normal(piece.strip(" .,;:!?\"'()[]")) for piece in ELLIPSIS.split(quote)]
    return [piece for piece in pieces if len(piece) >= SHORTEST_FRAGMENT or piece == whole]


def _quotes(evidence: str) -> list[str]:
    return [next(group for group in match.groups() if group) for match in QUOTED.finditer(evidence)]


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def grounded(evidence: str, artifact: str) -> bool:
    """Tell whether `evidence` quotes `artifact` (see the module docstring)."""
    haystack = _normal(artifact)
    for quote in _quotes(evidence):
        fragments = _fragments(quote, haystack)
        if fragments and all(fragment in haystack for fragment in fragments):
            return True
    words, artifact_words = _words(evidence), " ".join(_words(artifact))
    return any(
        " ".join(words[start : start + UNQUOTED_WORDS]) in artifact_words
        for start in range(len(words) - UNQUOTED_WORDS + 1)
    )


def ungrounded_passes(passes: Sequence[tuple[str, str]], artifact: str) -> list[str]:
    """Say why each (criterion id, evidence) pass is not grounded in the artifact."""
    return [
        f"criterion {criterion_id!r} passed without quoting the artifact: a pass must "
        "quote, in double quotes, the words of the artifact that show it"
        for criterion_id, evidence in passes
        if not grounded(evidence, artifact)
    ]
