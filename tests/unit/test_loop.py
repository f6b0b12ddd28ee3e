"""Every way the loop can end, driven through the compiled graph with scripted models."""

import logging

import pytest

from critic_loop import LoopExhausted, LoopStalled, VerifierFailed, result_of
from critic_loop.graphs.app import build_graph
from critic_loop.state.context import Context
from tests.support.rubrics import RUBRIC, TASK
from tests.support.verdicts import graded


def with_overrides(context: Context, **overrides) -> Context:
    return Context(**{**context.model_dump(), **overrides})


def run(loop_input, context, **overrides):
    return build_graph().invoke(loop_input, context=with_overrides(context, **overrides))


def test_pass_on_round_one(models, context, loop_input) -> None:
    models.script("worker", "draft 1")
    models.script("critic", graded(RUBRIC))
    out = run(loop_input, context)
    assert out["outcome"] == "passed"
    assert out["final"] == "draft 1"
    assert out["final_round"] == 1
    assert out["open_items"] == []
    assert len(out["drafts"]) == len(out["critiques"]) == 1
    assert models["worker"].calls == models["critic"].calls == 1


def test_pass_on_round_three_after_revisions(models, context, loop_input) -> None:
    models.script("worker", "draft 1", "draft 2", "draft 3")
    models.script(
        "critic",
        graded(RUBRIC, {"example": "add an example", "tone": "simpler words"}),
        graded(RUBRIC, {"tone": "simpler words"}),
        graded(RUBRIC),
    )
    out = run(loop_input, context)
    assert out["outcome"] == "passed"
    assert out["final"] == "draft 3"
    assert out["open_items"] == []
    assert [d["text"] for d in out["drafts"]] == ["draft 1", "draft 2", "draft 3"]
    assert [c["round"] for c in out["critiques"]] == [1, 2, 3]
    assert [c["verdict"]["score"] for c in out["critiques"]] == pytest.approx([1 / 3, 2 / 3, 1.0])
    assert [f["round"] for f in out["feedback"]] == [1, 2]


def test_exhausted_returns_the_best_draft_not_the_last(models, context, loop_input) -> None:
    models.script("worker", "draft 1", "draft 2", "draft 3")
    models.script(
        "critic",
        graded(RUBRIC, {"example": "add one", "tone": "simpler"}),
        graded(RUBRIC, {"tone": "simpler"}),
        graded(RUBRIC, {"length": "shorter", "example": "add one"}),
    )
    out = run(loop_input, context, max_iterations=3)
    assert out["outcome"] == "exhausted"
    assert out["final"] == "draft 2"
    assert out["final_round"] == 2
    assert [item["criterion_id"] for item in out["open_items"]] == ["tone"]
    assert out["open_items"][0]["hint"] == "simpler"
    assert out["open_items"][0]["text"] == RUBRIC[2].text
    assert len(out["drafts"]) == len(out["critiques"]) == 3


def test_best_draft_ties_go_to_the_latest(models, context, loop_input) -> None:
    models.script("worker", "draft 1", "draft 2")
    models.script("critic", graded(RUBRIC, {"tone": "x"}), graded(RUBRIC, {"tone": "y"}))
    out = run(loop_input, context, max_iterations=2, on_stall="stop", stall_rounds=3)
    assert out["outcome"] == "exhausted"
    assert out["final"] == "draft 2"
    assert [item["criterion_id"] for item in out["open_items"]] == ["tone"]


def test_a_revision_that_fails_what_its_draft_passed_is_never_the_final(
    models, context, loop_input
) -> None:
    """Same score, but the revision lost `length`, which draft 1 passed: draft 1 stays best."""
    models.script("worker", "draft 1 is long enough", "draft 2 is long enough too")
    models.script("critic", graded(RUBRIC, {"tone": "x"}), graded(RUBRIC, {"length": "y"}))
    out = run(loop_input, context, max_iterations=2)
    assert out["outcome"] == "exhausted"
    assert out["final"] == "draft 1 is long enough"
    assert [item["criterion_id"] for item in out["open_items"]] == ["tone"]
    assert "length" in out["critiques"][1]["regressed"]


