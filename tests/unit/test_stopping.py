"""The stop rules live in one module: a rule added to `RULES` decides for the whole loop."""

from __future__ import annotations

from critic_loop.graphs.app import build_graph
from critic_loop.nodes.loop import stopping
from critic_loop.nodes.loop.stopping import Decision, History
from tests.support.rubrics import RUBRIC
from tests.support.verdicts import graded


def test_the_rules_are_asked_in_their_documented_order() -> None:
    assert [rule.__name__ for rule in stopping.RULES] == [
        "not_graded_yet",
        "decided_by_a_person",
        "verifier_failed",
        "passed",
        "infeasible",
        "out_of_rounds",
        "out_of_budget",
        "round_one_not_over",
        "stalled",
    ]


def test_a_rule_added_to_rules_ends_the_run_and_finalize_declares_it(
    models, context, loop_input, monkeypatch
) -> None:
    def one_round_quota(history: History) -> Decision | None:
        return Decision("exhausted", "the team's quota of rounds", "quota")

    rules = (stopping.not_graded_yet, one_round_quota, *stopping.RULES[1:])
    monkeypatch.setattr(stopping, "RULES", rules)
    models.script("worker", "A hash map stores values under keys.")
    models.script("critic", graded(RUBRIC, {"tone": "simpler words"}))
    out = build_graph().invoke(loop_input, context=context.model_copy(update={"memory": False}))
    assert (out["outcome"], out["outcome_reason"], out["exhausted_by"]) == (
        "exhausted",
        "the team's quota of rounds",
        "quota",
    )
    assert len(out["drafts"]) == 1 and out["final"] == "A hash map stores values under keys."
