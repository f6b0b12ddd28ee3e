"""The yes/no judge's parts: its question, its prompt, and P(met) read from log-probabilities."""

from __future__ import annotations

import math

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from critic_loop.nodes.verifiers.yes_no import (
    as_question,
    calibrated,
    p_met,
    share_of_yes,
    yes_no_prompt,
)


def reply(top: list[tuple[str, float]]) -> AIMessage:
    """Return a reply as langchain-openai builds it from a chat completion with logprobs."""
    alternatives = [{"token": t, "logprob": lp, "bytes": None} for t, lp in top]
    content = [{"token": top[0][0], "logprob": top[0][1], "top_logprobs": alternatives}]
    return AIMessage(top[0][0], response_metadata={"logprobs": {"content": content}})


def test_p_met_is_the_share_of_yes_among_yes_and_no_in_any_case_or_spacing() -> None:
    message = reply([("Yes", math.log(0.4)), ("No", math.log(0.3)), (" no", math.log(0.1))])
    assert p_met(message) == pytest.approx(0.5)


def test_other_tokens_do_not_count() -> None:
    assert share_of_yes([("Is", math.log(0.9)), ("yes", math.log(0.05))]) == pytest.approx(1.0)


def test_no_probability_without_yes_or_no_or_without_logprobs() -> None:
    assert p_met(reply([("Maybe", -0.1)])) is None
    assert p_met(AIMessage("Yes")) is None
    assert p_met(AIMessage("Yes", response_metadata={"logprobs": None})) is None


@pytest.mark.parametrize(
    ("statement", "question"),
    [
        ("It names a season.", "Does it name a season?"),
        ("It has exactly three lines.", "Does it have exactly three lines?"),
        ("It is written in French.", "Is it written in French?"),
        ("It does not use an exclamation mark.", "Does it not use an exclamation mark?"),
        ("The function has a docstring.", "Does the function have a docstring?"),
        ("It apologises.", "Does it apologise?"),
        ("It retries 5 times.", "Does it retry 5 times?"),
        ("It fixes typos.", "Does it fix typos?"),
        (
            "Its three lines have 5, 7 and 5 syllables.",
            "Is it true that its three lines have 5, 7 and 5 syllables?",
        ),
        (
            "The query only reads data.",
            "Is it true that the query only reads data?",
        ),
    ],
)
def test_a_criterion_is_asked_as_a_question(statement: str, question: str) -> None:
    assert as_question(statement) == question


def test_the_prompt_asks_the_question_of_the_fenced_artifact() -> None:
    system, ask = yes_no_prompt("It names a season.", "Raindrops fall.")
    assert isinstance(system, SystemMessage)
    assert isinstance(ask, HumanMessage)
    assert "Raindrops fall." in ask.text
    assert ask.text.endswith("Does it name a season? Answer yes or no.")


def test_calibration_removes_the_questions_own_pull() -> None:
    assert calibrated(0.8, 0.8) == pytest.approx(0.5)  # as likely as of an empty artifact
    assert calibrated(0.9, 0.5) == pytest.approx(0.9)
    assert calibrated(0.6, 0.9) < 0.5  # "yes", but less than about nothing at all
    assert calibrated(None, 0.5) is None and calibrated(0.5, None) is None
