"""A pass from the LLM judge must quote the part of the artifact that shows it.

Weak judges pass on the criterion's own sentence or the artifact copied back whole. A pass
needs a quotation found in the artifact (case, spacing and edge punctuation aside; "..." may
elide) that points at a part of it, not (nearly) all of it. Plain string matching.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

QUOTED = re.compile(r'"([^"\n]+)"|“([^”\n]+)”|`([^`\n]+)`')
ELLIPSIS = re.compile(r"\.\.\.|…")
SHORTEST_FRAGMENT = 3  # shorter quotations prove nothing, unless they are the whole artifact
LONGEST_SHARE = 2 / 3  # a quotation of more of the artifact is not a pointer into it
ALWAYS_SHORT_WORDS = 4  # ... unless it is this many words or fewer


def _normal(text: str) -> str:  # spacing never decides whether a quote matches
    return "".join(text.lower().split())


def _fragments(quote: str) -> list[str]:
    pieces = [_normal(piece.strip(" .,;:!?\"'()[]")) for piece in ELLIPSIS.split(quote)]
    return [piece for piece in pieces if piece]


def quotations(evidence: str) -> list[str]:
    """Return what `evidence` quotes, in double quotes or backticks."""
    return [next(group for group in match.groups() if group) for match in QUOTED.finditer(evidence)]


def quote_problem(quote: str, artifact: str, short_whole: bool = True) -> str | None:
    """Say why `quote` does not point at a part of `artifact`, or None when it does.

    `short_whole=False`: all (or most) of a short artifact is no evidence by itself either
    (an extracting judge copies back "hash map" for "It explains how a hash map works").
    """
    haystack = _normal(artifact)
    fragments = _fragments(quote)
    quoted = sum(len(fragment) for fragment in fragments)
    if not fragments or (quoted < SHORTEST_FRAGMENT and fragments != [haystack]):
        return "it quotes nothing of the artifact"
    if not all(fragment in haystack for fragment in fragments):
        return "its quotation is not in the artifact (copy the words exactly)"
    short = short_whole and len(quote.split()) <= ALWAYS_SHORT_WORDS
    if not short and quoted > LONGEST_SHARE * len(haystack):
        return (
            "it quotes the whole artifact, or nearly all of it: quote only the few words "
            "that show the criterion holds"
        )
    return None


NO_QUOTATION = "it quotes nothing of the artifact in double quotes"


def _grounding_problem(evidence: str, artifact: str) -> str | None:
    problems = [quote_problem(quote, artifact) for quote in quotations(evidence)]
    if not problems:
        return NO_QUOTATION
    return None if None in problems else problems[0]


def grounded(evidence: str, artifact: str) -> bool:
    """Tell whether `evidence` holds a quotation that points at a part of `artifact`."""
    return _grounding_problem(evidence, artifact) is None


def ungrounded_passes(passes: Sequence[tuple[str, str]], artifact: str) -> list[str]:
    """Say why each (criterion id, evidence) pass is not grounded in the artifact."""
    found = [(cid, _grounding_problem(evidence, artifact)) for cid, evidence in passes]
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
