"""What the command line prints while a run goes and when it ends."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from critic_loop.state.verdict import first_line

if TYPE_CHECKING:
    from critic_loop.state.loop import LoopState


def _label(criterion: dict[str, Any]) -> str:
    weight = f" x{criterion['weight']:g}" if criterion["weight"] != 1 else ""
    terminal = ", cannot be met" if criterion["terminal"] else ""
    return f"{criterion['id']} ({criterion['severity']}{weight}{terminal})"


def round_label(event: dict[str, Any]) -> str:
    """Name the round (and the candidate, after the first) an event is about."""
    candidate = event.get("candidate", 1)
    return f"round {event['round']}" + (f" (candidate {candidate})" if candidate > 1 else "")


def verdict_line(event: dict[str, Any]) -> str:
    """Summarize one round's verdict event in a line."""
    if event["error"]:
        return f"{round_label(event)}: the critic failed: {event['error']}"
    criteria = event["criteria"]
    if not criteria and event.get("stopped"):
        return f"{round_label(event)}: nothing to grade: {event['stopped']}"
    passed = sum(item["passed"] for item in criteria)
    failing = [_label(i) for i in criteria if not i["passed"] and not i["skipped"]]
    waiting = [i["id"] for i in criteria if i["skipped"]]
    line = f"{round_label(event)}: {passed}/{len(criteria)} criteria passed"
    line += f", must {event['musts_passed']}/{event['musts_total']}"
    line += f", weighted score {event['score']:.2f}"
    line += f"; failing: {', '.join(failing)}" if failing else ""
    line += f"; not graded this round: {', '.join(waiting)}" if waiting else ""
    if event.get("repeat_of"):
        line += f" (the draft of round {event['repeat_of']} again, not graded twice)"
    if event.get("stopped"):
        line += f" (grading stopped: {event['stopped']})"
    return line


def _sandbox_line(event: dict[str, Any]) -> str:
    held = f"{event['processes']} processes x {event['process_mb']} MiB"
    if event["memory_bound"] == "per-process":
        memory = f"{held}, no total (no process limit here)"
    else:
        memory = f"{event['total_mb']} MiB in total ({event['memory_bound']}; {held})"
    return f"sandbox for [{event['criterion']}]: {event['isolation']}, memory {memory}"


def show_event(event: dict[str, Any]) -> None:
    """Print a progress event (sandbox, lint, recall, draft, verdict) as it arrives."""
    kind = event.get("event")
    if kind == "sandbox":
        click.echo(_sandbox_line(event))
    elif kind == "lint":
        for finding in event["findings"]:
            if finding.get("decided_by_code"):
                click.echo(
                    f"note: criterion {finding['criterion']!r} is decided by code, not by the "
                    f"critic model ({finding['message']}; lint_checks)"
                )
                continue
            click.echo(
                f"note: criterion {finding['criterion']!r} is judged by the critic model, but "
                f"code could decide it ({finding['message']}); see critic-loop lint-rubric"
            )
    elif kind == "recall":
        rules = event["rules"]
        click.echo(f"memory: {len(rules)} rule(s) recalled from scope {event['scope']!r}")
        for rule in rules:
            click.echo(f"  - {rule}")
    elif kind == "draft" and event.get("stopped"):
        click.echo(f"{round_label(event)}: no draft: {event['stopped']}")
    elif kind == "draft":
        fresh = "fresh draft" if event.get("origin") == "resample" else "draft"
        click.echo(f"{round_label(event)}: {fresh} of {event['characters']} characters")
    elif kind == "verdict":
        click.echo(verdict_line(event))
    elif kind == "finished" and event.get("learning"):
        click.echo(
            f"{event['outcome']} after {event['round']} round(s); distilling rules from this "
            "run (one more model call)"
        )


def show_result(state: LoopState, thread_id: str) -> None:
    """Print how the run ended, what is still open, what memory did, and the final draft."""
    budget = state.exhausted_by not in (None, "max_iterations")  # the round cap says itself
    limit = f", {state.exhausted_by} reached" if budget else ""
    click.echo(
        f"\noutcome: {state.outcome}{limit} after {state.rounds} round(s) (thread {thread_id})"
    )
    if state.outcome_reason:
        click.echo(f"  why: {state.outcome_reason}")
    click.echo(f"  spent: {_spent_line(state)}")
    for item in state.open_items:
        click.echo(f"  still open [{item.criterion_id}] {item.text}")
        click.echo(f"    {'hint: ' + item.hint if item.hint else first_line(item.evidence)}")
    report = state.memory_report
    if report is not None and report.skipped is None:
        click.echo(
            f"memory: {len(report.added)} rule(s) added, {len(report.updated)} updated, "
            f"{len(report.reinforced)} reinforced, {len(report.rejected)} refused "
            f"(scope {report.scope!r})"
        )
    for error in state.memory_errors:
        click.echo(f"memory error: {error}")
    click.echo(f"\n--- final draft (round {state.final_round}) ---\n{state.final}")


def _spent_line(state: LoopState) -> str:
    from critic_loop.state.budget import spent_on

    spent = spent_on(state.drafts, state.critiques, state.memory_report)
    return (
        f"{spent.calls} model call(s), {spent.tokens} token(s), "
        f"{spent.seconds:.1f} s drafting and grading"
    )


def _show_request(request: dict[str, Any]) -> None:
    score = request.get("score")
    shown = f", weighted score {score:.2f}" if isinstance(score, float) else ""
    where = round_label(request) + shown
    lines = ["", f"review: {request['review']}; the best draft is {where}", "--- draft ---"]
    lines += [request["draft"], "--- the critic ---"]
    for criterion in request["criteria"]:
        mark = "pass" if criterion["passed"] else "FAIL"
        lines.append(f"  {mark} {criterion['id']}: {criterion['evidence']}")
        if criterion["hint"]:
            lines.append(f"       hint: {criterion['hint']}")
    if request.get("problem"):
        lines.append(f"(your last answer could not be used: {request['problem']})")
    click.echo("\n".join(lines), err=True)


def ask_at_terminal(request: dict[str, Any]) -> dict[str, Any]:
    """Show a review request and return the person's decision."""
    _show_request(request)
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
