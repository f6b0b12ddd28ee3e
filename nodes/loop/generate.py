"""The worker: drafts the artifact, revises the best draft so far, or starts afresh.

Its input is a `WorkerTurn`, chosen by the route (or, for round 1, by the fan-out after
recall) and sent to it with LangGraph's `Send`: the task, the recalled rules, and for a
revision its own earlier drafts with the feedback addressed to it. It has no rubric field
and no verdicts, so criteria cannot reach the worker even by accident.

The prompt is the task (with the rules) as the person's turn, then each draft being
revised as the worker's own turn followed by the feedback on it; at most
`Context.worker_history_rounds` drafts appear in full, so its size does not grow with the
number of rounds.
"""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.messages.utils import count_tokens_approximately
from langchain_core.runnables import Runnable, RunnableLambda
from langgraph.runtime import Runtime

from critic_loop.nodes.events import draft_event
from critic_loop.nodes.loop.worker_turns import asked_again, repeats_draft
from critic_loop.nodes.models.faults import MALFORMED_REPLIES, UNREACHABLE, unreachable
from critic_loop.nodes.models.ledger import Ledger
from critic_loop.nodes.models.loading import model_server, role_tags, worker_model
from critic_loop.nodes.models.usage import usage_of
from critic_loop.nodes.operator_policy import context_of
from critic_loop.nodes.prompts import render_prompt
from critic_loop.nodes.steps import Steps, StepsNode, invoke
from critic_loop.state.context import Context
from critic_loop.state.loop import WorkerTurn
from critic_loop.state.operator_settings import operator_settings
from critic_loop.state.records import Draft, TokenUsage

logger = logging.getLogger(__name__)


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


def draft_of(
    reply: BaseMessage, turn: WorkerTurn, usage: TokenUsage, ledger: Ledger | None = None
) -> Draft:
    """Keep the worker's reply as a draft: valid UTF-8, and no longer than the operator allows.

    `ledger` holds what the turn spent (its calls and seconds).
    """
    text = reply.text.encode("utf-8", "replace").decode("utf-8")
    limit = operator_settings().max_draft_chars
    full_length = len(text) if len(text) > limit else None
    return Draft(
        round=turn.round,
        candidate=turn.candidate,
        origin=turn.mode,
        revises=turn.revises,
        text=text[:limit],
        usage=usage,
        attempts=ledger.calls if ledger else 1,
        seconds=ledger.seconds if ledger else 0.0,
        full_length=full_length,
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


class BudgetRefused(Exception):
    """The run's budgets refused a worker call; the message says which one ran out."""


def metered(
    worker: Runnable[Any, BaseMessage], ledger: Ledger, prompt_tokens: int
) -> Runnable[list[BaseMessage], BaseMessage]:
    """Return `worker` with each call admitted by `ledger` first and settled after it.

    Raises:
        BudgetRefused: (when called) the run's budgets refused the call.
    """

    def admit() -> None:
        refusal = ledger.admit(prompt_tokens)
        if refusal is not None:
            raise BudgetRefused(refusal)

    def call(prompt: list[BaseMessage]) -> BaseMessage:
        admit()
        try:
            reply = worker.invoke(prompt)
        finally:
            ledger.settle(prompt_tokens)
        ledger.settle(usage=usage_of(reply, prompt))
        return reply

    async def acall(prompt: list[BaseMessage]) -> BaseMessage:
        admit()
        try:
            reply = await worker.ainvoke(prompt)
        finally:
            ledger.settle(prompt_tokens)
        ledger.settle(usage=usage_of(reply, prompt))
        return reply

    return RunnableLambda(call, afunc=acall, name="worker_call")


def _malformed(error: BaseException) -> bool:
    """Tell whether the worker's server sent a reply that cannot be read (then ask again)."""
    if isinstance(error, MALFORMED_REPLIES):
        logger.warning("the worker's reply was malformed (%s)", error)
        return True
    return False


def ask_worker(
    worker: Runnable[Any, BaseMessage],
    prompt: list[BaseMessage],
    attempts: int,
    ledger: Ledger,
    where: tuple[str, str | None] = ("the worker's model", None),
) -> Steps[BaseMessage | str]:
    """Call the worker, again if the server's reply is malformed (up to `attempts` calls).

    LangChain's `with_retry` repeats the call at once; each call is admitted by `ledger`
    (the run's budgets) first. `where` is the worker's model and server, for the message
    when the server cannot be reached. Returns the reply, or why the budgets refused a
    call before there was one.

    Raises:
        ModelUnreachable: the worker's server cannot be reached (after the client's retries).
        Exception: the last malformed reply's error, or any other failure at once.
    """
    calls = metered(worker, ledger, count_tokens_approximately(prompt)).with_retry(
        retry_if_exception_type=_malformed,
        wait_exponential_jitter=False,
        stop_after_attempt=attempts,
    )
    try:
        reply: BaseMessage = yield invoke(calls, prompt)
    except BudgetRefused as refused:
        return str(refused)
    except UNREACHABLE as error:
        raise unreachable(error, "worker", *where) from error
    return reply


def generate_steps(turn: WorkerTurn, runtime: Runtime[Context]) -> Steps[dict[str, Any]]:
    """Ask the worker for the draft `turn` describes and append it to the drafts.

    The turn's `allowance` (what the run's budgets leave it) bounds its calls; a turn they
    stop before the worker answered leaves an empty draft saying why. A revision that
    repeats its draft is asked again at once as `asked_again` says (one more call, the
    same round).
    """
    ledger = Ledger(turn.allowance)
    context = context_of(runtime)
    where = (context.worker_model, model_server(context.worker_model, context))

    def ask(turn: WorkerTurn) -> Steps[BaseMessage | str]:
        worker = worker_model(context, turn.temperature).with_config(tags=role_tags("worker"))
        prompt = worker_prompt(turn, context)
        return ask_worker(worker, prompt, context.worker_attempts, ledger, where)

    reply = yield from ask(turn)
    if not isinstance(reply, str) and repeats_draft(turn, reply.text):
        again = asked_again(turn, context)  # a revision that repeats its draft is none
        second = yield from ask(again)
        turn, reply = (turn, reply) if isinstance(second, str) else (again, second)
    if isinstance(reply, str):
        draft = stopped_draft(turn, ledger, reply)
    else:
        draft = draft_of(reply, turn, ledger.usage, ledger)
    runtime.stream_writer(draft_event(draft))
    return {"drafts": [draft.model_dump(mode="json")]}


generate = StepsNode(generate_steps)
"""The generate node (sync and async)."""
