"""The loop with LangGraph's SQLite checkpointer: every round is durable and inspectable."""

import sqlite3

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from critic_loop import LoopExhausted, arun_loop, run_loop
from critic_loop.graphs.app import build_graph
from tests.support.rubrics import RUBRIC, TASK
from tests.support.verdicts import graded

pytestmark = pytest.mark.integration


def script_three_rounds(models) -> None:
    models.script("worker", "draft 1", "draft 2", "draft 3")
    models.script(
        "critic",
        graded(RUBRIC, {"example": "add one", "tone": "simpler"}),
        graded(RUBRIC, {"tone": "simpler"}),
        graded(RUBRIC),
    )


def test_invoke_returns_every_draft_and_history_shows_each_round(
    models, context, loop_input, tmp_path
) -> None:
    script_three_rounds(models)
    config = {"configurable": {"thread_id": "thread-1"}}
    with SqliteSaver.from_conn_string(str(tmp_path / "loop.sqlite")) as saver:
        graph = build_graph(checkpointer=saver)
        out = graph.invoke(loop_input, config, context=context.model_dump())
        history = list(graph.get_state_history(config))

    assert out["outcome"] == "passed"
    assert [d["text"] for d in out["drafts"]] == ["draft 1", "draft 2", "draft 3"]
    assert [c["verdict"]["passed"] for c in out["critiques"]] == [False, False, True]

    # checkpoints: the input, START, check_input, recall, generate + critique per round
    # (a round that goes on is routed on the edge), route and finalize at the end; with no
    # store the memory steps have nothing to do and are skipped
    assert len(history) == 4 + 3 * 2 + 2
    assert "record_rule_usage" not in {task.name for s in history for task in s.tasks}
    oldest_first = list(reversed(history))
    after_critique = [
        s
        for s in oldest_first
        if s.values.get("critiques") and s.next in (("generate",), ("finalize",))
    ]
    assert [len(s.values["critiques"]) for s in after_critique] == [1, 2, 3]
    assert [len(s.values["drafts"]) for s in after_critique] == [1, 2, 3]
    # each round's decision, round by round
    decisions = [
        s.next
        for s in oldest_first
        if s.values.get("critiques") and s.next in (("generate",), ("finalize",))
    ]
    assert decisions == [("generate",), ("generate",), ("finalize",)]
    assert history[0].values["outcome"] == "passed" and history[0].next == ()
    assert history[0].values["memory_report"]["skipped"] == "no store is configured"


def test_state_survives_the_connection(models, context, loop_input, tmp_path) -> None:
    script_three_rounds(models)
    path = str(tmp_path / "loop.sqlite")
    config = {"configurable": {"thread_id": "durable"}}
    with SqliteSaver.from_conn_string(path) as saver:
        build_graph(checkpointer=saver).invoke(loop_input, config, context=context)
    connection = sqlite3.connect(path, check_same_thread=False)
    try:
        values = build_graph(checkpointer=SqliteSaver(connection)).get_state(config).values
    finally:
        connection.close()
    assert [d["text"] for d in values["drafts"]] == ["draft 1", "draft 2", "draft 3"]
    assert values["final"] == "draft 3"


def test_run_loop_helper_raises_with_best_draft_when_asked(models, context, tmp_path) -> None:
    models.script("worker", "draft 1", "draft 2")
    models.script(
        "critic", graded(RUBRIC, {"tone": "x", "length": "y"}), graded(RUBRIC, {"tone": "x"})
    )
    ctx = context.model_copy(update={"on_exhausted": "raise", "max_iterations": 2})
    with SqliteSaver.from_conn_string(str(tmp_path / "loop.sqlite")) as saver:
        with pytest.raises(LoopExhausted) as raised:
            run_loop(TASK, RUBRIC, context=ctx, checkpointer=saver, thread_id="t")
        kept = build_graph(checkpointer=saver).get_state({"configurable": {"thread_id": "t"}})
    assert raised.value.final == "draft 2"
    assert [item.criterion_id for item in raised.value.open_items] == ["tone"]
    assert "exhausted" in str(raised.value)
    assert len(kept.values["drafts"]) == 2  # raising lost nothing


async def test_async_saver_with_ainvoke(models, context, tmp_path) -> None:
    script_three_rounds(models)
    async with AsyncSqliteSaver.from_conn_string(str(tmp_path / "loop.sqlite")) as saver:
        state = await arun_loop(TASK, RUBRIC, context=context, checkpointer=saver, thread_id="a")
        history = [
            s
            async for s in build_graph(checkpointer=saver).aget_state_history(
                {"configurable": {"thread_id": "a"}}
            )
        ]
    assert state.outcome == "passed"
    assert state.rounds == 3
    assert len(history) == 4 + 3 * 2 + 2  # no store: the memory steps are skipped
