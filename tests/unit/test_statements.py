"""A failed judged criterion, told to the worker as an instruction."""

import pytest

from critic_loop.nodes.verifiers.statements import as_instruction


@pytest.mark.parametrize(
    ("criterion", "instruction"),
    [
        (
            "It gives the meeting day and time: Tuesday at 7 pm.",
            "Give the meeting day and time: Tuesday at 7 pm.",
        ),
        (
            "It asks members to bring their own chess set.",
            "Ask members to bring their own chess set.",
        ),
        ("It apologises.", "Apologise."),
        ("It is written in French.", "Make sure your text is written in French."),
        ("It has exactly three lines.", "Make sure your text has exactly three lines."),
        (
            "It does not use an exclamation mark.",
            "Make sure your text does not use an exclamation mark.",
        ),
        ("The function returns a value.", "Make sure the function returns a value."),
        (
            "Its docstring has a Returns: section.",
            "Make sure your text's docstring has a Returns: section.",
        ),
        ("Friendly, plain language.", "Make sure of this: Friendly, plain language."),
    ],
)
def test_a_criterion_is_told_as_what_to_do(criterion: str, instruction: str) -> None:
    assert as_instruction(criterion) == instruction
