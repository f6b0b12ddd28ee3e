"""Time travel: continue a thread from an earlier round with other settings.

And the other way a thread goes on: `run_loop` / `arun_loop` on an unfinished thread
resume it, telling `on_start` so before the first step.
"""

import asyncio

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.errors import InvalidUpdateError
from langgraph.pregel import Pregel
from langgraph.store.memory import InMemoryStore

from critic_loop import ReviewPending, ThreadFinished, arun_loop, fork_loop, run_loop
from critic_loop.graphs.app import build_graph
from critic_loop.state.context import Context
from critic_loop.thread_settings import stored_settings
from tests.support.rubrics import RUBRIC, TASK
from tests.support.verdicts import graded

pytestmark = pytest.mark.integration


def context(**overrides) -> Context:
    settings = {
        "worker_model": "scripted:worker",
        "critic_model": "scripted:critic",
        "memory": False,
        "stall_rounds": 10,
    }
    return Context(**{**settings, **overrides})


@pytest.fixture
def saver(tmp_path):
    with SqliteSaver.from_conn_string(str(tmp_path / "runs.sqlite")) as checkpointer:
        yield checkpointer


def original_run(models, saver, cap: int) -> dict:
    models.script("worker", "draft 1", "draft 2")
    models.script("critic", graded(RUBRIC, {"tone": "x"}), graded(RUBRIC, {"length": "y"}))
    state = run_loop(
        TASK, RUBRIC, context=context(max_iterations=cap), checkpointer=saver, thread_id="t"
    )
    return state.model_dump()


def test_fork_from_round_one_with_another_cap_branches_and_keeps_the_original(
    models, saver
) -> None:
    original = original_run(models, saver, cap=2)
    assert original["outcome"] == "exhausted"
    graph = build_graph(checkpointer=saver)
    before = list(graph.get_state_history({"configurable": {"thread_id": "t"}}))
    original_tip = before[0]

    models.script("worker", "draft 2 (branch)", "draft 3 (branch)")
    models.script("critic", graded(RUBRIC, {"example": "z"}), graded(RUBRIC))
    forked = fork_loop("t", 1, context=context(max_iterations=4), checkpointer=saver)

    assert forked.outcome == "passed"
    assert [d.text for d in forked.drafts] == ["draft 1", "draft 2 (branch)", "draft 3 (branch)"]
    assert forked.rounds == 3
    # the original branch is intact and still readable at its own checkpoint
    still = graph.get_state(original_tip.config)
    assert still.values["outcome"] == "exhausted"
    assert [d["text"] for d in still.values["drafts"]] == ["draft 1", "draft 2"]
    after = list(graph.get_state_history({"configurable": {"thread_id": "t"}}))
    assert {s.config["configurable"]["checkpoint_id"] for s in before} <= {
        s.config["configurable"]["checkpoint_id"] for s in after
    }
    # the thread's head is now the branch
    assert graph.get_state({"configurable": {"thread_id": "t"}}).values["final"] == (
        "draft 3 (branch)"
    )


def test_fork_from_the_last_round_with_a_larger_cap_keeps_revising(models, saver) -> None:
    original_run(models, saver, cap=2)
    models.script("worker", "draft 3")
    models.script("critic", graded(RUBRIC))
    forked = fork_loop("t", 2, context=context(max_iterations=3), checkpointer=saver)
    assert forked.outcome == "passed"
    assert [d.text for d in forked.drafts] == ["draft 1", "draft 2", "draft 3"]


def test_fork_with_a_smaller_cap_stops_without_another_round(models, saver) -> None:
    models.script("worker", "draft 1", "draft 2", "draft 3")
    models.script(
        "critic", graded(RUBRIC, {"tone": "x"}), graded(RUBRIC, {"length": "y"}), graded(RUBRIC)
    )
    run_loop(TASK, RUBRIC, context=context(max_iterations=5), checkpointer=saver, thread_id="t")
    calls = models["worker"].calls
    forked = fork_loop("t", 1, context=context(max_iterations=1), checkpointer=saver)
    assert forked.outcome == "exhausted"
    assert forked.rounds == 1
    assert models["worker"].calls == calls  # no model was called for the branch


def test_fork_with_a_different_worker_model(models, saver) -> None:
    original_run(models, saver, cap=2)
    models.script("stronger", "draft 2 by the stronger worker")
    models.script("critic", graded(RUBRIC))
    forked = fork_loop(
        "t",
        1,
        context=context(max_iterations=4, worker_model="scripted:stronger"),
        checkpointer=saver,
    )
    assert forked.final == "draft 2 by the stronger worker"
    assert models["stronger"].calls == 1


