"""Ask a model for a structured answer until it gives one that can be accepted.

The critic and the distiller both answer in a JSON schema, and both may answer badly
(unparsable JSON, wrong shape, content that breaks the rules). `ask_until_valid` makes a
bounded number of calls, telling the model after each rejection what was wrong, and
returns the accepted value or, when every attempt failed, the reasons.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from langchain_core.messages import BaseMessage
from langchain_core.runnables import Runnable
from pydantic import BaseModel, ValidationError

from nodes.steps import Steps, invoke
from nodes.usage import usage_of
from state.records import TokenUsage
from state.schema import InvalidAnswer

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)


@dataclass
class Attempts(Generic[T]):
    """The outcome of `ask_until_valid`: the accepted value (or None) and what it took."""

    value: T | None = None
    calls: int = 0
    rejected: list[str] = field(default_factory=list)
    usage: TokenUsage = field(default_factory=TokenUsage)


def parse_answer(answer: dict[str, Any], schema: type[M]) -> M:
    """Read LangChain's raw/parsed/parsing_error triple as `schema`, or raise `InvalidAnswer`."""
    parsed = answer.get("parsed")
    if answer.get("parsing_error") is not None or parsed is None:
        reason = answer.get("parsing_error") or "no structured answer was found"
        raise InvalidAnswer([f"the answer is not valid JSON for the schema ({reason})"])
    try:
        return schema.model_validate(parsed)
    except ValidationError as error:
        fields = sorted({".".join(map(str, item["loc"])) or "(root)" for item in error.errors()})
        raise InvalidAnswer(
            ["the answer does not match the schema at " + ", ".join(fields)]
        ) from error


def ask_until_valid(
    model: Runnable[Any, dict[str, Any]],
    prompt_for: Callable[[str | None], Sequence[BaseMessage]],
    accept: Callable[[dict[str, Any]], T],
    attempts: int,
) -> Steps[Attempts[T]]:
    """Call `model` up to `attempts` times until `accept` takes its answer.

    `prompt_for(problem)` builds each prompt; `problem` is None on the first call and the
    last rejection's reason after that. `accept` raises `InvalidAnswer` to reject.
    """
    result: Attempts[T] = Attempts()
    for _ in range(attempts):
        prompt = list(prompt_for(result.rejected[-1] if result.rejected else None))
        answer: dict[str, Any] = yield invoke(model, prompt)
        result.calls += 1
        result.usage += usage_of(answer.get("raw"), prompt)
        try:
            result.value = accept(answer)
        except InvalidAnswer as invalid:
            result.rejected.append(str(invalid))
            continue
        return result
    return result
