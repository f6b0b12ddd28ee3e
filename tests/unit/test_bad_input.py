"""Bad input gets a clear error before any model is called."""

import re

import pytest
from pydantic import ValidationError

from critic_loop.graphs.app import build_graph
from critic_loop.state.errors import InvalidInput, ModelSetupError
from tests.support.rubrics import RUBRIC, TASK

RUBRIC_DATA = [c.model_dump() for c in RUBRIC]


def nested(levels: int, make) -> object:
    value: object = {}
    for _ in range(levels):
        value = make(value)
    return value


TOO_DEEP = "input: nested more than 64 levels deep (CRITIC_LOOP_MAX_NESTING_DEPTH)"


@pytest.fixture
def scripted(models):
    models.script("worker", "draft")
    models.script("critic")
    return models


def assert_no_model_called(models) -> None:
    assert all(model.calls == 0 for model in models.values())


@pytest.mark.parametrize(
    ("loop_input", "message"),
    [
        ({"task": "", "rubric": RUBRIC_DATA}, "the task is empty"),
        ({"task": "  \n ", "rubric": RUBRIC_DATA}, "the task is empty"),
        ({"task": TASK, "rubric": []}, "the rubric is empty"),
        ({"task": TASK}, "rubric: 'rubric' is required"),
        (
            {"task": TASK, "rubric": [RUBRIC_DATA[0], {**RUBRIC_DATA[1], "id": "length"}]},
            "duplicate criterion id 'length'",
        ),
        ({"task": TASK, "rubric": [{"id": "a", "text": "   "}]}, "must not be blank"),
        (
            {"task": TASK, "rubric": [{"id": "has space", "text": "x y"}]},
            "rubric item 1 ('has space'): the id may use letters, digits and _ . : -",
        ),
        (
            {"task": TASK, "rubric": [{"id": "t", "kind": "test"}]},
            "rubric item 1 ('t'): kind 'test' is not a kind of criterion; did you mean 'tests'? "
            "use one of: llm,",
        ),
        (
            {"task": TASK, "rubric": [{"id": "w", "kind": "word_count", "mx": 5}]},
            "rubric item 1 ('w'): 'mx' is not a setting of a word_count criterion; "
            "it takes: min, max",
        ),
        ({"task": TASK, "rubric": nested(10_000, lambda inner: [inner])}, TOO_DEEP),
        (
            {
                "task": TASK,
                "rubric": [
                    {
                        "id": "s",
                        "kind": "json_schema",
                        "schema": nested(1_000, lambda s: {"not": s}),
                    }
                ],
            },
            TOO_DEEP,
        ),
    ],
)
def test_bad_task_or_rubric_is_refused(scripted, context, loop_input, message) -> None:
    with pytest.raises(InvalidInput, match=re.escape(message)):
        build_graph().invoke(loop_input, context=context)
    assert_no_model_called(scripted)


@pytest.mark.parametrize("cap", [0, 101])
def test_bad_iteration_cap_is_refused(scripted, context, loop_input, cap) -> None:
    with pytest.raises(ValidationError, match="max_iterations"):
        build_graph().invoke(loop_input, context={**context.model_dump(), "max_iterations": cap})
    assert_no_model_called(scripted)


def test_unknown_critic_provider_is_refused_before_the_worker_runs(
    scripted, context, loop_input
) -> None:
    ctx = context.model_copy(update={"critic_model": "nosuch:judge"})
    with pytest.raises(ModelSetupError, match="unknown provider 'nosuch'"):
        build_graph().invoke(loop_input, context=ctx)
    assert_no_model_called(scripted)


def test_missing_api_key_is_refused_before_any_work(
    scripted, context, loop_input, monkeypatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    ctx = context.model_copy(update={"critic_model": "openai:gpt-4.1"})
    with pytest.raises(ModelSetupError, match="OPENAI_API_KEY"):
        build_graph().invoke(loop_input, context=ctx)
    assert_no_model_called(scripted)


def test_missing_prompts_dir_is_refused(scripted, context, loop_input, tmp_path) -> None:
    ctx = context.model_copy(update={"prompts_dir": str(tmp_path / "missing")})
    with pytest.raises(FileNotFoundError, match="prompts_dir"):
        build_graph().invoke(loop_input, context=ctx)
    assert_no_model_called(scripted)


def test_bad_input_loses_nothing_already_checkpointed(scripted, context, loop_input) -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    graph = build_graph(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "bad"}}
    with pytest.raises(InvalidInput):
        graph.invoke({"task": "", "rubric": RUBRIC_DATA}, config, context=context)
    snapshot = graph.get_state(config)
    assert snapshot.values["rubric"] == RUBRIC_DATA  # the input is kept, nothing half-written
    assert snapshot.values.get("drafts", []) == []
    assert snapshot.next == ("check_input",)
    assert "the task is empty" in str(snapshot.tasks[0].error)
