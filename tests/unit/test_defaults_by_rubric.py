"""`candidates` and `on_stall` default to "auto": spend on candidates where code can choose."""

import pytest
from click.testing import CliRunner

from critic_loop.nodes.loop.route import Decision, GoOn, decide, stall_action
from critic_loop.nodes.loop.worker_turns import candidate_count, first_turns
from critic_loop.state.context import AUTO_CANDIDATES, Context
from critic_loop.state.records import Critique, Draft
from critic_loop.state.rubric import Criterion, TestSuite, WordCount
from critic_loop.state.verdict import Verdict
from tests.support.rubrics import RUBRIC
from tests.support.verdicts import graded

SUITE = TestSuite(id="examples", kind="tests", tests="def test_it():\n    assert True\n")
WORDS = WordCount(id="short", kind="word_count", max=50)
JUDGED = Criterion(id="clear", text="It is clear.")


@pytest.mark.parametrize(
    ("rubric", "expected"),
    [
        ([SUITE], AUTO_CANDIDATES),  # code with visible tests
        ([SUITE, JUDGED], AUTO_CANDIDATES),  # the tests choose before the judge is asked
        ([WORDS], AUTO_CANDIDATES),  # checks only
        ([WORDS, JUDGED], 1),  # only the judge can tell passing candidates apart
        ([JUDGED], 1),
    ],
)
def test_auto_drafts_several_candidates_only_where_code_can_choose(rubric, expected) -> None:
    assert Context().candidates == "auto"
    assert candidate_count(Context(), rubric) == expected
    assert len(first_turns("task", [], Context(), rubric)) == expected


def test_a_number_of_candidates_is_taken_as_given() -> None:
    assert candidate_count(Context(candidates=2), [JUDGED]) == 2
    assert candidate_count(Context(candidates=1), [SUITE]) == 1


def test_candidates_come_from_the_environment_and_the_command_line(monkeypatch) -> None:
    monkeypatch.setenv("CRITIC_LOOP_CANDIDATES", "2")
    assert Context().candidates == 2
    monkeypatch.setenv("CRITIC_LOOP_CANDIDATES", "auto")
    assert Context().candidates == "auto"
    with pytest.raises(ValueError, match="candidates"):
        Context(candidates=9)

    from critic_loop.cli import cli

    result = CliRunner().invoke(cli, ["run", "--help"])
    assert "--candidates" in result.output and "auto" in result.output


def draft(round_number: int, candidate: int = 1) -> Draft:
    return Draft(round=round_number, candidate=candidate, text=f"draft {round_number}.{candidate}")


def failing(round_number: int, candidate: int, *ids: str) -> Critique:
    answer = graded(RUBRIC, {criterion_id: "fix" for criterion_id in ids})
    return Critique(round=round_number, candidate=candidate, verdict=Verdict.model_validate(answer))


def test_three_candidates_failing_alike_have_stalled_and_auto_stops() -> None:
    drafts = [draft(1, n) for n in (1, 2, 3)]
    critiques = [failing(1, n, "tone") for n in (1, 2, 3)]
    decision = decide(critiques, drafts, Context())
    assert decision == Decision("stalled", "the same criteria failed 3 times in a row: tone")
    resampled = decide(critiques, drafts, Context(on_stall="resample"))
    assert resampled == GoOn("resample", "the same criteria failed 3 times in a row: tone")


def test_candidates_failing_differently_are_revised() -> None:
    drafts = [draft(1, n) for n in (1, 2, 3)]
    critiques = [failing(1, 1, "tone"), failing(1, 2, "length"), failing(1, 3, "tone")]
    assert decide(critiques, drafts, Context()) == GoOn("revision")


def test_one_draft_a_round_resamples_on_a_stall_under_auto() -> None:
    drafts = [draft(n) for n in (1, 2, 3)]
    critiques = [failing(n, 1, "tone") for n in (1, 2, 3)]
    decision = decide(critiques, drafts, Context())
    assert decision == GoOn("resample", "the same criteria failed 3 times in a row: tone")


def test_stall_action_reads_auto_from_round_one() -> None:
    assert stall_action(Context(), [draft(1)]) == "resample"
    assert stall_action(Context(), [draft(1, 1), draft(1, 2)]) == "stop"
    assert stall_action(Context(on_stall="resample"), [draft(1, 1), draft(1, 2)]) == "resample"
    assert stall_action(Context(on_stall="stop"), [draft(1)]) == "stop"


def test_candidates_repeating_another_of_their_round_are_no_new_attempts() -> None:
    drafts = [draft(1, n) for n in (1, 2, 3)]
    original = failing(1, 1, "tone")
    repeats = [
        original.model_copy(update={"candidate": n, "duplicate_of": original.ref}) for n in (2, 3)
    ]
    assert decide([original, *repeats], drafts, Context()) == GoOn("revision")
