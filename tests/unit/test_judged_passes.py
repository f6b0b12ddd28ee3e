"""What a judged pass must be: the specifics its criterion names, and no call to ask again."""

from __future__ import annotations

import pytest

from critic_loop.graphs.app import build_graph
from critic_loop.nodes.verifiers.ruled_out import ruled_out, specifics
from critic_loop.state.rubric import Criterion
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


def test_code_rules_out_a_draft_without_what_its_criterion_names() -> None:
    """The chess club's false pass: a welcome naming no day or time passed a judge."""
    meeting = Criterion(id="time", text="It gives the meeting day and time: Tuesday at 7 pm.")
    lacking = "Welcome to our chess club! If you have any problems, ask for help."
    why = ruled_out(meeting, lacking, small_judge=False)
    assert why is not None and not why.passed and "'7', 'Tuesday'" in why.evidence
    assert why.hint == "Give the meeting day and time: Tuesday at 7 pm."
    assert (
        ruled_out(meeting, "We meet on Tuesdays at seven pm.", small_judge=False) is None
    )  # "seven" says 7


@pytest.mark.parametrize(
    ("criterion", "draft", "out"),
    [
        ("It explains how a hash map finds a value.", "hash map", True),
        ("It summarises the article in three bullet points.", "Summary:", True),
        ("It tells the customer how to contact support.", "Refund policy", True),
        ("It names a city.", "Paris", False),  # a name takes one word
        ("It says the parcel arrived late.", "Parcel arrived two days late.", False),
    ],
)
def test_to_a_small_judge_a_draft_of_three_words_states_nothing_a_criterion_asks_it_to_say(
    criterion: str, draft: str, out: bool
) -> None:
    ruled = ruled_out(Criterion(id="c", text=criterion), draft, small_judge=True)
    assert (ruled is not None) is out
    assert ruled_out(Criterion(id="c", text=criterion), draft, small_judge=False) is None


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
