"""Ask a person at the terminal for a review decision (`critic-loop run --review ...`).

The dialogue goes to standard error, so `--json` output on standard output stays clean.
"""

from __future__ import annotations

from typing import Any

import click


def _say(text: str = "") -> None:
    click.echo(text, err=True)


def show_request(request: dict[str, Any]) -> None:
    """Print what the person reviews: why, the draft, and each criterion's result."""
    candidate = f" (candidate {request['candidate']})" if request.get("candidate", 1) > 1 else ""
    score = request.get("score")
    shown = f", weighted score {score:.2f}" if isinstance(score, float) else ""
    where = f"round {request['round']}{candidate}{shown}"
    _say()
    _say(f"review: {request['review']}; the best draft is {where}")
    _say("--- draft ---")
    _say(request["draft"])
    _say("--- the critic ---")
    for criterion in request["criteria"]:
        mark = "pass" if criterion["passed"] else "FAIL"
        _say(f"  {mark} {criterion['id']}: {criterion['evidence']}")
        if criterion["hint"]:
            _say(f"       hint: {criterion['hint']}")
    if request.get("problem"):
        _say(f"(your last answer could not be used: {request['problem']})")


def ask_at_terminal(request: dict[str, Any]) -> dict[str, Any]:
    """Show a review request and return the person's decision."""
    show_request(request)
    action = click.prompt(
        "accept, reject, override or stop",
        type=click.Choice(["accept", "reject", "override", "stop"]),
        err=True,
    )
    if action == "reject":
        return {"action": action, "feedback": click.prompt("what should change", err=True)}
    if action == "override":
        ids = [criterion["id"] for criterion in request["criteria"]]
        criterion_id = click.prompt("which criterion", type=click.Choice(ids), err=True)
        passed = click.confirm("does it pass", default=True, err=True)
        note = click.prompt("why", default="", show_default=False, err=True)
        return {"action": action, "criterion_id": criterion_id, "passed": passed, "note": note}
    return {"action": action}
