"""The app on PostgreSQL: checkpoints and rules in a real server (`.ci/postgres start`)."""

import asyncio
from uuid import uuid4

import pytest

from critic_loop import arun_loop, run_loop
from critic_loop.graphs.app import build_graph
from critic_loop.persistence import open_persistence
from critic_loop.state.context import Context
from critic_loop.state.rules import rules_namespace
from tests.support.rubrics import RUBRIC, TASK
from tests.support.verdicts import graded

pytestmark = pytest.mark.integration

HINT = "Lead with the definition, then give a worked example."
RULE = "Always lead with the definition, then give one worked example."


def context(scope: str) -> Context:
    return Context(
        worker_model="scripted:worker",
        critic_model="scripted:critic",
        distill_model="scripted:distill",
        memory_scope=scope,
    )


def test_runs_and_rules_live_in_postgres(models, postgres_url, monkeypatch) -> None:
    monkeypatch.setenv("CRITIC_LOOP_DATABASE_URL", postgres_url)
    scope, first_thread = f"pg-{uuid4().hex[:8]}", f"t-{uuid4().hex[:8]}"
    models.script("worker", "draft 1", "draft 2")
    models.script("critic", graded(RUBRIC, {"example": HINT}), graded(RUBRIC))
    add = {"action": "add", "rule_id": "", "text": RULE, "criteria": ["example"], "reason": "r"}
    models.script("distill", {"operations": [add]})
    first = run_loop(TASK, RUBRIC, context=context(scope), thread_id=first_thread)  # no db given
    assert first.outcome == "passed" and first.memory_errors == []

    models.script("worker", "draft")
    models.script("critic", graded(RUBRIC))
    models.script("distill", {"operations": []})
    second = run_loop(TASK, RUBRIC, context=context(scope), thread_id=f"t-{uuid4().hex[:8]}")
    assert [rule.text for rule in second.recalled_rules] == [RULE]

    with open_persistence() as persistence:
        assert persistence.location.startswith("postgresql://")
        [item] = persistence.store.search(rules_namespace(scope))
        graph = build_graph(checkpointer=persistence.checkpointer)
        history = list(graph.get_state_history({"configurable": {"thread_id": first_thread}}))
    assert item.value["usage"] == {"consulted": 1, "passed": 1, "rounds_when_passed": 1}
    assert item.value["provenance"]["thread_id"] == first_thread
    assert sorted({len(s.values.get("critiques", [])) for s in history}) == [0, 1, 2]


SHOP = "Write a short product description of a stainless steel water bottle for our shop."


def test_recall_on_postgres_gives_a_rule_to_its_kind_of_task_only(
    models, postgres_url, monkeypatch
) -> None:
    monkeypatch.setenv("CRITIC_LOOP_DATABASE_URL", postgres_url)  # no pgvector: unindexed
    scope = f"pg-{uuid4().hex[:8]}"
    models.script("worker", "draft 1", "draft 2")
    models.script("critic", graded(RUBRIC, {"example": "Include 'Order now'."}), graded(RUBRIC))
    models.script("distill", {"operations": []})
    learned = run_loop(SHOP, RUBRIC, context=context(scope))
    assert learned.memory_report is not None and learned.memory_report.added
    for task, given in (
        ("Write a haiku about autumn rain.", []),
        (
            "Write a short product description of wool hiking socks for our shop.",
            ["Include 'Order now'."],
        ),
    ):
        models.script("worker", "draft")
        models.script("critic", graded(RUBRIC))
        state = asyncio.run(arun_loop(task, RUBRIC, context=context(scope)))
        assert [rule.text for rule in state.recalled_rules] == given, task


def test_async_savers_on_postgres(models, postgres_url) -> None:
    models.script("worker", "draft 1", "draft 2")
    models.script("critic", graded(RUBRIC, {"tone": "simpler"}), graded(RUBRIC))
    models.script("distill", {"operations": []})
    state = asyncio.run(
        arun_loop(
            TASK,
            RUBRIC,
            context=context(f"pg-{uuid4().hex[:8]}"),
            database=postgres_url,
            thread_id=f"a-{uuid4().hex[:8]}",
        )
    )
    assert state.outcome == "passed"
    assert [d.text for d in state.drafts] == ["draft 1", "draft 2"]
