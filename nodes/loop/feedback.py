"""Turn a failing verdict into the feedback the worker is allowed to see.

The one place anything passes from the critic's side to the worker's: the critic's note, what
to change (a check's hint; a failed judged criterion as an instruction) and the parts of the
draft a pass quoted, to keep. In the critic's own words, criterion ids and any run of words
covering most of a criterion's text are cut out; shorter overlaps stay ("cut it to at most
fifty words"). The judge's evidence (audit text) never reaches the worker.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from critic_loop.nodes.verifiers.grounding import quotations
from critic_loop.nodes.verifiers.statements import as_instruction
from critic_loop.state.bounds import bounded_hint
from critic_loop.state.records import WorkerFeedback
from critic_loop.state.rubric import CriterionBase
from critic_loop.state.verdict import CriterionResult, Verdict

REDACTED = "[a review requirement]"  # replaces criterion text in the critic's words
REDACTED_ID = "[a review item]"  # replaces a criterion id
MIN_REDACTED_WORDS = 3  # shorter criterion texts are ordinary words, not cut out
NEAR_WHOLE = 0.8  # a run covering this share of a criterion's text quotes it

WORD = re.compile(r"\w+")


def _quoted_spans(text: str, criterion_text: str) -> list[tuple[int, int]]:
    """Find the runs of `text` quoting `NEAR_WHOLE` of `criterion_text`'s words, in linear time."""
    words = [word.lower() for word in WORD.findall(criterion_text)]
    if len(words) < MIN_REDACTED_WORDS:
        return []
    shortest = max(MIN_REDACTED_WORDS, math.ceil(NEAR_WHOLE * len(words)))
    starts: dict[tuple[str, ...], list[int]] = {}
    for start in range(len(words) - shortest + 1):
        starts.setdefault(tuple(words[start : start + shortest]), []).append(start)
    tokens = list(WORD.finditer(text))
    lowered = [token.group().lower() for token in tokens]
    spans, position = [], 0
    while position + shortest <= len(tokens):
        longest = 0
        for start in starts.get(tuple(lowered[position : position + shortest]), []):
            length = shortest
            while (
                position + length < len(tokens)
                and start + length < len(words)
                and lowered[position + length] == words[start + length]
            ):
                length += 1
            longest = max(longest, length)
        if longest:
            spans.append((tokens[position].start(), tokens[position + longest - 1].end()))
            position += longest
        else:
            position += 1
    return spans


def _id_patterns(criterion_id: str) -> list[re.Pattern[str]]:
    patterns = [re.compile(r"\[\s*" + re.escape(criterion_id) + r"\s*\]")]
    if not criterion_id.isalpha():  # no_health_claims, c2, word-limit: clearly identifiers
        patterns.append(re.compile(r"(?<![\w-])" + re.escape(criterion_id) + r"(?![\w-])"))
    return patterns


def redact_criteria(text: str, rubric: Sequence[CriterionBase]) -> str:
    """`text` with what it quotes of the rubric (texts, ids) replaced."""
    for criterion in rubric:
        for start, end in reversed(_quoted_spans(text, criterion.describe())):
            text = text[:start] + REDACTED + text[end:]
        for pattern in _id_patterns(criterion.id):
            text = pattern.sub(REDACTED_ID, text)
    return text


def _told(
    result: CriterionResult, criterion: CriterionBase, rubric: Sequence[CriterionBase]
) -> list[str]:
    # a check's own hint (its evidence, if it gave none); a judged criterion as an instruction,
    # then the judge's own hint if it wrote one: never the judge's evidence, which is an audit
    if result.source == "check":
        return [redact_criteria(result.hint.strip() or result.evidence.strip(), rubric)]
    own = redact_criteria(result.hint.strip(), rubric)
    return [as_instruction(criterion.describe()), *([own] if own and REDACTED not in own else [])]


def worker_feedback(
    round_number: int, candidate: int, verdict: Verdict, rubric: Sequence[CriterionBase]
) -> WorkerFeedback:
    """Build the worker's feedback on a failing verdict: what to change, each once; what to keep.

    A failed judged criterion is told as an instruction ("Give the meeting time."), so a
    requirement the task never stated reaches the worker; the parts of the draft the judge
    quoted for a pass are named, to keep.
    """
    criteria = {criterion.id: criterion for criterion in rubric}
    hints = [
        bounded_hint(hint)
        for result in verdict.failing
        for hint in _told(result, criteria[result.criterion_id], rubric)
    ]
    kept = [
        quote
        for result in verdict.results
        if result.passed and result.source == "judge"
        for quote in quotations(result.evidence)[:1]
    ]
    return WorkerFeedback(
        round=round_number,
        candidate=candidate,
        summary=redact_criteria(verdict.feedback, rubric).strip(),
        hints=list(dict.fromkeys(hint for hint in hints if hint)),
        kept=list(dict.fromkeys(bounded_hint(quote) for quote in kept)),
    )
