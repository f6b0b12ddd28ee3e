"""A judge's pass counts only when it quotes the few words of the artifact that show it.

The issue's cases: a judge that quoted the whole artifact back as the evidence that an
English sentence is French, and passes whose evidence quoted nothing (an unquoted run of
the artifact's words used to be enough). Neither is a pass; a short quotation that holds
the evidence is.
"""

from __future__ import annotations

import pytest

from critic_loop.nodes.verifiers.grounding import grounded, quote_problem, ungrounded_passes
from critic_loop.nodes.verifiers.judge import UNVERIFIED_PASS, accept_answer, accept_one
from critic_loop.state.rubric import Criterion
from critic_loop.state.schema import InvalidAnswer

TRAIN = "The train leaves at eight, and we will arrive before noon."
FRENCH = Criterion(id="french", text="It is written in French.")
LEAVES = Criterion(id="departure", text="It says when the train leaves.")


def rubric_answer(evidence: str, criterion: Criterion = LEAVES) -> dict:
    result = {
        "criterion_id": criterion.id,
        "evidence": evidence,
        "passed": True,
        "terminal": False,
        "hint": "",
    }
    return {"parsed": {"results": [result], "feedback": "", "passed": True}, "parsing_error": None}


def one_answer(quote: str, verdict: str = "met", hint: str = "") -> dict:
    return {"parsed": {"quote": quote, "verdict": verdict, "hint": hint}, "parsing_error": None}


@pytest.mark.parametrize(
    "evidence",
    [
        f'"{TRAIN}"',  # the whole artifact
        '"The train leaves at eight, and we will arrive before"',  # nearly all of it
        "The train leaves at eight, and we will arrive.",  # its words, unquoted
        "It is written in French.",  # the criterion restated
        "The artifact is everything between the two markers.",  # the prompt's words
    ],
)
def test_a_pass_quoting_the_whole_artifact_or_nothing_is_not_grounded(evidence) -> None:
    assert not grounded(evidence, TRAIN)
    with pytest.raises(InvalidAnswer, match="'french' passed"):
        accept_answer(rubric_answer(evidence, FRENCH), [FRENCH], TRAIN)
    [result], _ = accept_answer(rubric_answer(evidence, FRENCH), [FRENCH], TRAIN, "fail")
    assert not result.passed and result.evidence == UNVERIFIED_PASS


@pytest.mark.parametrize(
    "evidence",
    [
        'It says "leaves at eight".',
        "It says “The train leaves at eight”.",
        'The words "train leaves ... eight" show it.',
        "`leaves at eight`",
    ],
)
def test_a_short_quote_that_holds_the_evidence_grounds_a_pass(evidence) -> None:
    assert grounded(evidence, TRAIN)
    [result], _ = accept_answer(rubric_answer(evidence), [LEAVES], TRAIN)
    assert result.passed and result.evidence == evidence


def test_a_quote_not_in_the_artifact_grounds_nothing() -> None:
    assert quote_problem("leaves at nine", TRAIN) == (
        "its quotation is not in the artifact (copy the words exactly)"
    )
    assert quote_problem("at", TRAIN) == "it quotes nothing of the artifact"
    assert ungrounded_passes([("departure", 'It says "leaves at nine".')], TRAIN) == [
        "criterion 'departure' passed but its quotation is not in the artifact (copy the "
        "words exactly): a pass must quote, in double quotes, the few words of the artifact "
        "that show it"
    ]


def test_a_short_artifact_may_be_quoted_whole() -> None:
    assert grounded('"Order now."', "Order now.")
    assert grounded('"v1"', "v1")


def test_one_criterion_answers_pass_only_on_a_short_quote_found_in_the_artifact() -> None:
    [passed], _ = accept_one(one_answer("leaves at eight"), LEAVES, TRAIN)
    assert passed.passed and passed.evidence == '"leaves at eight"'
    for quote in (TRAIN, "", "departs at nine"):
        with pytest.raises(InvalidAnswer, match="the criterion was met but"):
            accept_one(one_answer(quote), FRENCH, TRAIN)
        [last], _ = accept_one(one_answer(quote), FRENCH, TRAIN, "fail")
        assert not last.passed and last.evidence == UNVERIFIED_PASS


def test_not_sure_counts_as_not_met_with_the_judges_own_hint_only() -> None:
    [result], feedback = accept_one(one_answer("leaves at eight", "not sure"), FRENCH, TRAIN)
    assert not result.passed and "not sure" in result.evidence
    assert result.hint == "" and feedback == ""  # no stock line: the worker is told the criterion
    [failed], _ = accept_one(one_answer("", "not met", "Write it in French."), FRENCH, TRAIN)
    assert not failed.passed and failed.hint == "Write it in French."
    assert failed.evidence == "Not met: nothing in the artifact shows it."
