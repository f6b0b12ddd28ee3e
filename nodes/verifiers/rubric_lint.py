"""A rubric linter: judged criteria that code could decide, and criteria too vague to grade.

`lint_rubric` reports each `llm` criterion as checkable (with the deterministic criterion
that decides it, `proposal`) or vague (with a rewrite to consider); with `Context.lint_checks`
the critic grades such criteria by the proposed check (`decided_by_code`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from pydantic import TypeAdapter

from critic_loop.state.rubric import LANGUAGES, AnyCriterion, CriterionBase

NUMBER_WORDS = {  # numbers a criterion may spell out
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "twelve": 12, "twenty": 20,
}  # fmt: skip

NUMBER = r"(\d+|" + "|".join(NUMBER_WORDS) + r")"


@dataclass(frozen=True)
class LintFinding:
    """What the linter found in one criterion."""

    criterion_id: str
    problem: Literal["checkable", "vague"]
    message: str
    proposal: dict[str, Any] | None = None
    """A deterministic criterion (rubric JSON) that decides it, when there is one."""

    def as_json(self) -> dict[str, Any]:
        """Return the finding as JSON data."""
        found = asdict(self)
        return {"criterion": found.pop("criterion_id"), **found}


def _number(text: str) -> int:
    return int(text) if text.isdigit() else NUMBER_WORDS[text]


Found = tuple[str, dict[str, Any] | None]  # a message, and the check's fields (no id)


def _limit(unit: str, kind: str) -> Callable[[str], Found | None]:
    most = re.compile(
        rf"\b(at most|no more than|fewer than|less than|under|up to|maximum of|not exceed)\s+"
        rf"{NUMBER}\s+{unit}"
    )
    least = re.compile(
        rf"\b(at least|no fewer than|no less than|(?<!no )more than|minimum of)\s+{NUMBER}\s+{unit}"
    )
    between = re.compile(rf"\bbetween\s+{NUMBER}\s+and\s+{NUMBER}\s+{unit}")

    def rule(text: str) -> Found | None:
        bounds: dict[str, int] = {}
        if found := between.search(text):
            bounds = {"min": _number(found[1]), "max": _number(found[2])}
        if found := most.search(text):
            strict = found[1] in ("fewer than", "less than", "under")
            bounds["max"] = _number(found[2]) - (1 if strict else 0)
        if found := least.search(text):
            bounds["min"] = _number(found[2]) + (1 if found[1] == "more than" else 0)
        return (f"a {unit[:4]} count: code counts it", {"kind": kind, **bounds}) if bounds else None

    return rule


LIMITS = (_limit("words", "word_count"), _limit("characters", "char_count"))


QUOTED = r"""["“'‘`]([^"”'’`]{1,80})["”'’`]"""
PRESENT = re.compile(
    r"\b(contains|includes|mentions|uses|says|states|has)\s+(?:the\s+(?:word|phrase|text|line)\s+)?"
    + QUOTED
)
ABSENT = re.compile(
    r"\b(?:does not|doesn't|do not|never)\s+(?:contain|include|mention|use|say)\s+"
    r"(?:the\s+(?:word|phrase|text)\s+)?" + QUOTED + r"|\b(?:avoids|without)\s+" + QUOTED
)
ENDS = re.compile(r"\bends with\s+(?:the\s+(?:word|phrase|line)\s+)?" + QUOTED)
STARTS = re.compile(r"\b(?:starts|begins) with\s+(?:the\s+(?:word|phrase)\s+)?" + QUOTED)


PHRASES: list[tuple[re.Pattern[str], str, Callable[[str], dict[str, Any]]]] = [
    (
        ABSENT,
        "the absence of {!r}: code searches for it",
        lambda p: dict(kind="regex", pattern=re.escape(p), must_match=False, ignore_case=True),
    ),
    (
        ENDS,
        "how it ends ({!r}): code checks it",
        lambda phrase: {"kind": "regex", "pattern": re.escape(phrase) + r"\W*\Z"},
    ),
    (
        STARTS,
        "how it starts ({!r}): code checks it",
        lambda phrase: {"kind": "regex", "pattern": r"\A\W*" + re.escape(phrase)},
    ),
    (PRESENT, "the phrase {!r}: code finds it", lambda p: {"kind": "contains", "phrases": [p]}),
]
"""Criteria about a quoted phrase: (pattern, message, proposal for the phrase), in order."""


def _phrase(text: str, original: str) -> Found | None:
    for pattern, message, proposal in PHRASES:
        if found := pattern.search(text):
            start, end = found.span(found.lastindex or 0)
            phrase = original[start:end]  # as the criterion writes it
            return message.format(phrase), proposal(phrase)
    return None


SIMPLE: list[tuple[re.Pattern[str], str, dict[str, Any] | None]] = [
    (
        re.compile(r"\b(no|not use an?|does not use an?|without an?)\s+exclamation marks?"),
        "an exclamation mark: code finds it",
        {"kind": "regex", "pattern": "!", "must_match": False},
    ),
    (
        re.compile(r"\b(contains|has|uses|ends with) an? (question|exclamation) mark"),
        "a punctuation mark: code finds it",
        None,
    ),
    (
        re.compile(
            r"\b(asks (?:(?:the|a|its|their) \w+ )?a question|ends with a question|is a question)\b"
        ),
        "a question: a question mark is code's test for it",
        {"kind": "regex", "pattern": r"\?"},
    ),
    (
        re.compile(r"\b(contains|has|uses) no (digits|numbers|numerals)\b"),
        "digits: code finds them",
        {"kind": "regex", "pattern": r"\d", "must_match": False},
    ),
    (re.compile(r"\b(is|as) valid json\b"), "valid JSON: code parses it", {"kind": "json"}),
    (
        re.compile(r"\bis (valid|syntactically valid|parsable) python\b|\bparses as python\b"),
        "valid Python: code parses it",
        {"kind": "python_syntax"},
    ),
    (
        re.compile(r"\bhas no todo\b|\bhas no todo comments?\b"),
        "a TODO: code searches for it",
        {"kind": "regex", "pattern": r"\bTODO\b", "must_match": False},
    ),
    (
        re.compile(r"\bdocstring has an? (returns|args|raises|examples?):? section\b"),
        "a docstring section: code finds its heading",
        None,
    ),
    (re.compile(r"\bis written in python\b"), "Python: code parses it", {"kind": "python_syntax"}),
]
"""Criteria code decides from a pattern alone: (pattern, message, proposal or None)."""

CLOSED_CLASSES: dict[str, str] = {
    "season": r"\b(spring|summer|autumn|winter)\b|\b(the|this|last|next) fall\b",
    "day of the week": r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b",
    "month": r"\b(january|february|march|april|may|june|july|august|september|october|"
    r"november|december)\b",
}
"""Classes whose members code can list: a criterion that the artifact names one is a
pattern (words like "rain" that only go with a class never match it)."""

NAMES_ONE = re.compile(
    r"\b(?:names|mentions|gives) (?:a|an|one|the) (" + "|".join(CLOSED_CLASSES) + r")\b"
)

FEATURES: list[tuple[re.Pattern[str], dict[str, Any]]] = [  # code criteria code decides
    (
        re.compile(
            r"\b(?:imports nothing|uses nothing|imports only from|uses only) (?:from )?"
            r"(?:outside )?the (?:python )?standard library\b"
        ),
        {"feature": "stdlib_only"},
    ),
    (re.compile(r"\bimports (?:a|one|at least one) module\b"), {"feature": "import"}),
    (re.compile(r"\bhas (?:a )?docstrings?\b"), {"feature": "docstring"}),
    (
        re.compile(r"\bhas (?:full )?type hints\b|\bis type[- ]annotated\b"),
        {"feature": "type_hints"},
    ),
    (
        re.compile(r"\buses an? (?:for|while)(?: or (?:for|while))? loop\b|\buses a loop\b"),
        {"feature": "loop"},
    ),
    (re.compile(r"\bcalls itself\b|\bis recursive\b"), {"feature": "recursion"}),
    (re.compile(r"\bprints (?:its|the) (?:result|output|answer)\b"), {"feature": "print"}),
    (re.compile(r"\breturns (?:its|the) (?:result|value)\b"), {"feature": "return"}),
    (re.compile(r"\bhas no comments?\b"), {"feature": "comment", "present": False}),
    (re.compile(r"\bhas (?:a|at least one) comment\b"), {"feature": "comment"}),
    (re.compile(r"\buses an? f-string\b"), {"feature": "f_string"}),
]
"""Criteria about drafted Python that its syntax tree decides: (pattern, the check's fields)."""

COUNTED_FEATURES = re.compile(
    rf"\b(?:takes|has|defines) exactly {NUMBER} (parameters|arguments|methods)\b"
)

WRITTEN_IN = re.compile(
    r"\b(?:is )?written (?:in|entirely in) ("
    + "|".join(n.lower() for n in LANGUAGES.values())
    + r")\b"
)

LINES = re.compile(rf"\b(?:has|is|in) exactly {NUMBER} lines\b")

VAGUE: dict[tuple[str, ...], str] = {  # taste to a judge, and a checkable rewrite to consider
    ("concise", "brief", "short"): "It has at most 80 words.",
    ("clear", "readable"): "Each sentence has at most 25 words.",
    ("engaging",): "It opens with a question or a concrete example.",
    ("compelling",): "It states one benefit for the reader in its first sentence.",
    ("interesting",): "It includes one concrete example.",
    ("professional",): "It contains no slang, emoji or exclamation marks.",
    ("appropriate",): "Say for whom and what it must contain.",
    ("high quality", "high-quality", "well written", "well-written", "good", "nice"): (
        "Name the properties a reader can check."
    ),
    ("polished",): "It has no spelling mistakes and no repeated words.",
    ("effective",): "Say what effect it must have, as something a reader can find.",
}


def _vague(text: str) -> str | None:
    for words, rewrite in VAGUE.items():
        for word in words:
            if re.search(rf"\b{re.escape(word)}\b", text):
                return (
                    f"{word!r} is taste to a judge; say what a reader can check, e.g. {rewrite!r}"
                )
    return None


def _checkable(text: str, original: str) -> Found | None:
    for rule in LIMITS:
        if found := rule(text):
            return found
    if found := _phrase(text, original):
        return found
    if named := NAMES_ONE.search(text):
        listed = {"kind": "regex", "pattern": CLOSED_CLASSES[named[1]], "ignore_case": True}
        return f"naming a {named[1]}: code knows them all", listed
    if counted := LINES.search(text):
        regex = r"\A(?:[^\n]*\n){" + str(_number(counted[1]) - 1) + r"}[^\n]*\n?\Z"
        return "a line count: code counts it", {"kind": "regex", "pattern": regex}
    if written := WRITTEN_IN.search(text):
        language = next(code for code, name in LANGUAGES.items() if name.lower() == written[1])
        message = f"the language it is written in ({written[1]}): a language identifier decides it"
        return message, {"kind": "language", "language": language}
    if counted := COUNTED_FEATURES.search(text):
        feature = "methods" if counted[2] == "methods" else "parameters"
        check = {"kind": "python_feature", "feature": feature, "count": _number(counted[1])}
        return f"a count of {feature}: code counts them", check
    for pattern, fields in FEATURES:
        if pattern.search(text):
            message = f"Python's {fields['feature']}: its syntax tree decides"
            return message, {"kind": "python_feature", **fields}
    return next(((m, p) for pattern, m, p in SIMPLE if pattern.search(text)), None)


def lint_criterion(criterion: CriterionBase) -> list[LintFinding]:
    """Lint one criterion (deterministic criteria are already decided by code)."""
    if criterion.deterministic:
        return []
    cid, text = criterion.id, criterion.text.lower()
    if found := _checkable(text, criterion.text):
        proposal = None if found[1] is None else {"id": cid, **found[1]}
        return [LintFinding(cid, "checkable", found[0], proposal)]
    if vague := _vague(text):
        return [LintFinding(cid, "vague", vague)]
    return []


def lint_rubric(rubric: Sequence[CriterionBase]) -> list[LintFinding]:
    """Lint every criterion of `rubric`, in rubric order."""
    return [finding for criterion in rubric for finding in lint_criterion(criterion)]


def _flag_value(value: Any) -> str:
    if isinstance(value, list):
        return "|".join(str(item) for item in value)
    return value if isinstance(value, str) else json.dumps(value)


def check_flag(proposal: dict[str, Any]) -> str:
    """Return the proposal as a `--check ID=KIND:NAME=VALUE,...` flag of `critic-loop run`."""
    settings = [
        f"{name}={_flag_value(value)}"
        for name, value in proposal.items()
        if name not in ("id", "kind")
    ]
    flag = f"--check {proposal['id']}={proposal['kind']}"
    return flag + (":" + ",".join(settings) if settings else "")


_CRITERION: TypeAdapter[Any] = TypeAdapter(AnyCriterion)


def code_check_for(criterion: CriterionBase) -> CriterionBase | None:
    """Return the linter's check for a judged criterion, keeping its id, text and weights."""
    proposal = next((f.proposal for f in lint_criterion(criterion) if f.proposal), None)
    if proposal is None:
        return None
    kept = {"text": criterion.text, "severity": criterion.severity, "weight": criterion.weight}
    check: CriterionBase = _CRITERION.validate_python({**proposal, **kept})
    return check


def decided_by_code(rubric: Sequence[CriterionBase]) -> list[CriterionBase]:
    """Return `rubric` with each judged criterion code can decide replaced by its check."""
    return [code_check_for(criterion) or criterion for criterion in rubric]
