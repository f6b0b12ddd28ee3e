"""`candidates` and `on_stall` default to "auto": candidates where code can choose (drawn
only when the first draft fails), a revision when they fail, fresh samples in growing batches
when revising stops helping."""

import pytest
from click.testing import CliRunner

from critic_loop.nodes.loop.stopping import (
    Decision,
    GoOn,
    candidate_count,
    decide,
    disputed,
    fresh_batch,
    more_candidates,
    stall_action,
)
from critic_loop.nodes.loop.worker_turns import first_turns, next_turns
from critic_loop.nodes.verifiers.agreement import thin_evidence
from critic_loop.state.context import AUTO_CANDIDATES, MAX_CANDIDATES, Context
from critic_loop.state.loop import LoopState
from critic_loop.state.records import Agreement, Critique, Draft, WorkerFeedback
from critic_loop.state.rubric import Criterion, PythonSyntax, TestSuite, WordCount
from critic_loop.state.verdict import Verdict
from tests.support.rubrics import RUBRIC
from tests.support.verdicts import graded

CALLS = "from solution import f\n\ndef test_it():\n" + "".join(
    f"    assert f({n}) == {n}\n" for n in range(3)
)
SUITE = TestSuite(id="examples", kind="tests", tests=CALLS)
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
    assert len(first_turns("task", [], Context(), rubric)) == 1  # the others if it fails


@pytest.mark.parametrize(
    "rubric",
    [
        [PythonSyntax(id="syntax", kind="python_syntax")],
        [SUITE.model_copy(update={"tests": CALLS.split("    assert f(1)")[0]})],  # one call
    ],
)
def test_auto_drafts_every_candidate_at_once_where_the_checks_of_code_are_thin(rubric) -> None:
    assert thin_evidence(rubric) is not None and thin_evidence([SUITE]) is None
    turns = first_turns("task", [], Context(), rubric)
    assert [turn.candidate for turn in turns] == [1, 2, 3]
    assert [turn.temperature for turn in turns[:2]] == [0.0, Context().sample_temperature]


def test_auto_draws_the_other_candidates_of_round_one_only_when_the_first_fails() -> None:
    rubric = [WORDS]
    first = [draft(1)]
    assert more_candidates([failing(1, 1, "tone")], Context(), rubric) == AUTO_CANDIDATES - 1
    assert decide([failing(1, 1, "tone")], first, Context(), rubric=rubric) == GoOn(
        "candidates", "the first draft failed"
    )
    assert decide([failing(1, 1)], first, Context(), rubric=rubric).outcome == "passed"
    # a one-round cap still lets round 1 draw its candidates
    assert decide([failing(1, 1, "tone")], first, Context(max_iterations=1), rubric=rubric) == (
        GoOn("candidates", "the first draft failed")
    )
    state = LoopState(task="task", rubric=rubric, drafts=first, critiques=[failing(1, 1, "tone")])
    turns = next_turns(state, Context(), "candidates")
    assert [(t.round, t.candidate, t.mode) for t in turns] == [(1, 2, "first"), (1, 3, "first")]
    assert {t.temperature for t in turns} == {Context().sample_temperature}
    assert more_candidates(THREE_FAIL_TONE, Context(), rubric) == 0
    assert decide(THREE_FAIL_TONE, THREE, Context(), rubric=rubric) == GoOn("revision")
    assert more_candidates([failing(1, 1), failing(2, 1)], Context(), rubric) == 0


def test_a_number_of_candidates_are_drawn_side_by_side() -> None:
    assert len(first_turns("task", [], Context(candidates=3), [WORDS])) == 3
    assert more_candidates(THREE_FAIL_TONE, Context(candidates=3), [WORDS]) == 0


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


def draft(round_number: int, candidate: int = 1, origin: str = "first") -> Draft:
    text = f"draft {round_number}.{candidate}"
    return Draft(round=round_number, candidate=candidate, text=text, origin=origin)  # type: ignore[arg-type]


def failing(round_number: int, candidate: int, *ids: str) -> Critique:
    answer = graded(RUBRIC, {criterion_id: "fix" for criterion_id in ids})
    return Critique(round=round_number, candidate=candidate, verdict=Verdict.model_validate(answer))


THREE = [draft(1, n) for n in (1, 2, 3)]
THREE_FAIL_TONE = [failing(1, n, "tone") for n in (1, 2, 3)]


def test_three_candidates_failing_alike_are_one_round_and_the_best_is_revised() -> None:
    assert decide(THREE_FAIL_TONE, THREE, Context()) == GoOn("revision")
    assert decide(THREE_FAIL_TONE, THREE, Context(on_stall="stop")) == GoOn("revision")


def test_a_revision_failing_the_same_criteria_has_stalled_and_auto_draws_fresh_samples() -> None:
    drafts = [*THREE, draft(2, origin="revision")]
    critiques = [*THREE_FAIL_TONE, failing(2, 1, "tone")]
    decision = decide(critiques, drafts, Context())
    assert decision == GoOn("resample", "the same criteria failed 2 times in a row: tone")
    stopped = decide(critiques, drafts, Context(on_stall="stop"))
    assert stopped == Decision("stalled", "the same criteria failed 2 times in a row: tone")