def test_a_fork_of_a_reviewed_thread_waits_for_its_person_with_its_own_settings(
    models, saver
) -> None:
    models.script("worker", "draft 1", "draft 2")
    models.script("critic", graded(RUBRIC, {"tone": "x"}), graded(RUBRIC, {"tone": "x"}))
    reviewed = context(max_iterations=2, review="every_round")
    answers = iter([{"action": "reject", "feedback": "warmer"}, {"action": "stop"}])
    original = run_loop(
        TASK,
        RUBRIC,
        context=reviewed,
        checkpointer=saver,
        thread_id="t",
        reviewer=lambda _: next(answers),
    )
    assert original.outcome == "cancelled" and original.rounds == 2

    forked = context(max_iterations=4, review="every_round")
    with pytest.raises(ReviewPending) as waiting:
        fork_loop("t", 1, context=forked, checkpointer=saver)
    assert waiting.value.request["round"] == 1
    head = build_graph(checkpointer=saver).get_state({"configurable": {"thread_id": "t"}})
    assert head.next == ("route",)  # the review waits at the branch's head, with its settings
    assert stored_settings(head.metadata).values["max_iterations"] == 4

    accepted = run_loop(
        TASK,
        RUBRIC,
        context=forked,
        checkpointer=saver,
        thread_id="t",
        reviewer=lambda _: {"action": "accept"},
    )
    assert accepted.outcome == "accepted"
    assert [d.text for d in accepted.drafts] == ["draft 1"]


def test_a_state_edit_after_grading_leaves_the_decision_to_route(models, saver) -> None:
    models.script("worker", "draft 1")
    models.script("critic", graded(RUBRIC, {"tone": "x"}))
    graph = build_graph(checkpointer=saver)
    config = {"configurable": {"thread_id": "edited"}}
    start = {"task": TASK, "rubric": [c.model_dump() for c in RUBRIC]}
    graph.invoke(start, config, context=context(), interrupt_after=["critique"])
    assert graph.get_state(config).next == ("generate",)  # the edge sent the next turn
    graph.update_state(config, {"feedback": []})  # as the last step, critique (Studio's edit)
    assert graph.get_state(config).next == ("route",)
    models.script("worker", "draft 2")
    models.script("critic", graded(RUBRIC))
    assert graph.invoke(None, config, context=context())["outcome"] == "passed"
    with pytest.raises(InvalidUpdateError, match="first_round decides only in a run"):
        graph.update_state(config, {"feedback": []}, as_node="recall")


def test_a_run_reads_its_result_from_the_stream_not_from_the_thread(
    models, saver, monkeypatch
) -> None:
    reads = []
    get_state = Pregel.get_state
    monkeypatch.setattr(Pregel, "get_state", lambda *a, **k: reads.append(1) or get_state(*a, **k))
    models.script("worker", "draft 1", "draft 2")
    models.script("critic", graded(RUBRIC, {"tone": "x"}), graded(RUBRIC))
    state = run_loop(TASK, RUBRIC, context=context(), checkpointer=saver, thread_id="once")
    assert state.outcome == "passed" and [d.text for d in state.drafts] == ["draft 1", "draft 2"]
    assert len(reads) == 1  # where the thread stands before it starts; no replay at the end


class DiesAfterFinalize(InMemorySaver):
    """Saves finalize's writes, then dies before the checkpoint that follows them."""

    armed = False

    def put_writes(self, config, writes, task_id, task_path=""):
        super().put_writes(config, writes, task_id, task_path)
        self.armed = self.armed or any(channel == "outcome" for channel, _ in writes)

    def put(self, config, checkpoint, metadata, new_versions):
        if self.armed:
            self.armed = False
            raise RuntimeError("the process died here")
        return super().put(config, checkpoint, metadata, new_versions)


def test_a_run_that_died_after_its_outcome_was_written_resumes_to_learn(models) -> None:
    saver, store = DiesAfterFinalize(), InMemoryStore()
    models.script("worker", "draft 1", "draft 2")
    models.script("critic", graded(RUBRIC, {"tone": "warmer"}), graded(RUBRIC))
    models.script("distill", {"operations": []})
    learning = context(memory=True, distill_model="scripted:distill")
    options = {"context": learning, "checkpointer": saver, "store": store, "thread_id": "t"}
    with pytest.raises(RuntimeError, match="died here"):
        run_loop(TASK, RUBRIC, **options)
    resumed = run_loop(TASK, RUBRIC, **options)  # not ThreadFinished: memory's steps are left
    assert resumed.outcome == "passed" and resumed.memory_report is not None
    assert models["distill"].calls == 1


def test_unknown_round_is_a_clear_error(models, saver) -> None:
    original_run(models, saver, cap=2)
    with pytest.raises(LookupError, match="no graded round 7"):
        fork_loop("t", 7, context=context(), checkpointer=saver)


