"""A criterion's sentence told as an instruction, for a worker whose draft failed it.

"It names a season." is told "Name a season.": a requirement the task never stated reaches
the worker only as its hint. Plain string rules; anything else is said as it is.
"""

from __future__ import annotations

import re

_SUBJECT = re.compile(r"^(it|the \w+|this \w+)\s+(\S+)\s*(.*)$", re.IGNORECASE | re.S)
_BE = {"is", "are", "was", "were", "can", "will", "should", "must", "does"}
_STATIVE = {"has", "contains", "uses", "stays", "ends", "starts", "begins", "fits"}


def _base_form(verb: str) -> str | None:
    if verb == "has":
        return "have"
    if verb.endswith("ies") and len(verb) > 4:
        return verb[:-3] + "y"
    if re.search(r"(ss|sh|ch|x|z|o)es$", verb):
        return verb[:-2]
    if verb.endswith("s") and not verb.endswith("ss"):
        return verb[:-1]
    return None


def as_instruction(statement: str) -> str:
    """Tell "It gives the date." as "Give the date."; else "Make sure your text ..."."""
    text = " ".join(statement.split()).rstrip(".!").strip()
    found = _SUBJECT.match(text)
    if found is None:
        possessive = re.match(r"^its\s+", text, re.IGNORECASE)
        if possessive:
            return f"Make sure your text's {text[possessive.end() :]}."
        return f"Make sure of this: {text}."
    subject, verb, rest = found[1][0].lower() + found[1][1:], found[2].lower(), found[3]
    tail = f" {rest}" if rest else ""
    base = _base_form(verb)
    if subject == "it" and verb not in _BE | _STATIVE and base is not None:
        return f"{base.capitalize()}{tail}."
    who = "your text" if subject == "it" else subject
    return f"Make sure {who} {verb}{tail}."
