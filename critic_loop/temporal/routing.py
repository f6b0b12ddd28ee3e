"""The decisions between the I/O nodes, run inside the Temporal workflow.

These steps are pure: they read the state and the run's `Context`, call the same decision
functions as the in-process graph (`decide`, `first_turns`, `send_next_turn`,
`ending`), and do no I/O, so Temporal can replay them deterministically. They run in
the workflow (`execute_in: workflow`) because what they return holds LangGraph `Send`s,
which the plugin cannot carry back from an activity.

They are async: the plugin runs the graph on the workflow's event loop, where a sync
conditional edge would be sent to a thread pool that workflows do not have. Unlike
`critic_loop.nodes.loop.route`, they do not check the context against the operator's
policy (that reads the worker's environment, which a workflow must not depend on): the
activities that use the context check it.
"""

from __future__ import annotations

from typing import Any, Literal

from langgraph.config import get_config
from langgraph.runtime import Runtime, get_runtime
from langgraph.types import Command, Send

from critic_loop.nodes.loop.finalize import ending
from critic_loop.nodes.loop.history_queries import best_critique
from critic_loop.nodes.loop.route import Decision, GoOn, decide, send_next_turn
from critic_loop.nodes.loop.worker_turns import first_turns, to_worker
from critic_loop.state.context import Context, as_context
from critic_loop.state.loop import LoopState
from critic_loop.temporal.loop_state import TemporalLoopState


def run_context(runtime: Runtime[Any]) -> Context:
    """Return the run's settled context (complete, so no environment is read)."""
    return as_context(runtime.context)


async def first_round(state: LoopState) -> list[Send]:
    """Send the worker round 1's turns: one per candidate, side by side."""
    context = run_context(get_runtime())
    return [to_worker(turn) for turn in first_turns(state.task, state.recalled_rules, context)]


async def route(
    state: LoopState, runtime: Runtime[Context]
) -> Command[Literal["generate", "finalize"]]:
    """Choose the next step after critique: the worker's next turn, or finalize."""
    context = run_context(runtime)
    decision = decide(state.critiques, state.drafts, context)
    if isinstance(decision, Decision):
        return Command(goto="finalize")
    return Command(goto=send_next_turn(state, context, decision))


async def finalize(
    state: LoopState, runtime: Runtime[Context]
) -> Command[Literal["record_rule_usage", "generate"]]:
    """Set the outcome and the artifact returned (as `critic_loop.nodes.loop.finalize`)."""
    context = run_context(runtime)
    decision = decide(state.critiques, state.drafts, context)
    if isinstance(decision, GoOn):
        return Command(goto=send_next_turn(state, context, decision))
    chosen = best_critique(state.critiques)
    thread_id = get_config().get("configurable", {}).get("thread_id")
    update = ending(state, decision, chosen, thread_id)
    return Command(goto="record_rule_usage", update=update)


async def after_proposal(state: TemporalLoopState) -> Literal["consolidate_rules", "__end__"]:
    """Consolidate the proposed rule operations, or end (distillation skipped or failed)."""
    return "consolidate_rules" if state.proposed is not None else "__end__"
