from critic_loop.nodes.loop.feedback import REDACTED, REDACTED_ID, redact_criteria, worker_feedback
from critic_loop.state.rubric import Criterion
from critic_loop.state.verdict import Verdict
from tests.support.rubrics import RUBRIC
from tests.support.verdicts import graded


def test_verbatim_criterion_text_is_cut_out_whatever_the_case_and_spacing() -> None:
    echoed = "Rule: the answer is AT MOST  fifty words-long. Trim it."
    assert redact_criteria(echoed, RUBRIC) == f"Rule: {REDACTED}. Trim it."


def test_ordinary_words_are_kept() -> None:
    assert redact_criteria("Cut it to fifty words.", RUBRIC) == "Cut it to fifty words."


def test_feedback_has_hints_for_failures_only_without_ids() -> None:
    answer = graded(
        RUBRIC,
        {"example": "Add a phone-book example.", "tone": ""},
        feedback="Criterion: The answer includes one concrete worked example.",
    )
    note = worker_feedback(2, 1, Verdict.model_validate(answer), RUBRIC)
    assert note.round == 2
    assert note.hints == ["Add a phone-book example.", "evidence for tone"]
    assert note.summary == f"Criterion: {REDACTED}."


def test_quoting_most_of_a_criterion_is_cut_out_too() -> None:
    echoed = "Ensure answer is at most fifty words long."  # the criterion minus "The"
    assert redact_criteria(echoed, RUBRIC) == f"Ensure {REDACTED}."


def test_criterion_ids_are_cut_out_when_bracketed_or_clearly_identifiers() -> None:
    rubric = [*RUBRIC, Criterion(id="no_health_claims", text="It makes no health claims.")]
    echoed = "Failing [no_health_claims] and [length]; no_health_claims matters most."
    assert redact_criteria(echoed, rubric) == (
        f"Failing {REDACTED_ID} and {REDACTED_ID}; {REDACTED_ID} matters most."
    )
    assert redact_criteria("Give a length you can defend.", rubric) == (
        "Give a length you can defend."  # a plain word stays a plain word
    )
