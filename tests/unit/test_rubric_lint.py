"""The rubric linter: judged criteria code could decide get a check that decides them.

Every proposal is run against the labelled artifacts of the judge benchmark: where the
linter proposes a check for a criterion there, the check must give the label any reader
gives. So a proposal that would decide differently from a careful reader fails here.
"""

from __future__ import annotations

import pytest

from benchmarks.judge.cases import CASES
from benchmarks.judge.held_out import HELD_OUT
from critic_loop.grading import grade
from critic_loop.nodes.verifiers.rubric_lint import check_flag, lint_criterion, lint_rubric
from critic_loop.state.rubric import Criterion


@pytest.mark.parametrize(
    ("text", "proposal"),
    [
        ("The answer is at most 120 words.", {"kind": "word_count", "max": 120}),
        ("It has fewer than ten words.", {"kind": "word_count", "max": 9}),
        ("It has between 40 and 90 words.", {"kind": "word_count", "min": 40, "max": 90}),
        ("It is no more than 280 characters.", {"kind": "char_count", "max": 280}),
        ('It mentions "24 hours".', {"kind": "contains", "phrases": ["24 hours"]}),
        ("It contains no digits.", {"kind": "regex", "pattern": r"\d", "must_match": False}),
        ("It is valid JSON.", {"kind": "json"}),
        ("It asks a question.", {"kind": "regex", "pattern": r"\?"}),
    ],
)
def test_a_judged_criterion_code_can_decide_gets_a_check(text, proposal) -> None:
    [finding] = lint_criterion(Criterion(id="c", text=text))
    assert finding.problem == "checkable"
    assert finding.proposal == {"id": "c", **proposal}


def test_absence_and_endings_become_patterns() -> None:
    [absent] = lint_criterion(Criterion(id="no_price", text='It does not mention "price".'))
    assert absent.proposal is not None
    assert grade("Only dust and light.", [absent.proposal]).passed
    assert not grade("The price is fair.", [absent.proposal]).passed
    [ending] = lint_criterion(Criterion(id="close", text='It ends with "Order now."'))
    assert ending.proposal is not None
    assert grade("Great bottle. Order now.", [ending.proposal]).passed
    assert not grade("Order now. Great bottle.", [ending.proposal]).passed
    assert check_flag(ending.proposal) == r"--check close=regex:pattern=Order\ now\.\W*\Z"


def test_vague_criteria_get_a_checkable_rewrite_and_plain_ones_nothing() -> None:
    [vague] = lint_criterion(Criterion(id="style", text="It is concise and engaging."))
    assert vague.problem == "vague" and "at most 80 words" in vague.message
    assert lint_criterion(Criterion(id="doc", text="It advises the reader to see a doctor.")) == []
    checks_are_left_alone = [{"id": "n", "kind": "word_count", "max": 5}]
    from critic_loop.grading import checked_rubric

    assert lint_rubric(checked_rubric(checks_are_left_alone)) == []


@pytest.mark.parametrize(
    ("draft", "names_one"),
    [
        ("Raindrops fall,\nSilent clouds dance,\nWhispers of rain.", False),  # the README's
        ("Autumn rain falling,\nred leaves float down the gutter.", True),
        ("We planted tulips last fall.", True),
        ("Rain taps the window, grey streets shine.", False),
    ],
)
def test_naming_a_season_is_decided_by_code_and_rain_is_no_season(draft, names_one) -> None:
    [finding] = lint_criterion(Criterion(id="season", text="It names a season."))
    assert finding.proposal is not None
    assert grade(draft, [finding.proposal]).passed is names_one


def test_every_proposal_decides_the_benchmark_set_as_its_labels_do() -> None:
    proposed = 0
    for case in (*CASES, *HELD_OUT):
        for pair in case.pairs:
            [*findings] = lint_criterion(Criterion(id=pair.id, text=pair.text))
            if findings and findings[0].proposal is not None:
                proposed += 1
                verdict = grade(case.artifact, [findings[0].proposal])
                assert verdict.passed is pair.label, (case.id, pair.id, findings[0].proposal)
    assert proposed >= 15
