"""Ask a model for a structured answer until it gives one that can be accepted.

The critic and the distiller both answer in a JSON schema, and both may answer badly
(unparsable JSON, wrong shape, an answer cut off at the token limit, content that breaks
the rules). `ask_until_valid` makes a bounded number of calls, telling the model after
each rejection what was wrong, and returns the accepted value or, when every attempt
failed, the reasons. A server that refuses the structured-output method itself is not the
model answering badly: the call is repeated with the next method (`nodes.output_methods`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import openai
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.messages.utils import count_tokens_approximately
from langchain_core.runnables import Runnable
from pydantic import BaseModel, ValidationError

from critic_loop.nodes.models.faults import MALFORMED_REPLIES, UNREACHABLE, unreachable
from critic_loop.nodes.models.ledger import Ledger
from critic_loop.nodes.models.loading import (
    STRICT_SCHEMA_PROVIDERS,
    grading_model,
    openai_base_url,
    role_tags,
    split_model_spec,
)
from critic_loop.nodes.models.output_methods import ServerKey, fall_back, is_refusal, method_for
from critic_loop.nodes.models.usage import usage_of
from critic_loop.nodes.steps import Steps, invoke
from critic_loop.state.context import Context, StructuredOutputMethod
from critic_loop.state.records import TokenUsage
from critic_loop.state.schema import InvalidAnswer

ANSWER_FAILURES: tuple[type[Exception], ...] = (
    openai.LengthFinishReasonError,
    openai.ContentFilterFinishReasonError,
    OutputParserException,
    *MALFORMED_REPLIES,
)
"""Errors that mean the model answered, but not usably: counted as invalid answers."""


@dataclass(frozen=True)
class StructuredModel:
    """A chat model asked to answer in a JSON schema, by a method its server accepts."""

    chat_model: BaseChatModel
    spec: str
    schema: dict[str, Any]
    preferred: StructuredOutputMethod
    server: str | None
    role: str

    @property
    def key(self) -> ServerKey:
        """The model and server the method choice is remembered for."""
        return self.spec, self.server

    def output(self, method: StructuredOutputMethod) -> Runnable[Any, Any]:
        """Return the model bound to answer in the schema by `method`.

        Its answer is LangChain's raw/parsed/parsing_error triple (`include_raw=True`): an
        answer that cannot be parsed is kept with its error, never raised. Bound per call
        (0.09 ms); under `invoke` LangChain runs it through a thread pool (about 1 ms a
        call, none under `ainvoke`), which the benchmark's `latency` scenario puts within
        its noise.
        """
        options: dict[str, Any] = {"method": method, "include_raw": True}
        if method != "json_mode" and split_model_spec(self.spec)[0] in STRICT_SCHEMA_PROVIDERS:
            options["strict"] = True
        bound = self.chat_model.with_structured_output(self.schema, **options)
        return bound.with_config(tags=role_tags(self.role))


def structured_model(
    spec: str,
    *,
    role: str,
    schema: dict[str, Any],
    method: StructuredOutputMethod,
    context: Context,
) -> StructuredModel:
    """Create a grading model (judge or distiller) for `spec`, its answers pinned to `schema`.

    Grading models share the critic's settings: `critic_temperature`, `critic_max_tokens`
    and the context's `base_url`.
    """
    chat_model = grading_model(spec, role, context)
    provider, _ = split_model_spec(spec)
    server = openai_base_url(context.base_url) if provider == "openai" else None
    return StructuredModel(chat_model, spec, schema, method, server, role)


class BudgetStop(Exception):
    """The run's budgets refused a call; `calls` were made before it."""

    def __init__(self, reason: str, calls: int) -> None:
        """Keep why, and the calls already made."""
        self.reason = reason
        self.calls = calls
        super().__init__(reason)


@dataclass(frozen=True)
class Answered:
    """A structured call's answer (LangChain's raw/parsed/error triple) and its calls."""

    answer: dict[str, Any]
    calls: int


def ask_once(model: StructuredModel, prompt: list[BaseMessage], ledger: Ledger) -> Steps[Answered]:
    """Make one structured call, switching method if the server refuses the current one.

    Each request is admitted by `ledger` first (a refused method's request counts too);
    the caller settles the answer's usage with it.

    Raises:
        BudgetStop: the run's budgets refused a request.
        ModelUnreachable: the model's server cannot be reached.
    """
    method = method_for(model.key, model.preferred)
    calls = 0
    estimate = count_tokens_approximately(prompt)
    while True:
        refusal = ledger.admit(estimate)
        if refusal is not None:
            raise BudgetStop(refusal, calls)
        calls += 1
        try:
            answer = yield invoke(model.output(method), prompt)
        except ANSWER_FAILURES as failure:
            ledger.settle(estimate)
            return Answered({"raw": None, "parsed": None, "parsing_error": failure}, calls)
        except Exception as error:
            ledger.settle(estimate)
            replacement = fall_back(model.key, method, error) if is_refusal(error, method) else None
            if replacement is None and isinstance(error, UNREACHABLE):
                raise unreachable(error, model.role, model.spec, model.server) from error
            if replacement is None:
                raise
            method = replacement
            continue
        ledger.settle(estimate)
        return Answered(answer, calls)


T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)


@dataclass
class Attempts(Generic[T]):
    """The outcome of `ask_until_valid`: the accepted value (or None) and what it took."""

    value: T | None = None
    calls: int = 0
    rejected: list[str] = field(default_factory=list)
    usage: TokenUsage = field(default_factory=TokenUsage)
    stopped: str | None = None
    """Set when the run's budgets refused a call before an answer was accepted: why."""


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
    model: StructuredModel,
    prompt_for: Callable[[str | None], Sequence[BaseMessage]],
    accept: Callable[[dict[str, Any]], T],
    attempts: int,
    accept_last: Callable[[dict[str, Any]], T] | None = None,
    ledger: Ledger | None = None,
) -> Steps[Attempts[T]]:
    """Call `model` up to `attempts` times until `accept` takes its answer.

    `prompt_for(problem)` builds each prompt; `problem` is None on the first call and the
    last rejection's reason after that. `accept` raises `InvalidAnswer` to reject. When the
    last attempt's answer is rejected too, `accept_last` (if given) may still take it on
    stricter terms (it raises `InvalidAnswer` if it cannot). Every call is admitted by
    `ledger` (the run's budgets) first; when it refuses one, the attempts stop there
    (`Attempts.stopped`).
    """
    ledger = ledger or Ledger()
    result: Attempts[T] = Attempts()
    for attempt in range(1, attempts + 1):
        prompt = list(prompt_for(result.rejected[-1] if result.rejected else None))
        try:
            answered = yield from ask_once(model, prompt, ledger)
        except BudgetStop as stop:
            result.calls += stop.calls
            result.stopped = stop.reason
            return result
        answer = answered.answer
        result.calls += answered.calls
        usage = usage_of(answer.get("raw"), prompt)
        ledger.settle(usage=usage)
        result.usage += usage
        try:
            result.value = accept(answer)
        except InvalidAnswer as invalid:
            result.rejected.append(str(invalid))
            if attempt == attempts and accept_last is not None:
                with contextlib.suppress(InvalidAnswer):
                    result.value = accept_last(answer)
            continue
        return result
    return result
