"""The mechanisms that keep a round's overhead small, pinned without timing anything.

Over real HTTP to the scripted model server: chat models are built once per role and
settings and reused; the worker's prompt holds one full draft however many rounds went
by; the loop is compiled once for many runs, whose steps run in the caller's thread.
"""

import threading
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver

from critic_loop.graphs import app
from critic_loop.graphs.app import build_graph
from critic_loop.nodes.loop import route as route_module
from critic_loop.nodes.models import loading
from critic_loop.run import run_loop
from critic_loop.state.context import Context
from tests.support.openai_server import RoleScript, ScriptedOpenAIServer
from tests.support.rubrics import RUBRIC, TASK
from tests.support.verdicts import graded

pytestmark = pytest.mark.integration

ROUNDS = 10


def context(server: ScriptedOpenAIServer, **settings: object) -> Context:
    defaults = {"worker_model": "openai:w", "critic_model": "openai:c", "base_url": server.base_url}
    return Context(**{**defaults, "memory": False, **settings})


@pytest.fixture
def constructions(monkeypatch) -> list[str]:
    """Record every chat model LangChain builds (after forgetting those built before)."""
    built: list[str] = []
    original = loading.init_chat_model

    def counting(model: str, **kwargs: object):
        built.append(model)
        return original(model, **kwargs)

    loading._created.cache_clear()
    monkeypatch.setattr(loading, "init_chat_model", counting)
    yield built
    loading._created.cache_clear()


def test_one_model_per_role_and_setting_across_ten_rounds(constructions) -> None:
    script = RoleScript(
        worker=[f"draft {n}" for n in range(1, ROUNDS + 1)],
        critic=[graded(RUBRIC, {"tone": f"hint {n}"}) for n in range(ROUNDS - 1)]
        + [graded(RUBRIC)],
    )
    with ScriptedOpenAIServer(script) as server:
        out = build_graph().invoke(
            {"task": TASK, "rubric": [c.model_dump() for c in RUBRIC]},
            context=context(server, max_iterations=ROUNDS, stall_rounds=ROUNDS),
        )
    assert out["outcome"] == "passed" and len(out["drafts"]) == ROUNDS
    assert sorted(constructions) == ["c", "w"]


def test_the_round_ten_prompt_holds_exactly_one_full_draft() -> None:
    long_draft = "word " * 300
    script = RoleScript(
        worker=[f"draft {n}: {long_draft}" for n in range(1, ROUNDS + 1)],
        critic=[graded(RUBRIC, {"tone": f"hint {n}"}) for n in range(ROUNDS)],
    )
    with ScriptedOpenAIServer(script) as server:
        build_graph().invoke(
            {"task": TASK, "rubric": [c.model_dump() for c in RUBRIC]},
            context=context(server, max_iterations=ROUNDS, stall_rounds=ROUNDS),
        )
        prompts = [r["messages"] for r in server.plain_requests()]
    round_ten = prompts[-1]
    drafts_in_it = [m for m in round_ten if m["role"] == "assistant"]
    assert len(drafts_in_it) == 1
    assert drafts_in_it[0]["content"].startswith("draft 9:")
    assert len(str(round_ten)) <= 1.1 * len(str(prompts[1]))
    assert not [m for m in round_ten if isinstance(m, AIMessage)]


def test_run_loop_compiles_the_loop_once_for_many_runs(monkeypatch) -> None:
    built: list[object] = []
    original = app.build_graph

    def counting(*args: object, **kwargs: object):
        built.append(args or kwargs)
        return original(*args, **kwargs)

    app._state_graph.cache_clear()
    monkeypatch.setattr(app, "build_graph", counting)
    script = RoleScript(worker=["draft"] * 3, critic=[graded(RUBRIC)] * 3)
    saver = InMemorySaver()
    try:
        with ScriptedOpenAIServer(script) as server:
            runs = [
                run_loop(TASK, RUBRIC, context=context(server), checkpointer=saver)
                for _ in range(3)
            ]
    finally:
        app._state_graph.cache_clear()
    assert [state.outcome for state in runs] == ["passed"] * 3
    assert len({state.thread_id for state in runs}) == 3
    assert len(built) == 1


@pytest.mark.parametrize("with_handler", [False, True])
def test_steps_run_in_the_calling_thread_unless_events_are_streamed(
    monkeypatch, with_handler: bool
) -> None:
    threads: set[int] = set()
    original = route_module.decide

    def recording(*args: Any, **kwargs: Any) -> Any:
        threads.add(threading.get_ident())
        return original(*args, **kwargs)

    monkeypatch.setattr(route_module, "decide", recording)
    script = RoleScript(
        worker=["draft 1", "draft 2"], critic=[graded(RUBRIC, {"tone": "warmer"}), graded(RUBRIC)]
    )
    events: list[object] = []
    with ScriptedOpenAIServer(script) as server:
        state = run_loop(
            TASK,
            RUBRIC,
            context=context(server),
            checkpointer=InMemorySaver(),
            on_event=events.append if with_handler else None,
        )
    assert state.outcome == "passed" and len(state.drafts) == 2
    # without a handler LangGraph's single-task fast path applies: no hand-off per step
    assert (threads == {threading.get_ident()}) is not with_handler
    assert bool(events) is with_handler
