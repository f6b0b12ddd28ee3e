"""A person in the loop: the run pauses for review; accept, reject, override or stop."""

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from critic_loop.graphs.app import build_graph
from tests.support.contexts import scripted_context
from tests.support.rubrics import RUBRIC, TASK
from tests.support.verdicts import graded

INPUT = {"task": TASK, "rubric": [c.model_dump() for c in RUBRIC]}
CONFIG = {"configurable": {"thread_id": "reviewed"}}


def start(models, review: str, **settings: object):
    graph = build_graph(checkpointer=InMemorySaver())
    context = scripted_context(review=review, **settings)
    out = graph.invoke(INPUT, CONFIG, context=context)
    return graph, context, out


def pending(graph) -> dict:
    [task] = [t for t in graph.get_state(CONFIG).tasks if t.interrupts]
    return task.interrupts[0].value


def test_every_round_pauses_with_the_draft_verdict_and_actions(models) -> None:
    models.script("worker", "draft one")
    models.script("critic", graded(RUBRIC, {"tone": "Use plainer words."}))
    graph, _, out = start(models, "every_round")
    assert "outcome" not in out or out["outcome"] is None
    request = pending(graph)
    assert request["review"] == "round 1 was graded"
    assert request["draft"] == "draft one"
    tone = next(c for c in request["criteria"] if c["id"] == "tone")
    assert tone == {
        "id": "tone",
        "passed": False,
        "evidence": "evidence for tone",
        "hint": "Use plainer words.",
    }
    assert set(request["actions"]) == {"accept", "reject", "override", "stop"}


def test_accept_ends_the_run_as_accepted_with_that_draft(models) -> None:
    models.script("worker", "draft one")
    models.script("critic", graded(RUBRIC, {"tone": "Use plainer words."}))
    graph, context, _ = start(models, "every_round")
    out = graph.invoke(Command(resume={"action": "accept"}), CONFIG, context=context)
    assert out["outcome"] == "accepted" and out["final"] == "draft one"
    assert out["reviews"][0]["action"] == "accept"
    assert "a person accepted the draft of round 1" in out["outcome_reason"]


def test_reject_sends_the_persons_feedback_to_the_worker(models) -> None:
    models.script("worker", "draft one", "draft two")
    models.script("critic", graded(RUBRIC), graded(RUBRIC))  # the critic passes both
    graph, context, _ = start(models, "every_round")
    feedback = "Open with a real-life analogy, like a coat check."
    graph.invoke(
        Command(resume={"action": "reject", "feedback": feedback}), CONFIG, context=context
    )
    revision = models["worker"].prompts[1]
    assert revision[2].text == "draft one"
    assert feedback in revision[-1].text
    out = graph.invoke(Command(resume={"action": "accept"}), CONFIG, context=context)
    assert out["outcome"] == "accepted" and out["final"] == "draft two"


def test_override_replaces_a_result_and_the_run_decides_again(models) -> None:
    models.script("worker", "draft one")
    models.script("critic", graded(RUBRIC, {"tone": "Use plainer words."}))
    graph, context, _ = start(models, "every_round")
    answer = {
        "action": "override",
        "criterion_id": "tone",
        "passed": True,
        "note": "Fine for our readers.",
    }
    out = graph.invoke(Command(resume=answer), CONFIG, context=context)
    assert out["outcome"] == "passed" and out["final"] == "draft one"
    assert out["open_items"] == []
    assert out["critiques"][0]["verdict"]["passed"] is False  # the critic's own verdict is kept


def test_stop_cancels_the_run(models) -> None:
    models.script("worker", "a", "b", "c")
    same = graded(RUBRIC, {"tone": "x"})
    models.script("critic", same, same, same)
    graph, context, out = start(models, "on_stall", stall_rounds=3)
    assert pending(graph)["review"] == "revising has stalled"
    out = graph.invoke(Command(resume={"action": "stop"}), CONFIG, context=context)
    assert out["outcome"] == "cancelled"


def test_an_unusable_answer_is_asked_again_saying_why(models) -> None:
    models.script("worker", "draft one")
    models.script("critic", graded(RUBRIC, {"tone": "x"}))
    graph, context, _ = start(models, "every_round")
    graph.invoke(Command(resume={"action": "reject"}), CONFIG, context=context)
    assert "a reject needs feedback" in pending(graph)["problem"]
    graph.invoke(Command(resume={"action": "ovveride"}), CONFIG, context=context)
    assert "not one of the actions" in pending(graph)["problem"]
    out = graph.invoke(Command(resume={"action": "stop"}), CONFIG, context=context)
    assert out["outcome"] == "cancelled"


def test_reject_at_the_round_cap_grants_one_more_round(models) -> None:
    models.script("worker", "draft one", "draft two")
    models.script("critic", graded(RUBRIC, {"tone": "x"}), graded(RUBRIC))
    graph, context, _ = start(models, "on_exhausted", max_iterations=1)
    assert pending(graph)["review"] == "the round cap (1) was reached"
    out = graph.invoke(
        Command(resume={"action": "reject", "feedback": "One more try, simpler."}),
        CONFIG,
        context=context,
    )
    assert out["outcome"] == "passed" and out["final"] == "draft two"


def test_rejections_never_take_a_run_past_the_hard_round_limit() -> None:
    from critic_loop.nodes.loop.stopping import extra_rounds
    from critic_loop.state.context import MAX_ITERATIONS_LIMIT
    from critic_loop.state.records import DraftRef, Review

    def rejected_at(round_number: int) -> Review:
        return Review(
            at_round=round_number,
            draft=DraftRef(round=round_number, candidate=1),
            asked_because="the round cap was reached",
            action="reject",
            feedback="again",
        )

    cap = 98
    reviews = [rejected_at(r) for r in range(cap, cap + 10)]
    assert extra_rounds(reviews, cap) == MAX_ITERATIONS_LIMIT - cap
    assert extra_rounds(reviews[:1], cap) == 1


@pytest.mark.parametrize("review", ["never", "on_stall", "on_exhausted"])
def test_a_run_that_passes_on_its_own_is_not_paused(models, review) -> None:
    models.script("worker", "draft")
    models.script("critic", graded(RUBRIC))
    _, _, out = start(models, review)
    assert out["outcome"] == "passed"
