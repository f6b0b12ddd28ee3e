"""What the default settings do after round 1, over real HTTP to the scripted model server.

Three candidates that fail alike are one round: the best is revised with the hint, which
names a near miss. A revision that repeats its draft is asked again within its turn, more
sharply. Fresh samples come only when revising stopped helping.
"""

from typing import Any

import pytest

from critic_loop.graphs.app import build_graph
from critic_loop.nodes.loop.worker_turns import UNCHANGED
from critic_loop.state.context import Context
from tests.support.openai_server import Answer, ScriptedOpenAIServer, Text

pytestmark = pytest.mark.integration

TASK = "Write a two-sentence product description of a steel water bottle."
RUBRIC = [
    {"id": "length", "kind": "word_count", "max": 60},
    {"id": "closing", "kind": "contains", "phrases": ["Order now."]},
]
DRAFT = "A steel bottle that keeps water cold all day. Perfect for your {} use. Order now!"


def revising(request: dict[str, Any]) -> bool:
    return any(message["role"] == "assistant" for message in request["messages"])


def run(server: ScriptedOpenAIServer) -> dict[str, Any]:
    context = Context(
        worker_model="openai:w", critic_model="openai:c", base_url=server.base_url, memory=False
    )
    return build_graph().invoke({"task": TASK, "rubric": RUBRIC}, context=context)


def test_three_candidates_missing_the_closing_line_are_revised_and_pass_in_round_two() -> None:
    uses = iter(["daily", "weekend", "office"])  # three candidates, each its own

    def worker(request: dict[str, Any]) -> Answer:
        if revising(request):
            draft = request["messages"][-2]["content"]
            return Text(draft.replace("Order now!", "Order now."))
        return Text(DRAFT.format(next(uses)))

    with ScriptedOpenAIServer(worker) as server:
        out = run(server)
        prompts = [request["messages"] for request in server.plain_requests()]
    assert out["outcome"] == "passed" and out["final_round"] == 2
    assert [(d["round"], d["origin"]) for d in out["drafts"]] == [
        (1, "first"),
        (1, "first"),
        (1, "first"),
        (2, "revision"),
    ]
    assert "Include 'Order now.'." in prompts[3][-1]["content"]  # the hint, in the revision
    assert out["final"].endswith("Order now.")


def test_a_draft_ending_order_now_with_a_bang_is_told_the_near_miss() -> None:
    with ScriptedOpenAIServer(lambda request: Text(DRAFT.format("daily"))) as server:
        run(server)
        prompts = [request["messages"] for request in server.plain_requests()]
    revision = prompts[3][-1]["content"]
    assert "'Order now!' is there; it must read exactly 'Order now.'" in revision


def copies_until_told(request: dict[str, Any]) -> Answer:
    """A worker whose revision copies its draft unless told it repeated itself."""
    draft = request["messages"][-2]["content"] if revising(request) else ""
    if revising(request) and UNCHANGED not in request["messages"][-1]["content"]:
        return Text(draft)
    return Text(draft.replace("Order now!", "Order now.") or DRAFT.format("daily"))


def test_a_revision_repeating_its_draft_is_asked_again_at_once_as_a_sharper_revision() -> None:
    with ScriptedOpenAIServer(copies_until_told) as server:
        out = run(server)
        prompts = [request["messages"] for request in server.plain_requests()]
    assert out["outcome"] == "passed" and out["final_round"] == 2
    second = out["drafts"][3]
    revised = {"round": 1, "candidate": 1}
    assert (second["round"], second["origin"], second["revises"]) == (2, "revision", revised)
    assert second["attempts"] == 2 and len(prompts) == 5  # one more call, not one more round
    assert [m["role"] for m in prompts[4]].count("assistant") == 1  # that draft, to change


def test_a_fresh_sample_comes_only_after_the_sharper_revision_repeated_the_draft_too() -> None:
    fresh = []

    def worker(request: dict[str, Any]) -> Answer:
        if revising(request):  # copies every draft it revises, told or not
            return Text(request["messages"][-2]["content"])
        fresh.append("Earlier attempts" in request["messages"][-1]["content"])
        return Text(DRAFT.format(len(fresh)).replace("Order now!", "Order now." * fresh[-1]))

    with ScriptedOpenAIServer(worker) as server:
        out = run(server)
    assert [(d["round"], d["origin"], d["attempts"]) for d in out["drafts"]][3:5] == [
        (2, "revision", 2),  # the revision and the sharper one, both copies
        (3, "resample", 1),
    ]
    assert out["outcome"] == "passed" and out["final_round"] == 3
