"""The yes/no judge's parts: its question, its prompt, and P(met) read from log-probabilities."""

from __future__ import annotations

import math

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from critic_loop.nodes.verifiers.yes_no import (
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


def test_the_prompt_shows_worked_examples_then_asks_of_the_fenced_artifact() -> None:
    messages = yes_no_prompt("It names a season.", "Raindrops fall.")
    system, *examples, ask = messages
    assert isinstance(system, SystemMessage) and isinstance(ask, HumanMessage)
    assert examples and len(examples) % 2 == 0
    assert {m.text for m in examples[1::2]} == {"yes", "no"}  # answered both ways
    assert all(isinstance(m, AIMessage) for m in examples[1::2])
    assert "Raindrops fall." in ask.text
    assert ask.text.endswith("Statement: It names a season.\nAnswer yes or no.")


def test_a_family_left_out_is_not_shown_to_the_judge() -> None:
    shown = yes_no_prompt("It is written in French.", "Bonjour.")
    left = yes_no_prompt("It is written in French.", "Bonjour.", leave_out="language")
    assert "Hace sol y vamos a la playa." in " ".join(m.text for m in shown)
    assert "Hace sol y vamos a la playa." not in " ".join(m.text for m in left)
    assert len(left) < len(shown)