def test_candidates_failing_differently_are_revised() -> None:
    critiques = [failing(1, 1, "tone"), failing(1, 2, "length"), failing(1, 3, "tone")]
    assert decide(critiques, THREE, Context()) == GoOn("revision")


def test_one_draft_a_round_resamples_on_a_stall_under_auto() -> None:
    drafts = [draft(1), draft(2, origin="revision")]
    critiques = [failing(n, 1, "tone") for n in (1, 2)]
    decision = decide(critiques, drafts, Context())
    assert decision == GoOn("resample", "the same criteria failed 2 times in a row: tone")


def test_auto_batches_double_the_latest_fresh_round_up_to_the_sample_budget() -> None:
    after_round_one = [*THREE, draft(2, origin="revision")]
    assert fresh_batch(after_round_one, Context()) == 3  # sample_budget 6, round 1's 3 included
    assert fresh_batch(after_round_one, Context(sample_budget=9)) == 6
    six = [draft(3, n, "resample") for n in range(1, 7)]
    assert fresh_batch([*after_round_one, *six], Context(sample_budget=30)) == MAX_CANDIDATES
    assert fresh_batch([*after_round_one, *six], Context(sample_budget=12)) == 3
    assert fresh_batch([*after_round_one, *six], Context(sample_budget=9)) == 0  # the budget


def test_one_first_draft_means_one_fresh_sample_at_a_time() -> None:
    drafts = [draft(1), draft(2, origin="revision"), draft(3, origin="resample")]
    assert fresh_batch(drafts, Context()) == 1
    assert fresh_batch(drafts, Context(sample_budget=3)) == 1
    assert fresh_batch(drafts, Context(sample_budget=2)) == 0


def test_on_stall_resample_draws_one_fresh_sample_whatever_the_budget() -> None:
    assert fresh_batch(THREE, Context(on_stall="resample", sample_budget=1)) == 1
    assert stall_action(Context(on_stall="resample", sample_budget=1), THREE) == "resample"
    assert stall_action(Context(on_stall="stop"), [draft(1)]) == "stop"


def test_auto_stops_as_stalled_once_the_sample_budget_is_spent() -> None:
    drafts = [*THREE, draft(2, origin="revision")]
    critiques = [*THREE_FAIL_TONE, failing(2, 1, "tone")]
    assert stall_action(Context(sample_budget=3), drafts) == "stop"
    decision = decide(critiques, drafts, Context(sample_budget=3))
    assert decision == Decision("stalled", "the same criteria failed 2 times in a row: tone")


def test_a_fresh_batch_is_one_turn_per_sample_sharing_the_calls_left() -> None:
    drafts = [*THREE, draft(2, origin="revision")]
    critiques = [*THREE_FAIL_TONE, failing(2, 1, "tone")]
    feedback = [WorkerFeedback(round=2, candidate=1, hints=["Use plainer words."])]
    state = LoopState(
        task="task", rubric=RUBRIC, drafts=drafts, critiques=critiques, feedback=feedback
    )
    context = Context(call_budget=20, sample_temperature=0.9, sample_budget=9)  # 8 calls spent
    turns = next_turns(state, context, "resample")
    assert [turn.candidate for turn in turns] == [1, 2, 3, 4, 5, 6]
    assert {(turn.round, turn.mode, turn.temperature) for turn in turns} == {(3, "resample", 0.9)}
    assert all(turn.earlier_failures == "Use plainer words." and not turn.history for turn in turns)
    assert {turn.allowance.calls for turn in turns} == {2}  # 12 calls left, shared six ways


def test_candidates_repeating_another_of_their_round_are_no_new_attempts() -> None:
    drafts = [draft(1, n) for n in (1, 2, 3)]
    original = failing(1, 1, "tone")
    repeats = [
        original.model_copy(update={"candidate": n, "duplicate_of": original.ref}) for n in (2, 3)
    ]
    assert decide([original, *repeats], drafts, Context()) == GoOn("revision")


def agreeing(candidate: int, support: int, of: int = 3) -> Critique:
    agreement = Agreement(probes=9, support=support, candidates=of)
    return failing(1, candidate).model_copy(update={"agreement": agreement})


def test_passing_candidates_that_disagree_draw_one_more_at_a_time_and_at_most_two() -> None:
    split = [agreeing(1, 1), agreeing(2, 1), agreeing(3, 1)]
    assert disputed(split) and not disputed([agreeing(1, 1), agreeing(2, 2), agreeing(3, 2)])
    assert decide(split, THREE, Context(), rubric=[SUITE]) == GoOn(
        "candidates", "the passing candidates behave differently"
    )
    settled = [*split, agreeing(4, 2, of=4)]
    assert decide(settled, [*THREE, draft(1, 4)], Context(), rubric=[SUITE]).outcome == "passed"
    still = [*split, agreeing(4, 1, of=4), agreeing(5, 1, of=5)]
    assert more_candidates(still[:4], Context(), [SUITE]) == 1
    assert more_candidates(still, Context(), [SUITE]) == 0  # two more at most: the first wins
    assert more_candidates(split, Context(candidates=3), [SUITE]) == 0  # a number is a number
