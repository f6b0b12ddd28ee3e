"""Judged criteria code can rule out for a draft, before any judge is asked.

- **The specifics it names**: "It gives the day and time: Tuesday at 7 pm." fails a draft
  without Tuesday and 7. Values are quoted phrases, day and month names, and numbers with a
  unit, currency or time/date shape; counts, bare numbers, examples ("such as 3 May") and
  criteria about absence name nothing a draft must hold.
- **A statement takes words**: three words or fewer ("hash map") say, explain or give nothing,
  though they can name something ("Paris"). A small judge passes topic words on topic.
"""

from __future__ import annotations

import re

from critic_loop.nodes.verifiers.statements import as_instruction
from critic_loop.state.rubric import CriterionBase
from critic_loop.state.verdict import CheckResult

_NAMES = {  # not "may": a verb too
    *("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
    *("january", "february", "march", "april", "june", "july", "august", "september"),
    *("october", "november", "december"),
}
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
_VALUE = re.compile(  # a number that is a value: a time, a date, a price, a measure
    r"(?:[$€£]\s?)(\d+(?:[.,]\d+)?)"
    r"|(\d{1,2}:\d{2}|\d{1,2}[./]\d{1,2}[./]\d{2,4})"
    r"|(\d+(?:[.,]\d+)?)\s?(?:[ap]\.?m\b\.?|%|°|(?:ml|cl|l|g|kg|mg|mm|cm|m|km|mph|gb|mb|tb|"
    r"eur|usd|gbp|€|\$|£|dollars?|euros?|pounds?|hours?|minutes?|seconds?|days?|weeks?|"
    r"months?|years?|litres?|liters?|grams?|kilos?|metres?|meters?)(?!\w))",
    re.IGNORECASE,
)
_ABSENCE = re.compile(r"\b(?:not|no|never|without|nothing|none|neither|nor|avoids?)\b", re.I)
_QUOTED = re.compile(r'"([^"]{2,80})"|“([^”]{2,80})”')
_SPOKEN = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def specifics(statement: str) -> list[str]:
    """Return what `statement` names that a draft meeting it must hold."""
    text = re.split(r"\b(?:such as|for example|e\.g\.|like)\b", statement, maxsplit=1)[0]
    if _ABSENCE.search(text):
        return []
    named = [n[0] or n[1] for n in _QUOTED.findall(text)]
    text = _QUOTED.sub(" ", text)
    named += [next(group for group in found.groups() if group) for found in _VALUE.finditer(text)]
    named += [word for word in re.findall(r"[A-Za-z]+", text) if word.lower() in _NAMES]
    return named


def _holds(artifact: str, named: str) -> bool:
    lowered = artifact.lower()
    if not _NUMBER.fullmatch(named):
        return re.search(rf"(?<!\w){re.escape(named.lower())}", lowered) is not None
    digits = re.split(r"[.,:]", named)  # 49,90 is 49.90; 14:30 is 14.30
    pattern = r"[.,:\s]?".join(re.escape(part) for part in digits)
    if re.search(rf"(?<![\d.,]){pattern}(?![\d])", lowered):
        return True
    spoken = int(named) if named.isdigit() and int(named) < len(_SPOKEN) else None
    return spoken is not None and re.search(rf"\b{_SPOKEN[spoken]}\b", lowered) is not None


NAMING = {"names", "mentions", "is", "are", "has", "contains", "uses", "ends", "starts", "begins"}
FEWEST_STATING_WORDS = 4


def _states(statement: str) -> bool:
    # "It explains ...", "It says ...": a statement; "It names ...", "It is ...": a name or a form
    found = re.match(r"^(?:it|the \w+|this \w+|its \w+)\s+(\w+)", statement.strip(), re.I)
    return found is not None and found[1].lower() not in NAMING


def ruled_out(criterion: CriterionBase, artifact: str, small_judge: bool) -> CheckResult | None:
    """Say why code rules the criterion out for `artifact` (statements: `small_judge`), or None."""
    missing = [named for named in specifics(criterion.text) if not _holds(artifact, named)]
    words = len(artifact.split())
    if missing:
        said = ", ".join(repr(named) for named in missing)
        evidence = f"Not met: the draft does not have {said}, which the criterion names."
    elif small_judge and _states(criterion.text) and words < FEWEST_STATING_WORDS:
        evidence = f"Not met: a draft of {words} word(s) states nothing of the kind."
    else:
        return None
    return CheckResult(passed=False, evidence=evidence, hint=as_instruction(criterion.text))
