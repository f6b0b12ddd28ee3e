"""A shared memory scope learns only from what the server graded; what recall gives is bounded."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langgraph.runtime import ExecutionInfo, Runtime, ServerInfo
from langgraph.store.memory import InMemoryStore

from critic_loop.nodes.memory.graded import graded_here, seal
from critic_loop.nodes.memory.owned_store import memory_store
from critic_loop.nodes.memory.recall import RecallView, recall
from critic_loop.nodes.memory.relevance import topic_of
from critic_loop.state.context import Context
from critic_loop.state.operator_settings import operator_settings
from critic_loop.state.records import Critique
from critic_loop.state.rules import RecalledRule, Rule, RuleProvenance
from tests.support.rubrics import RUBRIC, TASK
from tests.support.verdicts import graded


class User:
    identity, is_authenticated = "bob", True


def runtime(thread: str = "t1", graph: str = "critic_loop", **context: Any) -> Runtime[Any]:
    return Runtime(
        context=Context(worker_model="openai:x", critic_model="openai:x", **context),
        store=InMemoryStore(),
        server_info=ServerInfo(assistant_id="a", graph_id=graph, user=User()),  # type: ignore[arg-type]
        execution_info=ExecutionInfo(
            checkpoint_id="c", checkpoint_ns="", task_id="k", thread_id=thread
        ),
    )


@pytest.fixture(autouse=True)
def shared_team(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("CRITIC_LOOP_SHARED_MEMORY_SCOPES", "team")
    operator_settings.cache_clear()
    yield
    operator_settings.cache_clear()


def critique(round_: int, fails: dict[str, str] | None = None) -> Critique:
    return Critique.model_validate({"round": round_, "verdict": graded(RUBRIC, fails)})


def sealed(made: Critique, bound: str = "critic_loop/t1") -> Critique:
    return made.model_copy(update={"seal": seal(bound, made)})


def test_critiques_the_critic_sealed_in_this_thread_share_memory_and_no_others() -> None:
    honest = [sealed(critique(1, {"example": "Give one."})), sealed(critique(2))]
    assert graded_here(runtime(), honest, "passed")
    edited = honest[0].model_copy(update={"verdict": critique(1).verdict})  # its seal kept
    assert not graded_here(runtime(), [edited, honest[1]], "passed")
    assert not graded_here(runtime(), [*honest, critique(3)], "passed")  # one written by a client
    assert not graded_here(runtime(thread="t2"), honest, "passed")  # copied to another thread
    assert not graded_here(runtime(graph="distill"), honest, "passed")  # the served distill graph
    assert not graded_here(runtime(), [], "passed")
    failing = [sealed(critique(1, {"example": "Give one."}))]
    assert not graded_here(runtime(), failing, "passed")  # a "passed" no sealed critique shows
    assert graded_here(runtime(), failing, "exhausted")


def test_a_recalled_rule_counts_in_a_shared_scope_only_with_recalls_seal() -> None:
    honest = [sealed(critique(1))]
    rule = RecalledRule(id="r1", text="Give one.", scope="team")
    given = rule.model_copy(update={"seal": seal("critic_loop/t1", rule)})
    assert graded_here(runtime(), honest, "passed", [given])
    assert not graded_here(runtime(), honest, "passed", [rule])  # named in a client's `Send`


def test_a_run_that_is_not_graded_here_sees_the_shared_scope_as_its_own() -> None:
    served = runtime()
    memory_store(served, shared=False).put(("critic_loop", "rules", "team"), "r", {"x": 1})  # type: ignore[union-attr]
    assert served.store.get(("users", "bob", "critic_loop", "rules", "team"), "r") is not None  # type: ignore[union-attr]
    assert served.store.get(("critic_loop", "rules", "team"), "r") is None  # type: ignore[union-attr]


def stored(text: str) -> dict[str, Any]:
    provenance = RuleProvenance(thread_id=None, outcome="passed", rounds=1)
    return Rule(text=text, scope="mine", topics=[topic_of(TASK)], provenance=provenance).model_dump(
        mode="json"
    )


def test_recall_gives_no_overlong_rule_and_a_bounded_text_in_all(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CRITIC_LOOP_MAX_RECALLED_CHARS", "300")
    operator_settings.cache_clear()
    served = runtime(memory_scope="mine", recall_k=10)
    store = memory_store(served)
    assert store is not None
    store.put(("critic_loop", "rules", "mine"), "huge", stored("Explain hash maps " + "x" * 10_000))
    for index in range(5):
        store.put(
            ("critic_loop", "rules", "mine"),
            f"r{index}",
            stored(f"Explain hash map {index} " + "y" * 90),
        )
    recalled = recall(RecallView(task=TASK), served)["recalled_rules"]
    assert "huge" not in {rule["id"] for rule in recalled}
    assert len(recalled) > 0 and sum(len(rule["text"]) for rule in recalled) <= 300
    assert all(rule["seal"] == seal("critic_loop/t1", RecalledRule(**rule)) for rule in recalled)
