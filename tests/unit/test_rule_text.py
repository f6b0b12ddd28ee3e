"""When two rule texts are the same rule, and when a proposed rule is a copy."""

import pytest

from critic_loop.nodes.memory.rule_text import is_near_duplicate


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Count the words before answering.", "Count the words before you answer."),
        ("Always include a worked example.", "Include a worked example, always."),
        ("Give one example.", "give ONE example!"),
        ("Qualify every column with its table alias.", "Qualify every colum with its table alias."),
    ],
)
def test_the_same_rule_in_other_words(first, second) -> None:
    assert is_near_duplicate(first, second)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Keep answers under 50 words.", "Keep answers under 100 words."),
        ("Keep answers under 50 words.", "Keep answers under 60 words."),
        ("Cite the source of every figure.", "Cite the source of every claim."),
        ("Use a table for comparisons.", "Use a list for comparisons."),
        ("Give one example.", "Give two examples."),
    ],
)
def test_different_rules_stay_apart(first, second) -> None:
    assert not is_near_duplicate(first, second)
