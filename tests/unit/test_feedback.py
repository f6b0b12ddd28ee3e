from critic_loop.nodes.loop.feedback import REDACTED, REDACTED_ID, redact_criteria, worker_feedback
from critic_loop.state.rubric import Criterion
from critic_loop.state.verdict import CriterionResult, Verdict
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
    assert note.hints == [  # each failed criterion as an instruction, then the judge's own hint
        "Make sure the answer includes one concrete worked example.",
        "Add a phone-book example.",
        "Make sure the answer is written for a beginner audience.",
    ]
    assert "evidence for tone" not in note.hints  # the judge's evidence is an audit, not a hint
    assert note.summary == f"Criterion: {REDACTED}."
    assert note.kept == ["<<quote of the artifact>>"]  # what the passing criterion quoted


def test_a_failed_judged_criterion_is_told_as_what_to_do_never_a_stock_or_internal_line() -> None:
    rubric = [
        Criterion(id="day", text="It gives the meeting day and time: Tuesday at 7 pm."),
        Criterion(id="set", text="It asks members to bring their own chess set."),
    ]
    internal = [
        "Not met: the judge found no words in the artifact that show it.",
        "Not met: the judge passed this without quoting the draft, so the pass could not be "
        "checked.",
    ]
    verdict = Verdict(
        results=[
            CriterionResult(criterion_id="day", passed=False, evidence=internal[0]),
            CriterionResult(criterion_id="set", passed=False, evidence=internal[1]),
        ]
    )
    note = worker_feedback(1, 1, verdict, rubric)
    assert note.hints == [
        "Give the meeting day and time: Tuesday at 7 pm.",
        "Ask members to bring their own chess set.",
    ]
    assert not any(line in " ".join(note.hints) for line in internal)


def test_the_same_hint_for_two_criteria_is_given_once() -> None:
    rubric = [Criterion(id="a", text="It is short."), Criterion(id="b", text="It is brief.")]
    same = "Cut it to two sentences."
    verdict = Verdict(
        results=[
            CriterionResult(criterion_id=c.id, passed=False, evidence="-", hint=same, source=src)
            for c, src in zip(rubric, ["check", "check"], strict=True)
        ]
    )
    assert worker_feedback(1, 1, verdict, rubric).hints == [same]


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
