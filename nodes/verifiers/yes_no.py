"""The judge's second look: asked yes or no, read from the probabilities of its first token.

P(met) = P(yes) / (P(yes) + P(no)) on the first token (OpenAI-compatible servers return
`logprobs`), asked after worked examples answered both ways (a small model follows what it
was shown); a threshold (`judge_profile`) decides.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Iterable, Mapping

from langchain_core.messages import BaseMessage

from critic_loop.nodes.models.gateway import Request
from critic_loop.nodes.models.loading import grading_model, model_server
from critic_loop.nodes.prompts import worked_examples
from critic_loop.state.context import Context

TOP_LOGPROBS = 10  # of the first token's likeliest alternatives


def first_token_logprobs(message: BaseMessage) -> list[tuple[str, float]]:
    """Return the first token's alternatives as (token, log-probability), or [] if none."""
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
    """Return P(yes) / (P(yes) + P(no)) over the alternatives; None if neither word is there."""
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


def yes_no_prompt(
    statement: str, artifact: str, prompts_dir: str | None = None, leave_out: str | None = None
) -> list[BaseMessage]:
    """Ask whether the fenced artifact shows `statement`, after worked examples."""
    values = {"artifact": artifact, "statement": statement, "fence": secrets.token_hex(8)}
    return worked_examples(
        prompts_dir,
        "critic_yes_no_system.jinja",
        "critic_yes_no.jinja",
        "critic_yes_no_examples.jinja",
        values,
        leave_out,
    )


def yes_no_request(
    spec: str, statement: str, artifact: str, context: Context
) -> Request[float | None]:
    """Return the one-token question whose answer is P(met) (None: no log-probabilities)."""
    one_token = context.model_copy(update={"critic_temperature": 0.0, "critic_max_tokens": 1})
    return Request(
        model=grading_model(spec, "critic", one_token, top_logprobs=TOP_LOGPROBS),
        spec=spec,
        role="critic",
        server=model_server(spec, context),
        prompt=yes_no_prompt(statement, artifact, context.prompts_dir),
        read=p_met,
    )
