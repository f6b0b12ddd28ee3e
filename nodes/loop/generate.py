"""The worker: drafts the artifact, revises the best draft so far, or starts afresh.

Its input is a `WorkerTurn` (state/loop.py), sent by the route: it has no rubric field and
no verdicts, so criteria cannot reach the worker even by accident. The prompt is the task
(with the rules) as the person's turn, then each draft being revised as the worker's own
turn followed by the feedback on it (at most `Context.worker_history_rounds` of them).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from critic_loop.nodes.events import draft_event
from critic_loop.nodes.models.gateway import Answer, Request, aask, ask
from critic_loop.nodes.models.ledger import Ledger
from critic_loop.nodes.models.loading import model_server, worker_model
from critic_loop.nodes.prompts import render_prompt
from critic_loop.state.context import Context
from critic_loop.state.loop import WorkerTurn
from critic_loop.state.operator_settings import operator_settings
from critic_loop.state.records import Draft


def worker_prompt(turn: WorkerTurn, context: Context) -> list[BaseMessage]:
    """Build the worker's prompt for `turn` (see the module docstring)."""
    directory = context.prompts_dir
    messages: list[BaseMessage] = [
        SystemMessage(render_prompt("worker_system.jinja", directory)),
        HumanMessage(
            render_prompt(
                "worker_task.jinja",
                directory,
                task=turn.task,
                rules=turn.rules,
                earlier_failures=turn.earlier_failures,
            )
        ),
    ]
    for position, step in enumerate(turn.history, start=1):
        latest = position == len(turn.history)
        messages.append(AIMessage(step.text))
        messages.append(
            HumanMessage(
                render_prompt(
                    "worker_revision.jinja",
                    directory,
                    round=step.round,
                    summary=step.feedback.summary,
                    hints=step.feedback.hints,
                    warning=turn.warning if latest else "",
                )
            )
        )
    return messages


def draft_of(reply: BaseMessage, turn: WorkerTurn, ledger: Ledger) -> Draft:
    """Keep the worker's reply as a draft: valid UTF-8, no longer than the operator allows."""
    text = reply.text.encode("utf-8", "replace").decode("utf-8")
    limit = operator_settings().max_draft_chars
    return Draft(
        round=turn.round,
        candidate=turn.candidate,
        origin=turn.mode,
        revises=turn.revises,
        text=text[:limit],
        usage=ledger.usage,
        attempts=ledger.calls,
        seconds=ledger.seconds,
        full_length=len(text) if len(text) > limit else None,
    )


def stopped_draft(turn: WorkerTurn, ledger: Ledger, reason: str) -> Draft:
    """Record a turn the run's budgets stopped before the worker answered (an empty draft)."""
    return Draft(
        round=turn.round,
        candidate=turn.candidate,
        origin=turn.mode,
        revises=turn.revises,
        text="",
        attempts=ledger.calls,
        seconds=ledger.seconds,
        stopped=reason,
    )


def worker_request(turn: WorkerTurn, context: Context) -> Request[BaseMessage]:
    """Return the worker's call for `turn`: a malformed reply is asked again (`worker_attempts`)."""
    return Request(
        model=worker_model(context, turn.temperature),
        spec=context.worker_model,
        role="worker",
        server=model_server(context.worker_model, context),
        prompt=worker_prompt(turn, context),
        read=lambda reply: reply,
        attempts=context.worker_attempts,
    )


def drafted(
    turn: WorkerTurn, answer: Answer[BaseMessage], ledger: Ledger, runtime: Runtime[Context]
) -> dict[str, Any]:
    """Append the worker's answer as a draft (empty, saying why, if the budgets stopped it).

    Raises:
        Exception: the last malformed reply's error, when every attempt was malformed.
    """
    if answer.value is not None:
        draft = draft_of(answer.value, turn, ledger)
    elif answer.stopped is not None:
        draft = stopped_draft(turn, ledger, answer.stopped)
    else:
        raise answer.failure or RuntimeError("the worker gave no reply")
    runtime.stream_writer(draft_event(draft))
    return {"drafts": [draft.model_dump(mode="json")]}


def generate(turn: WorkerTurn, runtime: Runtime[Context]) -> dict[str, Any]:
    """Ask the worker for the draft `turn` describes, within what the budgets leave it."""
    ledger = Ledger(turn.allowance)
    return drafted(turn, ask(worker_request(turn, runtime.context), ledger), ledger, runtime)


async def agenerate(turn: WorkerTurn, runtime: Runtime[Context]) -> dict[str, Any]:
    """`generate`, awaiting the worker."""
    ledger = Ledger(turn.allowance)
    answer = await aask(worker_request(turn, runtime.context), ledger)
    return drafted(turn, answer, ledger, runtime)
