"""Count the tokens a model call spent, from the model's own report when it gives one."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import BaseMessage
from langchain_core.messages.utils import count_tokens_approximately

from critic_loop.state.records import TokenUsage


def usage_of(reply: BaseMessage | None, prompt: Sequence[BaseMessage]) -> TokenUsage:
    """Tokens spent on `prompt` -> `reply`: reported usage, else a local approximation."""
    reported = getattr(reply, "usage_metadata", None)
    if reported:
        return TokenUsage(
            input_tokens=reported.get("input_tokens", 0),
            output_tokens=reported.get("output_tokens", 0),
        )
    return TokenUsage(
        input_tokens=count_tokens_approximately(prompt),
        output_tokens=count_tokens_approximately([reply]) if reply is not None else 0,
        estimated=True,
    )
