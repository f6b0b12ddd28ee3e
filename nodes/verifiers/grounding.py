"""A pass from the LLM judge must quote the part of the artifact that shows it.

Weak judges pass criteria with evidence that is no evidence: the criterion's own sentence
("It has a docstring" for code without one), the prompt's instructions, or the artifact
copied back whole ("The train leaves at eight." as the evidence that a sentence is in
French). A pass is accepted only when its evidence holds a quotation that:

- is in quotation marks: double quotes (straight or curly) or backticks; words outside
  them prove nothing, however many of the artifact's words they repeat;
- is found in the artifact (case, whitespace and the quote's edge punctuation ignored;
  "..." may elide), and is not a scrap of a word or two letters;
- is short: it points at a part of the artifact, not the whole of it or nearly all of it
  (more than `LONGEST_SHARE` of its characters), unless it is a few words anyway
  (`ALWAYS_SHORT_WORDS`, for artifacts of a line or so).

The check is plain string matching, cheap and independent of any model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

QUOTED = re.compile(r'"([^"\n]+)"|“([^”\n]+)”|`([^`\n]+)`')
"""A quotation in evidence: the text between a pair of double quotes or backticks."""

ELLIPSIS = re.compile(r"\.\.\.|…")
"""Where a quotation elides part of the artifact."""

SHORTEST_FRAGMENT = 3
"""Quotations shorter than this (in characters, spaces aside) prove nothing, unless they
are the whole artifact."""

LONGEST_SHARE = 2 / 3
"""A quotation covering more than this share of the artifact is not a pointer into it."""

ALWAYS_SHORT_WORDS = 4
"""A quotation of at most this many words is short enough, whatever the artifact's size."""


def _normal(text: str) -> str:
    """Lower case without any whitespace: spacing never decides whether a quote matches."""
    return "".join(text.lower().split())


def _fragments(quote: str) -> list[str]:
    pieces = [_normal(piece.strip(" .,;:!?\"'()[]")) for piece in ELLIPSIS.split(quote)]
    return [piece for piece in pieces if piece]


def quotations(evidence: str) -> list[str]:
    """Return the quotations in `evidence` (the text inside each pair of quote marks)."""
    return [next(group for group in match.groups() if group) for match in QUOTED.finditer(evidence)]


def quote_problem(quote: str, artifact: str) -> str | None:
    """Say why `quote` does not point at a part of `artifact`, or None when it does."""
    haystack = _normal(artifact)
    fragments = _fragments(quote)
    quoted = sum(len(fragment) for fragment in fragments)
    if not fragments or (quoted < SHORTEST_FRAGMENT and fragments != [haystack]):
        return "it quotes nothing of the artifact"
    if not all(fragment in haystack for fragment in fragments):
        return "its quotation is not in the artifact (copy the words exactly)"
    if len(quote.split()) > ALWAYS_SHORT_WORDS and quoted > LONGEST_SHARE * len(haystack):
        return (
            "it quotes the whole artifact, or nearly all of it: quote only the few words "
            "that show the criterion holds"
        )
    return None


def grounded(evidence: str, artifact: str) -> bool:
    """Tell whether `evidence` holds a quotation that points at a part of `artifact`."""
    return any(quote_problem(quote, artifact) is None for quote in quotations(evidence))


NO_QUOTATION = "it quotes nothing of the artifact in double quotes"
"""Why evidence without any quotation grounds nothing."""


def grounding_problem(evidence: str, artifact: str) -> str | None:
    """Say why `evidence` does not ground a pass in `artifact`, or None when it does."""
    quotes = quotations(evidence)
    if not quotes:
        return NO_QUOTATION
    problems = [quote_problem(quote, artifact) for quote in quotes]
    if any(problem is None for problem in problems):
        return None
    return next(problem for problem in problems if problem is not None)


def ungrounded_passes(passes: Sequence[tuple[str, str]], artifact: str) -> list[str]:
    """Say why each (criterion id, evidence) pass is not grounded in the artifact."""
    found = [(cid, grounding_problem(evidence, artifact)) for cid, evidence in passes]
    return [
        (
            f"criterion {criterion_id!r} passed without quoting the artifact"
            if problem == NO_QUOTATION
            else f"criterion {criterion_id!r} passed but {problem}"
        )
        + ": a pass must quote, in double quotes, the few words of the artifact that show it"
        for criterion_id, problem in found
        if problem is not None
    ]
