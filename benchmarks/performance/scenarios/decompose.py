"""Split a round's time into model calls, critic-loop's node logic and LangGraph's machinery.

Without a profiler: timers are wrapped (inside this process, with `unittest.mock.patch`)
around the few places the time changes hands, so they cost microseconds per round:

- model calls: each call the gateway makes (the LangChain runnable's `invoke`, HTTP
  included), timed around the runnable `gateway._Calls.next_call` returns;
- node logic: the rest of each node body (`check_input`, `generate`, `critique`, `route`,
  `finalize`) and of the edge after grading (`next_turn_or_route`);
- LangGraph: the loop's wall time minus both.

Parts of each are timed too: the functions in `PARTS` where the nodes call them, the
coercion of a node's input to its pydantic schema, and the checkpointer's writes (which
run in a background thread under the default durability, so they may overlap the rest).

The plain loop's model calls are timed the same way (its worker and critic `invoke`), the
rest of its time being its own logic. Critic-loop's buckets minus the plain loop's say
where the overhead is: slower model calls (callbacks and configs LangGraph passes into
them), critic-loop's own code, or the graph machinery around it.
"""

from __future__ import annotations

import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any
from unittest import mock

from benchmarks.performance.systems import CriticLoopMemory, PlainLoop
from benchmarks.performance.timing import median

Buckets = defaultdict[str, float]


TIMED = ("check_input", "generate", "critique", "next_turn_or_route", "route", "finalize")


def _timed(function: Callable[..., Any], buckets: Buckets, name: str) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            buckets[name] += time.perf_counter() - start

    wrapper.__name__ = getattr(function, "__name__", name)
    wrapper.__annotations__ = getattr(function, "__annotations__", {})
    wrapper.__wrapped__ = function  # type: ignore[attr-defined]
    return wrapper


def timing_next_call(buckets: Buckets) -> Callable[[Any], Any]:
    """Return the gateway's `next_call`, its runnable's `invoke` timed as a model call."""
    from critic_loop.nodes.models.gateway import _Calls

    original = _Calls.next_call

    def next_call(exchange: Any) -> Any:
        model = original(exchange)
        return (
            None
            if model is None
            else mock.Mock(invoke=_timed(model.invoke, buckets, "model calls"))
        )

    return next_call


PARTS: dict[str, tuple[str, ...]] = {
    "chat models (worker_model, grading_model)": (
        "critic_loop.nodes.loop.generate.worker_model",
        "critic_loop.nodes.verifiers.judge.grading_model",
        "critic_loop.nodes.loop.check_input.worker_model",
        "critic_loop.nodes.loop.check_input.grading_model",
    ),
    "critic_output_schema": ("critic_loop.nodes.verifiers.judge.critic_output_schema",),
    "render_prompt": (
        "critic_loop.nodes.loop.generate.render_prompt",
        "critic_loop.nodes.verifiers.judge.render_prompt",
    ),
    "worker_feedback": ("critic_loop.nodes.loop.critique.worker_feedback",),
    "within_policy (the context held to the policy)": ("critic_loop.nodes.node.within_policy",),
}
"""Parts of critic-loop's node logic timed on their own: the functions, where nodes call them."""


@contextmanager
def timed_critic_loop(base_url: str, buckets: Buckets) -> Iterator[CriticLoopMemory]:
    """Build critic-loop in memory with timers around its node bodies, calls and parts."""
    import langgraph.graph.state as langgraph_state

    from critic_loop.graphs import app

    with ExitStack() as stack:
        for name in TIMED:
            stack.enter_context(
                mock.patch.object(app, name, _timed(getattr(app, name), buckets, "node bodies"))
            )
        coerce = _timed(langgraph_state._coerce_state, buckets, "LangGraph: input coercion")
        stack.enter_context(mock.patch.object(langgraph_state, "_coerce_state", coerce))
        loop = CriticLoopMemory(base_url)
    saver = loop.graph.checkpointer
    with ExitStack() as stack:
        stack.enter_context(
            mock.patch(
                "critic_loop.nodes.models.gateway._Calls.next_call", timing_next_call(buckets)
            )
        )
        for part, targets in PARTS.items():
            for target in targets:
                module, _, name = target.rpartition(".")
                original = getattr(__import__(module, fromlist=[name]), name)
                stack.enter_context(mock.patch(target, _timed(original, buckets, part)))
        for method in ("put", "put_writes"):
            timed = _timed(getattr(saver, method), buckets, "LangGraph: checkpoint writes")
            stack.enter_context(mock.patch.object(saver, method, timed))
        yield loop


def decompose(base_url: str, rounds: int, repeats: int) -> dict[str, Any]:
    """Time both loops `repeats` times, interleaved; return ms per round in each bucket."""
    ours: Buckets = defaultdict(float)
    theirs: Buckets = defaultdict(float)
    plain = PlainLoop(base_url)
    plain.worker = mock.Mock(wraps=plain.worker)  # type: ignore[method-assign]
    plain.worker.invoke = _timed(plain.worker.invoke, theirs, "model calls")
    plain.critic = mock.Mock(wraps=plain.critic)  # type: ignore[method-assign]
    plain.critic.invoke = _timed(plain.critic.invoke, theirs, "model calls")
    samples: dict[str, list[dict[str, float]]] = {"critic-loop in memory": [], "plain loop": []}
    with timed_critic_loop(base_url, ours) as loop:
        loop.run(uuid.uuid4().hex[:12], 1)
        plain.run(uuid.uuid4().hex[:12], 1)
        for _ in range(repeats):
            for name, system, buckets in (
                ("plain loop", plain, theirs),
                ("critic-loop in memory", loop, ours),
            ):
                buckets.clear()
                start = time.perf_counter()
                system.run(uuid.uuid4().hex[:12], rounds)
                wall = time.perf_counter() - start
                samples[name].append(_split(wall, buckets, rounds))
    medians = {
        name: {key: median([sample.get(key, 0.0) for sample in runs]) for key in runs[-1]}
        for name, runs in samples.items()
    }
    return {"samples_ms_per_round": samples, "medians_ms_per_round": medians}


def _split(wall: float, buckets: Buckets, rounds: int) -> dict[str, float]:
    calls = buckets["model calls"]
    bodies = buckets["node bodies"]
    own = bodies - calls if bodies else wall - calls
    split = {
        "total": wall,
        "model calls": calls,
        "own logic": own,
        "framework": wall - calls - own if bodies else 0.0,
    }
    parts = {f"own logic: {part}": buckets[part] for part in PARTS if part in buckets}
    machinery = {name: value for name, value in buckets.items() if name.startswith("LangGraph:")}
    return {name: 1000 * value / rounds for name, value in {**split, **parts, **machinery}.items()}
