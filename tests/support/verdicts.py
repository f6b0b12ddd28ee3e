"""Build critic answers (verdict JSON) for scripted critics.

A pass must quote the artifact it grades (the judge's grounding rule), but a script is
written before the draft exists: passing results carry `QUOTE`, which the scripted
models replace with the start of the artifact they were sent (`quote_the_artifact`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from critic_loop.state.rubric import Criterion

QUOTE = "<<quote of the artifact>>"
"""Stands for a quotation of the graded artifact in a scripted answer."""

ARTIFACT = re.compile(r"<<<ARTIFACT (\w+)>>>\n(.*?)\n<<<END ARTIFACT \1>>>", re.DOTALL)


def quoted_start(prompt_text: str) -> str:
    """The first three words of the artifact fenced in a judge prompt (to quote as evidence)."""
    found = ARTIFACT.search(prompt_text)
    artifact = found.group(2).strip() if found else ""
    first = next((line.strip() for line in artifact.splitlines() if line.strip()), "")
    return " ".join(first.replace('"', "'").split()[:3])  # a short part, as a pass must


def quote_the_artifact(answer: Any, prompt_text: str) -> Any:
    """Return `answer` with every `QUOTE` replaced by a quotation of the prompt's artifact."""
    if QUOTE not in json.dumps(answer):
        return answer
    return json.loads(json.dumps(answer).replace(QUOTE, quoted_start(prompt_text)))


def graded(
    rubric: Sequence[Criterion | Mapping[str, str]],
    fails: Mapping[str, str] | None = None,
    *,
    claim: bool | None = None,
    feedback: str | None = None,
    terminal: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """A well-formed critic answer failing the criteria in `fails` (id -> hint).

    `terminal` (id -> reason) marks failures no revision can fix.
    """
    terminal = dict(terminal or {})
    fails = {**dict(fails or {}), **dict.fromkeys(terminal, "")}
    ids = [c.id if isinstance(c, Criterion) else c["id"] for c in rubric]
    results = [
        {
            "criterion_id": criterion_id,
            "evidence": terminal.get(criterion_id)
            or (f"evidence for {criterion_id}" if criterion_id in fails else f'It says "{QUOTE}".'),
            "passed": criterion_id not in fails,
            "terminal": criterion_id in terminal,
            "hint": fails.get(criterion_id, ""),
        }
        for criterion_id in ids
    ]
    return {
        "results": results,
        "feedback": feedback if feedback is not None else ("fix it" if fails else ""),
        "passed": (not fails) if claim is None else claim,
    }
