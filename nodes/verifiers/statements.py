"""A criterion's sentence read as grammar: asked as a question, or told as an instruction.

"It names a season." is asked "Does it name a season?" (the judge's yes/no look) and, when a
draft fails it, told to the worker as "Name a season." (a requirement the task never stated
reaches the worker only as its hint). Plain string rules; anything else is said as it is.
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


def _parts(statement: str) -> tuple[str, str, str, str] | None:
    # (the sentence without its stop, subject lowercased, verb lowercased, the rest)
    text = " ".join(statement.split()).rstrip(".!").strip()
    found = _SUBJECT.match(text)
    if not found:
        return None
    subject = found[1][0].lower() + found[1][1:]
    return text, subject, found[2].lower(), found[3]


def as_question(statement: str) -> str:
    """Ask "It names a season." as "Does it name a season?"; else "Is it true that ...?"."""
    text = " ".join(statement.split()).rstrip(".!").strip()
    parts = _parts(statement)
    if parts is not None:
        _, subject, verb, rest = parts
        tail = f" {rest}" if rest else ""
        if verb in _BE:
            return f"{verb.capitalize()} {subject}{tail}?"
        base = _base_form(verb)
        if base is not None:
            return f"Does {subject} {base}{tail}?"
    return f"Is it true that {text[:1].lower() + text[1:]}?"


def as_instruction(statement: str) -> str:
    """Tell "It gives the date." as "Give the date."; else "Make sure your text ..."."""
    text = " ".join(statement.split()).rstrip(".!").strip()
    parts = _parts(statement)
    if parts is None:
        possessive = re.match(r"^its\s+", text, re.IGNORECASE)
        if possessive:
            return f"Make sure your text's {text[possessive.end() :]}."
        return f"Make sure of this: {text}."
    _, subject, verb, rest = parts
    tail = f" {rest}" if rest else ""
    base = _base_form(verb)
    if subject == "it" and verb not in _BE | _STATIVE and base is not None:
        return f"{base.capitalize()}{tail}."
    who = "your text" if subject == "it" else subject
    return f"Make sure {who} {verb}{tail}."
