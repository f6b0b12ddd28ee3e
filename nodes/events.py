"""The progress events a run streams (LangGraph `stream_mode="custom"`).

Before round 1: "sandbox" and "lint" (from check_input), "recall"; each round: "draft" and
"verdict"; then "finished", before distillation. A budget-stopped draft or verdict says why.
"""

from __future__ import annotations

from typing import Any

from critic_loop.state.budget import Spent
from critic_loop.state.records import Critique, Draft
from critic_loop.state.rules import RecalledRule


def recall_event(rules: list[RecalledRule], scope: str) -> dict[str, Any]:
    """Describe what recall gave the worker."""
    return {"event": "recall", "scope": scope, "rules": [rule.text for rule in rules]}


def draft_event(draft: Draft) -> dict[str, Any]:
    """Describe a new draft: its round and size."""
    made = draft.model_dump(include={"round", "candidate", "origin"})
    size = {"characters": len(draft.text), "output_tokens": draft.usage.output_tokens}
    return {"event": "draft", **made, **size, "attempts": draft.attempts, "stopped": draft.stopped}


_CRITERION_FIELDS = {"passed", "skipped", "terminal", "severity", "weight"}


def verdict_event(critique: Critique) -> dict[str, Any]:
    """Describe a critique: per-criterion pass/fail, the score, or the verifier's error."""
    verdict = critique.verdict
    return {
        "event": "verdict",
        "round": critique.round,
        "candidate": critique.candidate,
        "repeat_of": critique.duplicate_of.round if critique.duplicate_of else None,
        "passed": verdict.passed if verdict else False,
        "score": verdict.score if verdict else None,
        "musts_passed": verdict.musts_passed if verdict else None,
        "musts_total": verdict.musts_total if verdict else None,
        "missed": verdict.missed if verdict else [],
        "criteria": [
            {"id": result.criterion_id, **result.model_dump(include=_CRITERION_FIELDS)}
            for result in (verdict.results if verdict else [])
        ],
        "agreement": critique.agreement.model_dump() if critique.agreement else None,
        "attempts": critique.attempts,
        "error": critique.error,
        "stopped": critique.stopped,
    }


def finished_event(
    ending: tuple[str, str, str | None], rounds: int, learning: bool, spent: Spent
) -> dict[str, Any]:
    """Say how the loop ended (outcome, reason, the limit reached), what it spent, if it learns."""
    told = dict(zip(("outcome", "reason", "exhausted_by"), ending, strict=True))
    used = {"calls": spent.calls, "tokens": spent.tokens, "seconds": spent.seconds}
    return {"event": "finished", **told, "round": rounds, "learning": learning, "spent": used}