def test_a_failing_revision_that_shrank_to_a_fragment_is_never_the_final(
    models, context, loop_input
) -> None:
    """The quickstart's shrinking hash map: 8 characters of 113, failing, is not the best."""
    first = "A hash map stores values under keys and finds each one by hashing its key."
    models.script("worker", first, "hash map")
    models.script("critic", graded(RUBRIC, {"tone": "x"}), graded(RUBRIC, {"tone": "y"}))
    out = run(loop_input, context, max_iterations=2, on_stall="stop", stall_rounds=3)
    assert out["final"] == first
    assert out["critiques"][1]["regressed"].startswith("it keeps 8 of the")


def test_stalled_when_the_same_criteria_keep_failing(models, context, loop_input) -> None:
    models.script("worker", "draft 1", "draft 2", "draft 3")
    models.script("critic", *[graded(RUBRIC, {"tone": "simpler words"})] * 3)
    out = run(loop_input, context, max_iterations=10, stall_rounds=3, on_stall="stop")
    assert out["outcome"] == "stalled"
    assert out["final"] == "draft 3"
    assert [item["criterion_id"] for item in out["open_items"]] == ["tone"]
    assert len(out["drafts"]) == len(out["critiques"]) == 3
    assert models["worker"].calls == 3


def test_stalled_when_the_score_stops_improving(models, context, loop_input) -> None:
    models.script("worker", *[f"draft {n}" for n in range(1, 5)])
    models.script(
        "critic",
        graded(RUBRIC, {"tone": "a"}),
        graded(RUBRIC, {"length": "b"}),
        graded(RUBRIC, {"example": "c"}),
        graded(RUBRIC, {"tone": "d"}),
    )
    out = run(loop_input, context, max_iterations=10, stall_rounds=3, on_stall="stop")
    assert out["outcome"] == "stalled"
    assert len(out["drafts"]) == len(out["critiques"]) == 4
    assert out["final"] == "draft 4"
    assert [item["criterion_id"] for item in out["open_items"]] == ["tone"]


def test_verifier_error_after_malformed_verdicts(models, context, loop_input) -> None:
    models.script("worker", "draft 1")
    models.script(
        "critic",
        "this is not JSON at all",
        {"results": "nope"},
        {"results": [], "feedback": "", "passed": True},  # no criterion graded at all
    )
    out = run(loop_input, context, critic_attempts=3)
    assert out["outcome"] == "verifier_error"
    assert len(out["drafts"]) == len(out["critiques"]) == 1
    assert out["final"] == "draft 1"
    assert [item["criterion_id"] for item in out["open_items"]] == ["length", "example", "tone"]
    assert all(item["evidence"].startswith("Not graded") for item in out["open_items"])
    critique = out["critiques"][0]
    assert critique["verdict"] is None
    assert critique["attempts"] == 3
    assert len(critique["rejected"]) == 3
    assert "not valid JSON for the schema" in critique["rejected"][0]
    assert "does not match the schema" in critique["rejected"][1]
    assert "criteria not graded: 'length', 'example', 'tone'" in critique["rejected"][2]
    assert "last problem" in critique["error"]
    assert models["worker"].calls == 1


def test_verifier_error_later_keeps_the_best_graded_draft(models, context, loop_input) -> None:
    models.script("worker", "draft 1", "draft 2")
    models.script("critic", graded(RUBRIC, {"tone": "simpler"}), "garbage", "garbage")
    out = run(loop_input, context, critic_attempts=2)
    assert out["outcome"] == "verifier_error"
    assert out["final"] == "draft 1"
    assert [item["criterion_id"] for item in out["open_items"]] == ["tone"]
    assert len(out["drafts"]) == len(out["critiques"]) == 2


def test_overall_pass_contradicting_a_failed_criterion_never_passes(
    models, context, loop_input
) -> None:
    models.script("worker", "draft 1")
    models.script("critic", *[graded(RUBRIC, {"tone": "simpler"}, claim=True)] * 2)
    out = run(loop_input, context, critic_attempts=2, max_iterations=1)
    # the last answer is taken on stricter terms: its results stand, its claim does not
    assert out["outcome"] == "exhausted"
    assert out["final"] == "draft 1"
    assert [item["criterion_id"] for item in out["open_items"]] == ["tone"]
    assert len(out["drafts"]) == len(out["critiques"]) == 1
    assert models["critic"].calls == 2
    assert all("overall result says passed" in r for r in out["critiques"][0]["rejected"])


