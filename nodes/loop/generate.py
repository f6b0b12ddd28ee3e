"""The worker: drafts the artifact on round 1, revises its previous draft after that.

Its first prompt carries the rules recalled from memory, if any, before the task.

Its input schema is `WorkerView`: the task, its own transcript, its drafts and the
feedback addressed to it. It has no rubric field, so criteria cannot reach the worker even
by accident.
"""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from critic_loop.nodes.events import draft_event
from critic_loop.nodes.loop.compaction import compact_transcript
from critic_loop.nodes.models.faults import MALFORMED_REPLIES
from critic_loop.nodes.models.loading import load_chat_model
from critic_loop.nodes.models.usage import usage_of
from critic_loop.nodes.prompts import render_prompt
from critic_loop.nodes.runtime import context_of
from critic_loop.nodes.steps import Steps, dual_node, invoke
from critic_loop.state.context import Context
from critic_loop.state.loop import WorkerView
from critic_loop.state.operator_settings import operator_settings
from critic_loop.state.records import Draft, TokenUsage, WorkerFeedback

logger = logging.getLogger(__name__)


def worker_request(state: WorkerView, context: Context) -> HumanMessage:
    """Build the next message to the worker: the task, or else a revision instruction."""
    if not state.drafts:
        rules = [rule.text for rule in state.recalled_rules]
        return HumanMessage(
            render_prompt("worker_task.jinja", context.prompts_dir, task=state.task, rules=rules)
        )
    previous = state.drafts[-1].round
    note = next(
        (item for item in reversed(state.feedback) if item.round == previous),
        WorkerFeedback(round=previous),
    )
    return HumanMessage(
        render_prompt(
            "worker_revision.jinja",
            context.prompts_dir,
            round=previous,
            summary=note.summary,
            hints=note.hints,
        )
    )


def worker_prompt(state: WorkerView, request: HumanMessage, context: Context) -> list[BaseMessage]:
    """Build the full, compacted prompt for the worker's next turn."""
    system = SystemMessage(render_prompt("worker_system.jinja", context.prompts_dir))
    transcript = [*state.messages, request]
    return [system, *compact_transcript(transcript, context.worker_history_rounds)]


def draft_of(reply: BaseMessage, round_number: int, usage: TokenUsage) -> Draft:
    """Keep the worker's reply as a draft: valid UTF-8, and no longer than the operator allows."""
    text = reply.text.encode("utf-8", "replace").decode("utf-8")
    limit = operator_settings().max_draft_chars
    if len(text) <= limit:
        return Draft(round=round_number, text=text, usage=usage)
    return Draft(round=round_number, text=text[:limit], usage=usage, full_length=len(text))


def ask_worker(
    worker: BaseChatModel, prompt: list[BaseMessage], attempts: int
) -> Steps[BaseMessage]:
    """Call the worker, again if the server's reply is malformed (up to `attempts` calls).

    Raises:
        Exception: the last malformed reply's error, or any other failure at once.
    """
    for attempt in range(1, attempts + 1):
        try:
            reply: BaseMessage = yield invoke(worker, prompt)
        except MALFORMED_REPLIES as malformed:
            if attempt == attempts:
                raise
            logger.warning("the worker's reply was malformed (%s); asking again", malformed)
            continue
        return reply
    raise AssertionError("unreachable: attempts is at least 1")


def generate_steps(state: WorkerView, runtime: Runtime[Context]) -> Steps[dict[str, Any]]:
    """Ask the worker for the next draft and append it (and the exchange) to the state."""
    context = context_of(runtime)
    request = worker_request(state, context)
    prompt = worker_prompt(state, request, context)
    worker = load_chat_model(
        context.worker_model,
        role="worker",
        temperature=context.temperature,
        base_url=context.base_url,
        max_tokens=context.worker_max_tokens,
        timeout=context.request_timeout,
        max_retries=context.max_retries,
    )
    reply = yield from ask_worker(worker, prompt, context.worker_attempts)
    draft = draft_of(reply, len(state.drafts) + 1, usage_of(reply, prompt))
    runtime.stream_writer(draft_event(draft))
    return {"messages": [request, reply], "drafts": [draft.model_dump(mode="json")]}


generate = dual_node(generate_steps)
"""The generate node (sync and async)."""
