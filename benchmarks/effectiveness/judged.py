"""Judged tasks: the hidden graders of their judged sentences, and what a run declared.

A judged task's rubric holds sentences only a model can grade ("It gives the meeting day
and time: Tuesday at 7 pm."); each has a hidden grader the loop never sees, patterns that
code runs on the final draft. A grader `{"all": [...], "any": [...], "none": [...]}` passes
a text when every `all` pattern occurs, some `any` pattern occurs and no `none` pattern does
(regular expressions, case-insensitive, `^` and `$` at line ends). Each pattern becomes a
critic-loop `regex` criterion, so the graders run through the critic's own checks; their ids
are `<criterion id>:<n>`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from critic_loop import LoopState

GRADER_KEYS = ("all", "any", "none")
SEPARATOR = ":"
DEGENERATE_SHARE = 0.4
"""A final draft under this share of its run's first draft's length, failing, is degenerate."""


def judged_ids(rubric: Sequence[dict[str, Any]]) -> list[str]:
    """Return the ids of a rubric's judged criteria (kind `llm`, the default kind)."""
    return [c["id"] for c in rubric if c.get("kind", "llm") == "llm"]


def checks(rubric: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return a rubric's deterministic criteria (everything not judged)."""
    return [c for c in rubric if c.get("kind", "llm") != "llm"]


def grader_criteria(graders: dict[str, dict[str, list[str]]]) -> list[dict[str, Any]]:
    """Return the graders as critic-loop `regex` criteria, ids `<criterion id>:<n>`.

    Raises:
        ValueError: a grader has an unknown key, a pattern that is not a string, or
            neither `all` nor `any`.
    """
    criteria = []
    for criterion_id, grader in graders.items():
        unknown = sorted(set(grader) - set(GRADER_KEYS))
        patterns = [p for key in GRADER_KEYS for p in grader.get(key, [])]
        if unknown or not (grader.get("all") or grader.get("any")):
            raise ValueError(f"grader {criterion_id}: give `all` or `any` (and `none`) only")
        if not all(isinstance(p, str) and p for p in patterns):
            raise ValueError(f"grader {criterion_id}: every pattern must be a non-empty string")
        any_of = "|".join(f"(?:{p})" for p in grader.get("any", []))
        found = [*grader.get("all", []), *([any_of] if any_of else [])]
        rules = [(p, True) for p in found] + [(p, False) for p in grader.get("none", [])]
        criteria += [
            {
                "id": f"{criterion_id}{SEPARATOR}{n}",
                "kind": "regex",
                "pattern": pattern,
                "must_match": must,
                "ignore_case": True,
            }
            for n, (pattern, must) in enumerate(rules, 1)
        ]
    return criteria


def criterion_of(grader_id: str) -> str:
    """Return the judged criterion a grader's criterion id belongs to (a check: itself)."""
    return grader_id.partition(SEPARATOR)[0]


def declared_passes(state: LoopState, judged: Sequence[str]) -> list[str]:
    """Return the judged criteria the run declared its final draft passes.

    Read from the run's own answer: `open_items` lists every criterion the final draft's
    critique did not pass (all of them when it was never graded); the others it passed.
    """
    if state.final is None:
        return []
    open_ids = {item.criterion_id for item in state.open_items}
    graded = {r.criterion_id for c in state.critiques if c.verdict for r in c.verdict.results}
    return [c for c in judged if c in graded and c not in open_ids]


def first_length(state: LoopState) -> int | None:
    """Return the length in characters of the run's first draft (round 1, candidate 1)."""
    return len(state.drafts[0].text) if state.drafts else None