def test_a_last_answer_that_misses_criteria_still_gives_a_verdict(
    models, context, loop_input
) -> None:
    models.script("worker", "draft 1")
    models.script("critic", *[graded(RUBRIC[:1])] * 2)  # only 'length' graded, twice
    out = run(loop_input, context, critic_attempts=2, max_iterations=1)
    critique = out["critiques"][0]
    assert critique["error"] is None and critique["verdict"] is not None
    results = {r["criterion_id"]: r for r in critique["verdict"]["results"]}
    assert results["length"]["passed"]
    assert not results["example"]["passed"] and not results["tone"]["passed"]
    assert (
        results["tone"]["evidence"] == "Not met: the judge gave no valid result for this criterion."
    )
    assert out["outcome"] == "exhausted"


def test_contradiction_is_retried_and_the_consistent_answer_wins(
    models, context, loop_input
) -> None:
    models.script("worker", "draft 1", "draft 2")
    models.script(
        "critic",
        graded(RUBRIC, {"tone": "simpler"}, claim=True),
        graded(RUBRIC, {"tone": "simpler"}),
        graded(RUBRIC),
    )
    out = run(loop_input, context)
    assert out["outcome"] == "passed"
    first = out["critiques"][0]
    assert first["attempts"] == 2
    assert first["verdict"]["passed"] is False
    retry_prompt = models["critic"].texts()[1]
    assert "Your previous answer was rejected" in retry_prompt
    assert "overall result says passed" in retry_prompt


def test_empty_draft_fails_every_criterion_without_calling_the_critic(
    models, context, loop_input
) -> None:
    models.script("worker", "   ", "draft 2")
    models.script("critic", graded(RUBRIC))
    out = run(loop_input, context)
    assert out["outcome"] == "passed"
    empty = out["critiques"][0]
    assert empty["attempts"] == 0
    assert empty["verdict"]["score"] == 0.0
    assert models["critic"].calls == 1


def test_async_invocation_gives_the_same_result(models, context, loop_input) -> None:
    import asyncio

    models.script("worker", "draft 1", "draft 2")
    models.script("critic", graded(RUBRIC, {"tone": "simpler"}), graded(RUBRIC))
    out = asyncio.run(build_graph().ainvoke(loop_input, context=context))
    assert out["outcome"] == "passed"
    assert out["final"] == "draft 2"


@pytest.mark.parametrize(
    ("script", "overrides", "error"),
    [
        ([graded(RUBRIC, {"tone": "x"})] * 2, {"max_iterations": 2}, LoopExhausted),
        ([graded(RUBRIC, {"tone": "x"})] * 2, {"stall_rounds": 2, "on_stall": "stop"}, LoopStalled),
        (["garbage"], {"critic_attempts": 1}, VerifierFailed),
    ],
)
def test_raise_mode_raises_with_the_best_draft_and_open_items(
    models, context, loop_input, script, overrides, error
) -> None:
    models.script("worker", "draft 1", "draft 2")
    models.script("critic", *script)
    ctx = with_overrides(context, on_exhausted="raise", **overrides)
    out = build_graph().invoke(loop_input, context=ctx)
    with pytest.raises(error) as raised:
        result_of(out, ctx)
    assert raised.value.outcome == out["outcome"]
    assert raised.value.final == out["final"]
    assert [i.model_dump() for i in raised.value.open_items] == out["open_items"]
    assert len(raised.value.open_items) >= 1
    assert f"'{out['outcome']}'" in str(raised.value)


def test_best_mode_returns_without_raising(models, context, loop_input) -> None:
    models.script("worker", "draft 1")
    models.script("critic", graded(RUBRIC, {"tone": "x"}))
    ctx = with_overrides(context, max_iterations=1)
    state = result_of(build_graph().invoke(loop_input, context=ctx), ctx)
    assert state.outcome == "exhausted"
    assert state.final == "draft 1"


def test_context_as_a_plain_dict(models, loop_input) -> None:
    models.script("worker", "draft 1")
    models.script("critic", graded(RUBRIC))
    out = build_graph().invoke(
        loop_input,
        context={"worker_model": "scripted:worker", "critic_model": "scripted:critic"},
    )
    assert out["outcome"] == "passed"