def test_resuming_before_finalize_ends_as_decided_and_a_fork_revises_further(models, saver) -> None:
    """finalize never decides again: a larger cap takes a fork from the last round."""
    models.script("worker", "draft 1", "draft 2")
    models.script("critic", graded(RUBRIC, {"tone": "x"}), graded(RUBRIC))
    graph = build_graph(checkpointer=saver)
    config = {"configurable": {"thread_id": "paused"}}
    graph.invoke(
        {"task": TASK, "rubric": [c.model_dump() for c in RUBRIC]},
        config,
        context=context(max_iterations=1),
        interrupt_before=["finalize"],
    )
    assert graph.get_state(config).next == ("finalize",)
    out = graph.invoke(None, config, context=context(max_iterations=3))
    assert (out["outcome"], out["exhausted_by"]) == ("exhausted", "max_iterations")
    forked = fork_loop("paused", 1, context=context(max_iterations=3), checkpointer=saver)
    assert forked.outcome == "passed"
    assert [d.text for d in forked.drafts] == ["draft 1", "draft 2"]


def test_on_start_is_told_whether_the_thread_is_new_or_resumed(models) -> None:
    saver, starts = InMemorySaver(), []
    models.script("worker", "draft 1")
    models.script("critic", graded(RUBRIC, {"tone": "x"}))
    paused = context(review="every_round")
    options = {"context": paused, "checkpointer": saver, "thread_id": "r"}
    with pytest.raises(ReviewPending):
        run_loop(TASK, RUBRIC, on_start=starts.append, **options)
    with pytest.raises(ReviewPending):  # resumed, under asyncio: the same review waits
        asyncio.run(arun_loop("Another task.", RUBRIC, on_start=starts.append, **options))
    accepted = run_loop(
        TASK, RUBRIC, on_start=starts.append, reviewer=lambda _: {"action": "accept"}, **options
    )
    assert (accepted.outcome, accepted.final) == ("accepted", "draft 1")
    with pytest.raises(ThreadFinished):  # refused before it starts
        run_loop(TASK, RUBRIC, on_start=starts.append, **options)
    told = [(run.thread_id, run.resuming, run.input_differs, run.location) for run in starts]
    assert told == [("r", False, False, None), ("r", True, True, None), ("r", True, False, None)]
    assert all(run.context.review == "every_round" for run in starts)
    assert models["worker"].calls == 1


@pytest.fixture(params=["sqlite", "postgres"])
def database(request, tmp_path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "long.sqlite")
    return request.getfixturevalue("postgres_url")


def test_fork_from_round_30_of_a_40_round_thread_on_the_stored_writes(
    database, tmp_path, monkeypatch, capsys
) -> None:
    from uuid import uuid4

    from critic_loop.persistence import open_persistence
    from critic_loop.run import thread_config
    from tests.support.long_history import DistinctDrafts, long_run_context
    from tests.support.openai_server import ScriptedOpenAIServer
    from tests.support.run_history import cli_runner

    thread = f"long-{uuid4().hex[:8]}"
    with (
        ScriptedOpenAIServer(DistinctDrafts()) as server,
        open_persistence(database) as persistence,
    ):
        saver = persistence.checkpointer
        original = run_loop(
            TASK,
            RUBRIC,
            context=long_run_context(40, server.base_url),
            thread_id=thread,
            checkpointer=saver,
            store=persistence.store,
        )
        assert (original.outcome, original.rounds) == ("exhausted", 40)
        tip = saver.get_tuple(thread_config(thread)).config
        forked = fork_loop(
            thread,
            30,
            context=long_run_context(35, server.base_url),
            checkpointer=saver,
            store=persistence.store,
        )
        graph = build_graph(checkpointer=saver)
        still = graph.get_state(tip).values
    assert (forked.outcome, forked.rounds) == ("exhausted", 35)
    assert forked.drafts[:30] == original.drafts[:30]
    assert not {d.text for d in forked.drafts[30:]} & {d.text for d in original.drafts}
    assert [d.round for d in forked.drafts] == list(range(1, 36))
    # the original branch still reads whole at its own tip
    assert [d["text"] for d in still["drafts"]] == [d.text for d in original.drafts]
    assert len(still["critiques"]) == 40

    cli = cli_runner(tmp_path, monkeypatch, capsys)
    shown = cli("show", thread, "--db", database, "--json").json
    assert [d["text"] for d in shown["values"]["drafts"]] == [d.text for d in forked.drafts]
    assert len(shown["round_seconds"]) == 35
    story = cli("show", thread, "--db", database).stdout
    assert "round 35" in story and "round 36" not in story
