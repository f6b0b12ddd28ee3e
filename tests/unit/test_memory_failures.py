"""Memory never costs the run its result: failures are recorded, the outcome is kept."""

import asyncio
from collections.abc import Iterable

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.base import BaseStore, Op, Result
from langgraph.store.memory import InMemoryStore

from critic_loop.graphs.app import build_graph
from critic_loop.state.context import Context
from critic_loop.state.rules import rules_namespace
from tests.support.contexts import scripted_context
from tests.support.rubrics import RUBRIC
from tests.support.verdicts import graded


class DownStore(BaseStore):
    """A store whose backend is unreachable."""

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        raise ConnectionError("store is down")

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        raise ConnectionError("store is down")


def context(**overrides) -> Context:
    return scripted_context(
        **{"memory": True, "distill_model": "scripted:distill", "memory_scope": "sql", **overrides}
    )


def script_two_rounds(models) -> None:
    models.script("worker", "draft 1", "draft 2")
    models.script("critic", graded(RUBRIC, {"tone": "Use simpler words."}), graded(RUBRIC))


def invoke(store, loop_input, **overrides) -> dict:
    graph = build_graph(checkpointer=InMemorySaver(), store=store)
    return graph.invoke(
        loop_input, {"configurable": {"thread_id": "t"}}, context=context(**overrides)
    )


def test_distillation_model_error_keeps_outcome_final_and_the_lessons(models, loop_input) -> None:
    script_two_rounds(models)
    models.script("distill", RuntimeError("model provider returned 500"))
    store = InMemoryStore()
    out = invoke(store, loop_input)
    assert out["outcome"] == "passed"
    assert out["final"] == "draft 2"
    assert out["memory_errors"] == ["distill: RuntimeError: model provider returned 500"]
    assert out["memory_report"]["skipped"] is None
    assert out["memory_report"]["lessons"] == ["Use simpler words."]
    [rule] = store.search(rules_namespace("sql"))
    assert rule.value["text"] == "Use simpler words." and rule.value["criteria"] == ["tone"]


def test_malformed_distiller_answers_are_retried_then_recorded(models, loop_input) -> None:
    script_two_rounds(models)
    models.script("distill", "not json", {"operations": [{"action": "explode"}]})
    out = invoke(InMemoryStore(), loop_input)
    assert out["outcome"] == "passed"
    assert models["distill"].calls == 2
    [error] = out["memory_errors"]
    assert error.startswith("distill: no usable answer after 2 call(s)")
    assert "does not match the schema" in error
    assert out["memory_report"]["added"]  # the lesson is kept as it is


def test_store_down_keeps_the_run_and_records_each_memory_failure(models, loop_input) -> None:
    script_two_rounds(models)
    models.script("distill")
    out = invoke(DownStore(), loop_input)
    assert out["outcome"] == "passed"
    assert out["final"] == "draft 2"
    assert out["recalled_rules"] == []
    assert out["memory_errors"] == [
        "recall: ConnectionError: store is down",
        "distill: ConnectionError: store is down",
    ]
    assert models["distill"].calls == 0


def test_store_down_on_the_async_path_too(models, loop_input) -> None:
    script_two_rounds(models)
    models.script("distill")
    graph = build_graph(checkpointer=InMemorySaver(), store=DownStore())
    out = asyncio.run(
        graph.ainvoke(loop_input, {"configurable": {"thread_id": "t"}}, context=context())
    )
    assert out["outcome"] == "passed"
    assert len(out["memory_errors"]) == 2


def test_memory_round_trip_on_the_async_path(models, loop_input) -> None:
    store = InMemoryStore()
    script_two_rounds(models)
    rule = {
        "action": "add",
        "rule_id": "",
        "text": "Always use simpler words.",
        "criteria": ["tone"],
        "reason": "r",
    }
    models.script("distill", {"operations": [rule]})
    graph = build_graph(checkpointer=InMemorySaver(), store=store)
    asyncio.run(graph.ainvoke(loop_input, {"configurable": {"thread_id": "a"}}, context=context()))
    models.script("worker", "draft")
    models.script("critic", graded(RUBRIC))
    models.script("distill")
    out = asyncio.run(
        graph.ainvoke(loop_input, {"configurable": {"thread_id": "b"}}, context=context())
    )
    assert [r["text"] for r in out["recalled_rules"]] == ["Always use simpler words."]
    [item] = store.search(rules_namespace("sql"))
    assert item.value["usage"] == {"consulted": 1, "passed": 1, "rounds_when_passed": 1}
    assert item.value["provenance"]["thread_id"] == "a"


def test_an_unusable_distiller_is_a_memory_error_not_a_refused_run(
    models, loop_input, monkeypatch
) -> None:
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    models.script("worker", "one two three four five six", "one two three")
    checks_only = {**loop_input, "rubric": [{"id": "short", "kind": "word_count", "max": 5}]}
    out = invoke(  # no critic is needed for checks, and the distiller cannot be made
        InMemoryStore(),
        checks_only,
        critic_model="google_genai:gemini-2.5-pro",
        distill_model=None,
    )
    assert out["outcome"] == "passed"
    [error] = out["memory_errors"]
    assert error.startswith("distill: MissingApiKey: The distiller model")
    assert "GOOGLE_API_KEY" in error
    assert out["memory_report"]["lessons"] == ["Cut it to at most 5 words."]
    assert out["memory_report"]["added"]  # kept as it is
