import pytest

from critic_loop.nodes.verifiers.judge_answers import CriticReport, InvalidVerdict, check_report
from critic_loop.state.verdict import Verdict
from tests.support.rubrics import RUBRIC
from tests.support.verdicts import graded


def report(answer: dict) -> CriticReport:
    return CriticReport.model_validate(answer)


def test_valid_report_becomes_verdict_in_rubric_order() -> None:
    answer = graded(RUBRIC, {"example": "add one"})
    answer["results"].reverse()
    verdict = Verdict(results=check_report(report(answer), RUBRIC))
    assert [r.criterion_id for r in verdict.results] == ["length", "example", "tone"]
    assert verdict.passed is False
    assert verdict.score == pytest.approx(2 / 3)
    assert verdict.failing_ids == {"example"}


def test_all_passing_report_passes_with_full_score() -> None:
    verdict = Verdict(results=check_report(report(graded(RUBRIC)), RUBRIC))
    assert verdict.passed is True
    assert verdict.score == 1.0


@pytest.mark.parametrize(
    ("mutate", "problem"),
    [
        (lambda a: a["results"].pop(), "criteria not graded: 'tone'"),
        (lambda a: a["results"][0].update(criterion_id="nope"), "unknown criterion id 'nope'"),
        (
            lambda a: a["results"].append(dict(a["results"][0])),
            "criterion 'length' graded more than once",
        ),
        (lambda a: a["results"][1].update(evidence="  "), "criterion 'example' has no evidence"),
    ],
)
def test_invalid_reports_are_rejected_with_the_reason(mutate, problem) -> None:
    answer = graded(RUBRIC)
    mutate(answer)
    with pytest.raises(InvalidVerdict) as raised:
        check_report(report(answer), RUBRIC)
    assert problem in raised.value.problems


@pytest.mark.parametrize("claim", [True, False])
def test_overall_claim_contradicting_the_criteria_is_rejected(claim: bool) -> None:
    answer = graded(RUBRIC, {"tone": "simpler words"} if claim else {}, claim=claim)
    with pytest.raises(InvalidVerdict, match="overall result says"):
        check_report(report(answer), RUBRIC)


def test_stored_passed_and_score_are_recomputed_not_trusted() -> None:
    stored = graded(RUBRIC, {"length": "shorter"}) | {"score": 1.0}
    stored["passed"] = True
    verdict = Verdict.model_validate(stored)
    assert verdict.passed is False
    assert verdict.score == pytest.approx(2 / 3)
    assert verdict.model_dump()["passed"] is False
