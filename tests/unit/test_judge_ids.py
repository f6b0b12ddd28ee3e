"""Every artifact gets a verdict: criterion ids in a judge's answer cannot be confused.

The issue's judge answered with ids taken from the criterion's own text ('spring',
'summer') and got no verdict at all. The prompt now names criteria by opaque ids, and an
answer whose ids still do not match, but that grades as many criteria as it was asked, is
read by position. Samples vote with a minimum agreement.
"""

from __future__ import annotations

import pytest

from critic_loop.nodes.models.gateway import InvalidAnswer
from critic_loop.nodes.verifiers.judge import accept_answer, carried, judge_prompt
from critic_loop.state.context import Context
from critic_loop.state.rubric import Criterion

HAIKU = "Spring rain on the roof,\nthe garden drinks it slowly,\nsummer waits outside."
SEASON = Criterion(id="season", text="It names a season (spring, summer, autumn or winter).")
LINES = Criterion(id="lines", text="It has exactly three lines.")


def answer(*ids: str) -> dict:
    results = [
        {
            "criterion_id": name,
            "evidence": 'It says "Spring rain".',
            "passed": True,
            "terminal": False,
            "hint": "",
        }
        for name in ids
    ]
    return {"parsed": {"results": results, "feedback": "", "passed": True}, "parsing_error": None}


def test_the_prompt_names_criteria_by_opaque_ids() -> None:
    prompt = "\n".join(
        str(m.content) for m in judge_prompt([SEASON, LINES], HAIKU, Context(), None)
    )
    assert "[c1] It names a season" in prompt and "[c2] It has exactly three lines." in prompt
    assert "[season]" not in prompt and "[lines]" not in prompt


@pytest.mark.parametrize(
    "ids", [("c1", "c2"), ("season", "lines"), ("spring", "summer"), ("c2", "c1")]
)
def test_answers_by_opaque_id_real_id_or_position_all_give_a_verdict(ids) -> None:
    results, _ = accept_answer(answer(*ids), [SEASON, LINES], HAIKU)
    expected = ["lines", "season"] if ids == ("c2", "c1") else ["season", "lines"]
    assert [r.criterion_id for r in results] == ["season", "lines"]
    assert sorted(r.criterion_id for r in results) == sorted(expected)


def test_an_answer_that_misses_a_criterion_is_still_rejected() -> None:
    with pytest.raises(InvalidAnswer, match="criteria not graded"):
        accept_answer(answer("spring"), [SEASON, LINES], HAIKU)


def test_a_minimum_agreement_makes_samples_stricter_than_a_majority() -> None:
    two_of_three = {"a": True, "b": True, "c": False}
    assert carried(two_of_three, 0.5)
    assert not carried(two_of_three, 1.0)
    assert carried({"a": True, "b": True, "c": True}, 1.0)
    assert not carried({"a": True, "b": False}, 0.5)  # a tie fails
