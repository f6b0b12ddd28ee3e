"""The worker: drafts the artifact, revises the best draft so far, or starts afresh.

Its input, a `WorkerTurn`, has no rubric field and no verdicts: criteria cannot reach it. The
prompt: the task (with the rules), then each draft being revised and the feedback on it.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from critic_loop.nodes.events import draft_event
from critic_loop.nodes.loop.worker_turns import asked_again
from critic_loop.nodes.models.gateway import Answer, Request, aask, ask
from critic_loop.nodes.models.ledger import Ledger
from critic_loop.nodes.models.loading import model_server, worker_model
from critic_loop.nodes.prompts import render_prompt
from critic_loop.state.context import Context
from critic_loop.state.loop import WorkerTurn
from critic_loop.state.operator_settings import operator_settings
from critic_loop.state.records import Draft


def worker_prompt(turn: WorkerTurn, context: Context) -> list[BaseMessage]:
    """Build the worker's prompt for `turn`."""
    directory = context.prompts_dir
    task = {"task": turn.task, "rules": turn.rules, "earlier_failures": turn.earlier_failures}
    messages: list[BaseMessage] = [
        SystemMessage(render_prompt("worker_system.jinja", directory)),
        HumanMessage(render_prompt("worker_task.jinja", directory, **task)),
    ]
    for position, step in enumerate(turn.history, start=1):
        revision = {
            "round": step.round,
            "summary": step.feedback.summary,
            "hints": step.feedback.hints,
            "kept": step.feedback.kept,
            "warning": turn.warning if position == len(turn.history) else "",
        }
        messages.append(AIMessage(step.text))
        messages.append(HumanMessage(render_prompt("worker_revision.jinja", directory, **revision)))
    return messages


def _worker_request(turn: WorkerTurn, context: Context) -> Request[BaseMessage]:
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
    """Append the worker's answer as a draft (empty, saying why, if the budgets stopped it)."""
    fields: dict[str, Any]
    if answer.value is not None:  # kept as valid UTF-8, no longer than the operator allows
        text = answer.value.text.encode("utf-8", "replace").decode("utf-8")
        limit = operator_settings().max_draft_chars
        full_length = len(text) if len(text) > limit else None
        fields = {"text": text[:limit], "usage": ledger.usage, "full_length": full_length}
    elif answer.stopped is not None:
        fields = {"text": "", "stopped": answer.stopped}
    else:
        raise answer.failure or RuntimeError("the worker gave no reply")
    draft = Draft(
        round=turn.round,
        candidate=turn.candidate,
        origin=turn.mode,
        revises=turn.revises,
        attempts=ledger.calls,
        seconds=ledger.seconds,
        **fields,
    )
    runtime.stream_writer(draft_event(draft))
    return {"drafts": [draft.model_dump(mode="json")]}


def generate(turn: WorkerTurn, runtime: Runtime[Context]) -> dict[str, Any]:
    """Ask the worker for `turn`'s draft; a reply repeating its draft is asked again at once."""
    ledger = Ledger(turn.allowance)
    answer = ask(_worker_request(turn, runtime.context), ledger)
    again = asked_again(turn, answer.value, runtime.context)
    if again is not None:
        second = ask(_worker_request(again, runtime.context), ledger)
        turn, answer = (again, second) if second.value is not None else (turn, answer)
    return drafted(turn, answer, ledger, runtime)


async def agenerate(turn: WorkerTurn, runtime: Runtime[Context]) -> dict[str, Any]:
    """`generate`, awaiting the worker."""
    ledger = Ledger(turn.allowance)
    answer = await aask(_worker_request(turn, runtime.context), ledger)
    again = asked_again(turn, answer.value, runtime.context)
    if again is not None:
        second = await aask(_worker_request(again, runtime.context), ledger)
        turn, answer = (again, second) if second.value is not None else (turn, answer)
    return drafted(turn, answer, ledger, runtime)