def test_each_round_streams_a_draft_and_a_verdict_event(models, context, loop_input) -> None:
    models.script("worker", "draft 1", "draft 2")
    models.script("critic", graded(RUBRIC, {"tone": "simpler"}), graded(RUBRIC))
    events = list(build_graph().stream(loop_input, context=context, stream_mode="custom"))
    assert [(e["event"], e["round"]) for e in events] == [
        ("draft", 1),
        ("verdict", 1),
        ("draft", 2),
        ("verdict", 2),
        ("finished", 2),
    ]
    assert events[-1]["outcome"] == "passed"
    assert events[-1]["learning"] is False  # no store: nothing will be distilled
    first = events[1]
    assert first["passed"] is False
    assert first["score"] == pytest.approx(2 / 3)
    plain = {"skipped": False, "terminal": False, "severity": "must", "weight": 1.0}
    assert first["criteria"] == [
        {"id": "length", "passed": True, **plain},
        {"id": "example", "passed": True, **plain},
        {"id": "tone", "passed": False, **plain},
    ]
    assert first["missed"] == [
        "must criteria not met: tone",
        "weighted score 0.67 is below the bar 1.00",
    ]
    assert (first["musts_passed"], first["musts_total"]) == (2, 3)
    assert events[3]["passed"] is True and events[3]["error"] is None


def test_checkpoints_hold_plain_data_any_checkpointer_loads(models, context, caplog) -> None:
    """Pending sends (the worker's turns) are JSON, so a stock checkpointer loads them."""
    from langgraph.checkpoint.memory import InMemorySaver

    models.script("worker", "draft 1", "draft 2")
    models.script("critic", graded(RUBRIC, {"tone": "simpler"}), graded(RUBRIC))
    graph = build_graph(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "plain"}}
    caplog.set_level(logging.WARNING, logger="langgraph.checkpoint.serde")
    out = graph.invoke(
        {"task": TASK, "rubric": [c.model_dump() for c in RUBRIC]}, config, context=context
    )
    assert out["outcome"] == "passed"
    assert len(list(graph.get_state_history(config))) > 5
    assert not [r for r in caplog.records if "unregistered type" in r.getMessage()]


def test_a_draft_that_repeats_its_instructions_fails_unjudged_and_is_never_the_final(
    models, context, loop_input
) -> None:
    """Seen in a real run: the 0.5B worker's final draft was its own instructions, echoed."""
    echo = (
        "When you revise, start from your previous version: change what the feedback asks "
        "for and keep what already works."
    )
    first = "A hash map stores values under keys and finds each one by hashing its key."
    models.script("worker", first, echo)
    models.script("critic", graded(RUBRIC, {"tone": "simpler"}))
    out = run(loop_input, context, max_iterations=2)
    assert models["critic"].calls == 1  # the echo is not worth a judge's call
    echoed = out["critiques"][1]["verdict"]["results"]
    assert not any(result["passed"] for result in echoed)
    assert "repeats the instructions" in echoed[0]["evidence"]
    assert out["final"] == first


@pytest.mark.parametrize(
    "pasted",
    [
        "When you revise, start from your previous version: give the day.",
        "Earlier attempts at this task did not pass review. Apologise for the trouble.",
    ],
)
def test_a_draft_with_a_line_of_its_instructions_pasted_in_fails_unjudged(
    models, context, loop_input, pasted
) -> None:
    """Seen in the judged benchmark: finals that began with a line of the worker's prompt."""
    first = "A hash map stores values under keys and finds each one by hashing its key."
    models.script("worker", first, f"{pasted} A hash map finds a value by hashing its key.")
    models.script("critic", graded(RUBRIC, {"tone": "simpler"}))
    out = run(loop_input, context, max_iterations=2)
    assert models["critic"].calls == 1
    assert "repeats the instructions" in out["critiques"][1]["verdict"]["results"][0]["evidence"]
    assert out["final"] == first


def test_a_draft_that_does_what_its_hint_asked_is_judged_not_taken_for_an_echo(
    models, context, loop_input
) -> None:
    """A draft that says what a failed criterion asks shares its words; that is no echo."""
    first = "A hash map stores values under keys."
    revised = "The answer includes one concrete worked example: ages."
    models.script("worker", first, revised)
    models.script("critic", graded(RUBRIC, {"example": "add an example"}), graded(RUBRIC))
    out = run(loop_input, context, max_iterations=2)
    assert models["critic"].calls == 2  # the revision went to the judge
    assert out["outcome"] == "passed" and out["final"] == revised
