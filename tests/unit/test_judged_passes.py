"""What a judged pass must be: the specifics its criterion names, and no call to ask again."""

from __future__ import annotations

import pytest

from critic_loop.graphs.app import build_graph
from critic_loop.nodes.verifiers.specifics import specifics, without_specifics
from critic_loop.state.rubric import Criterion
from critic_loop.state.verdict import CriterionResult
from tests.support.rubrics import RUBRIC
from tests.support.verdicts import graded


@pytest.mark.parametrize(
    ("criterion", "named"),
    [
        ("It gives the meeting day and time: Tuesday at 7 pm.", ["7", "Tuesday"]),
        ("It states the mug's capacity: 350 ml.", ["350"]),
        ("It states the price: 49,90 €.", ["49,90"]),
        ("It gives the date 14.03.2025 and the time 14:30.", ["14.03.2025", "14:30"]),
        ("Its three lines have 5, 7 and 5 syllables.", []),  # counts name no value
        ("Criterion 3: the answer is short.", []),  # a bare number is no value
        ("It gives a calendar date such as 3 May.", []),  # an example is no requirement
        ("It does not mention Tuesday.", []),  # absence
    ],
)
def test_what_a_criterion_names_that_a_draft_must_hold(criterion: str, named: list[str]) -> None:
    assert specifics(criterion) == named


def test_a_judged_pass_without_what_its_criterion_names_is_not_met() -> None:
    """The chess club's false pass: a welcome naming no day or time passed a judge."""
    meeting = Criterion(id="time", text="It gives the meeting day and time: Tuesday at 7 pm.")
    passed = [CriterionResult(criterion_id="time", passed=True, evidence='"Welcome"')]
    lacking = "Welcome to our chess club! If you have any problems, ask for help."
    [result] = without_specifics(passed, [meeting], lacking)
    assert not result.passed and "'7', 'Tuesday'" in result.evidence
    [kept] = without_specifics(passed, [meeting], "We meet on Tuesdays at seven pm.")
    assert kept.passed  # "seven" says 7


def test_a_revision_keeps_the_judged_passes_whose_quotation_it_still_holds(
    models, context, loop_input
) -> None:
    first = "Hash maps store values under keys and find them fast."
    models.script("worker", first, first + " A phone book maps names to numbers.")
    models.script("critic", graded(RUBRIC, {"example": "Add one."}), graded([RUBRIC[1]]))
    out = build_graph().invoke(loop_input, context=context)
    assert out["outcome"] == "passed" and models["critic"].calls == 2
    asked_again = models["critic"].texts()[1]
    assert RUBRIC[1].text in asked_again  # only what failed is asked again
    assert RUBRIC[0].text not in asked_again and RUBRIC[2].text not in asked_again
    kept = out["critiques"][1]["verdict"]["results"][0]
    assert kept["passed"] and "still in the draft; passed in round 1" in kept["evidence"]
