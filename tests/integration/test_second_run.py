"""A thread holds one run: input sent again to a finished thread is refused, no call spent.

LangGraph writes a run's input before its first step; `check_input` refuses it there, so
`build_graph(...).invoke` / `ainvoke`, `run_loop` and the command line agree, and
`critic-loop show` never lists a round twice. Over real HTTP to the scripted model server.
"""

import pytest

from critic_loop import ThreadFinished, build_graph, run_loop
from critic_loop.persistence import aopen_persistence, open_persistence
from critic_loop.state.errors import InvalidInput
from tests.support.openai_server import RoleScript, ScriptedOpenAIServer
from tests.support.verdicts import graded

pytestmark = pytest.mark.integration

RUBRIC = [{"id": "length", "kind": "word_count", "max": 5}, {"id": "tone", "text": "It is kind."}]
TASK = "Greet a neighbour."
CONFIG = {"configurable": {"thread_id": "hash-maps-1"}}


def script() -> RoleScript:
    judged = [{"id": "tone", "text": "It is kind."}]
    return RoleScript(worker=["Hello there, kind neighbour."], critic=[graded(judged)])


def context(server: ScriptedOpenAIServer) -> dict[str, object]:
    return {"worker_model": "openai:w", "critic_model": "openai:c", "base_url": server.base_url}


def test_a_second_invoke_on_a_finished_thread_is_refused_and_show_lists_each_round_once(
    tmp_path, run_cli
) -> None:
    db = str(tmp_path / "runs.sqlite")
    with ScriptedOpenAIServer(script()) as server, open_persistence(db) as persistence:
        graph = build_graph(checkpointer=persistence.checkpointer, store=persistence.store)
        first = graph.invoke({"task": TASK, "rubric": RUBRIC}, CONFIG, context=context(server))
        calls = len(server.requests)
        with pytest.raises(ThreadFinished, match="hash-maps-1 already finished \\(passed\\)"):
            graph.invoke(
                {"task": "Greet a cat.", "rubric": RUBRIC}, CONFIG, context=context(server)
            )
        with pytest.raises(ThreadFinished, match="use a new thread id"):
            run_loop(TASK, RUBRIC, thread_id="hash-maps-1", database=db, context=context(server))
        again = run_cli(
            *("run", "--thread-id", "hash-maps-1", "--db", db, "--task", TASK),
            *("--model", "openai:w", "--base-url", server.base_url),
        )
        assert len(server.requests) == calls  # no model call spent
    assert first["outcome"] == "passed"
    assert again.returncode == 2 and "already finished (passed" in again.stderr
    shown = run_cli("show", "hash-maps-1", "--db", db)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.count("draft, round 1") == 1
    assert TASK in shown.stdout and "Greet a cat." not in shown.stdout  # the run's own task


async def test_a_second_ainvoke_is_refused_and_an_unfinished_thread_resumes_from_none(
    tmp_path,
) -> None:
    db = str(tmp_path / "runs.sqlite")
    with ScriptedOpenAIServer(script()) as server:
        async with aopen_persistence(db) as persistence:
            graph = build_graph(checkpointer=persistence.checkpointer, store=persistence.store)
            interrupted = {**context(server), "review": "every_round"}
            await graph.ainvoke({"task": TASK, "rubric": RUBRIC}, CONFIG, context=interrupted)
            calls = len(server.requests)
            with pytest.raises(InvalidInput, match="has not finished: resume it from None"):
                await graph.ainvoke({"task": TASK, "rubric": RUBRIC}, CONFIG, context=interrupted)
            assert len(server.requests) == calls
            state = await graph.aget_state(CONFIG)
            assert [draft["round"] for draft in state.values["drafts"]] == [1]
