"""Each suspect's cost without a profiler: the work it repeats, timed alone, times its rate.

A profiler slows small Python calls far more than I/O, so its shares can mislead. Here
each suspect's work is reproduced on its own and timed over many calls (median of
batches), then multiplied by how often a critic-loop round does it; the profile scenario
sets it beside the measured overhead per round (critic-loop in memory minus the plain
loop). Absolute milliseconds here serve only that comparison.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from benchmarks.performance.systems import MODEL, CriticLoopMemory, critic_context
from benchmarks.performance.timing import median, timed


def per_call(action: Callable[[], object], calls: int = 200, batches: int = 5) -> float:
    """Return the median seconds per call of `action` over `batches` batches of `calls`."""
    action()

    def batch() -> None:
        for _ in range(calls):
            action()

    return median([timed(batch) / calls for _ in range(batches)])


def final_values(loop: CriticLoopMemory, rounds: int) -> dict[str, Any]:
    """Run one loop and return its final state values (what the nodes' inputs come from)."""
    from benchmarks.performance.server import loop_task
    from critic_loop.run import loop_input, thread_config
    from tests.support.rubrics import RUBRIC

    config = thread_config()
    loop.graph.invoke(
        loop_input(loop_task(uuid.uuid4().hex[:12], rounds), RUBRIC),
        config,
        context=critic_context(loop.base_url, rounds),
    )
    return dict(loop.graph.get_state(config).values)


def suspects(base_url: str, rounds: int) -> list[dict[str, Any]]:
    """Time each suspect's work alone; `per_round` says how often a round does it."""
    from langchain.chat_models import init_chat_model
    from langchain_core.runnables import RunnableLambda
    from langchain_core.runnables.config import get_executor_for_config

    from critic_loop.graphs.app import build_graph, loop_graph
    from critic_loop.nodes.models.loading import load_chat_model
    from critic_loop.nodes.verifiers.judge_answers import critic_output_schema
    from critic_loop.state.context import Context
    from critic_loop.state.loop import CriticView, LoopState

    spec = f"openai:{MODEL}"
    settings = {"base_url": base_url, "timeout": 600.0, "max_retries": 2}
    model = load_chat_model(spec, role="critic", temperature=0.0, max_tokens=2048, **settings)
    schema = critic_output_schema()
    values = final_values(CriticLoopMemory(base_url), rounds)
    context = critic_context(base_url, rounds)
    trivial = RunnableLambda(lambda value: value)

    def pool() -> None:
        with get_executor_for_config(None) as executor:
            executor.submit(lambda: None).result()

    rows: list[tuple[str, str, Callable[[], object], float]] = [
        (
            "chat model fetched (load_chat_model, built once per settings)",
            "nodes/models/loading.py:load_chat_model, from worker_model and grading_model",
            lambda: load_chat_model(spec, role="worker", temperature=0.7, **settings),
            2.0,
        ),
        (
            "chat model built anew (init_chat_model; what a round paid before the cache)",
            "langchain init_chat_model, now called once per provider, model and settings",
            lambda: init_chat_model(MODEL, model_provider="openai", api_key="unused", **settings),
            0.0,
        ),
        (
            "structured-output binding made (with_structured_output)",
            "nodes/models/gateway.py:_model_and_parser, once per model, schema and method",
            lambda: model.with_structured_output(schema, method="json_schema"),
            0.0,
        ),
        (
            "verdict JSON schema fetched (critic_output_schema, built once)",
            "nodes/verifiers/judge.py:_ask calls judge_answers.py:critic_output_schema",
            critic_output_schema,
            1.0,
        ),
        (
            "thread pool for a parallel runnable (1 task, start + shutdown)",
            "langchain_core RunnableParallel.invoke -> get_executor_for_config (x2 per "
            "with_structured_output(include_raw=True) call; the plain and minimal loops pay "
            "it, critic-loop's gateway parses the answer itself)",
            pool,
            0.0,
        ),
        (
            f"state validated as CriticView + LoopState (round {rounds})",
            "langgraph coerces a node's input to its pydantic input schema (the worker's "
            "turn arrives as plain JSON from the plan)",
            lambda: (
                CriticView.model_validate(values),
                LoopState.model_validate(values),
            ),
            1.0,
        ),
        (
            "Context built from a dict (the environment read each time)",
            "state/context.py:Context, once per run",
            lambda: Context(**context),
            1.0 / rounds,
        ),
        (
            "graph fetched per run_loop / arun_loop call (loop_graph)",
            "graphs/app.py:loop_graph copies the loop compiled once per process; once per run",
            lambda: loop_graph(None, None),
            1.0 / rounds,
        ),
        (
            "graph compiled anew (build_graph; what a run paid before loop_graph)",
            "graphs/app.py:build_graph, now called once per process",
            build_graph,
            0.0,
        ),
        (
            "RunnableLambda.invoke of a trivial body (no callbacks attached)",
            "what wrapping a node body in RunnableLambda would add; nodes/node.py:PolicedNode "
            "calls every node body directly",
            lambda: trivial.invoke(1),
            0.0,
        ),
    ]
    return [
        {
            "suspect": name,
            "where": where,
            "seconds_per_call": seconds,
            "calls_per_round": rate,
            "ms_per_round": 1000 * seconds * rate,
        }
        for name, where, action, rate in rows
        for seconds in [
            per_call(action, calls=20 if "graph" in name else 50 if "state" in name else 200)
        ]
    ]
