"""A judge that answers yes or no, read from the probabilities of its first token.

A small model's "yes" or "no" is a coin tossed with its own bias; the probabilities it
gives the two words are a score that a threshold (generic, or fitted to people's labels:
`judge_profile`) turns into a decision. OpenAI-compatible servers return them as
`logprobs` (llama.cpp's server does; langchain-openai puts them in `response_metadata`
when the model is made with `logprobs=True, top_logprobs=k`).
"""

from __future__ import annotations

import math
import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from critic_loop.nodes.prompts import render_prompt
from critic_loop.nodes.verifiers.judge_profile import Example

TOP_LOGPROBS = 10
"""How many of the first token's likeliest alternatives to ask for (yes and no are among
them whenever the model answers the question at all)."""

EXAMPLE_FENCE = "example"
"""The markers around a worked example's artifact (fixed: a server may reuse the prefix)."""


def first_token_logprobs(message: BaseMessage) -> list[tuple[str, float]]:
    """Return the first token's alternatives as (token, log-probability), or [] if none.

    Reads langchain-openai's `response_metadata["logprobs"]["content"][0]["top_logprobs"]`.
    """
    logprobs = message.response_metadata.get("logprobs")
    content = logprobs.get("content") if isinstance(logprobs, Mapping) else None
    if not isinstance(content, list) or not content or not isinstance(content[0], Mapping):
        return []
    top = content[0].get("top_logprobs") or []
    return [
        (str(item["token"]), float(item["logprob"]))
        for item in top
        if isinstance(item, Mapping) and "token" in item and "logprob" in item
    ]


def share_of_yes(alternatives: Iterable[tuple[str, float]]) -> float | None:
    """Return P(yes) / (P(yes) + P(no)) over a token's alternatives (any case or spacing).

    None when neither word is among them: the model did not answer the question.
    """
    mass = {"yes": 0.0, "no": 0.0}
    for token, logprob in alternatives:
        word = token.strip().lower()
        if word in mass:
            mass[word] += math.exp(logprob)
    total = mass["yes"] + mass["no"]
    return mass["yes"] / total if total > 0 else None


def p_met(message: BaseMessage) -> float | None:
    """Return the judge's probability that the criterion is met, or None without logprobs."""
    return share_of_yes(first_token_logprobs(message))


_SUBJECT = re.compile(r"^(it|the \w+|this \w+)\s+(\S+)\s*(.*)$", re.IGNORECASE | re.S)
_BE = {"is", "are", "was", "were", "can", "will", "should", "must"}


def _base_form(verb: str) -> str | None:
    if verb == "has":
        return "have"
    if verb.endswith("ies") and len(verb) > 4:
        return verb[:-3] + "y"
    if re.search(r"(ss|sh|ch|x|z|o)es$", verb):
        return verb[:-2]
    if verb.endswith("s") and not verb.endswith("ss"):
        return verb[:-1]
    return None


def as_question(statement: str) -> str:
    """Ask `statement` as a question ("It names a season." asks "Does it name a season?").

    A subject ("It", "The function") and a verb in the present tense are turned around;
    any other sentence is asked as "Is it true that ...?".
    """
    text = " ".join(statement.split()).rstrip(".!").strip()
    found = _SUBJECT.match(text)
    if found:
        subject, verb, rest = found[1], found[2].lower(), found[3]
        subject = subject[0].lower() + subject[1:]
        tail = f" {rest}" if rest else ""
        if verb in _BE or verb == "does":
            return f"{verb.capitalize()} {subject}{tail}?"
        base = _base_form(verb)
        if base is not None:
            return f"Does {subject} {base}{tail}?"
    return f"Is it true that {text[:1].lower() + text[1:]}?"


def _ask(artifact: str, statement: str, fence: str, prompts_dir: str | None) -> HumanMessage:
    return HumanMessage(
        render_prompt(
            "critic_yes_no.jinja",
            prompts_dir,
            artifact=artifact,
            question=as_question(statement),
            fence=fence,
        )
    )


def yes_no_prompt(
    statement: str,
    artifact: str,
    examples: Sequence[Example] = (),
    prompts_dir: str | None = None,
) -> list[BaseMessage]:
    """Build the question about one criterion; `examples` come first, answered, as turns."""
    messages: list[BaseMessage] = [
        SystemMessage(render_prompt("critic_yes_no_system.jinja", prompts_dir))
    ]
    for example in examples:
        messages += [
            _ask(example.artifact, example.statement, EXAMPLE_FENCE, prompts_dir),
            AIMessage("yes" if example.met else "no"),
        ]
    return [*messages, _ask(artifact, statement, secrets.token_hex(8), prompts_dir)]


HINT_MAX_TOKENS = 48
"""The most tokens a hint may take (one short sentence is asked for)."""


def hint_prompt(statement: str, artifact: str, prompts_dir: str | None = None) -> list[BaseMessage]:
    """Build the request for a failed criterion's hint: what the artifact lacks."""
    ask = render_prompt(
        "critic_hint.jinja",
        prompts_dir,
        artifact=artifact,
        statement=statement,
        fence=secrets.token_hex(8),
    )
    return [HumanMessage(ask)]


def logprob_settings() -> dict[str, Any]:
    """Return the chat model settings a yes/no judge needs (one token, its alternatives)."""
    return {"logprobs": True, "top_logprobs": TOP_LOGPROBS, "max_tokens": 1, "temperature": 0}
