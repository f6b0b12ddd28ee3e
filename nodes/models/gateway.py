"""The one way a node calls a model: budget admission, the call, usage, retries, the fallback.

Retry layers: the provider's client (`Context.max_retries`) repeats rate limits, server
errors and dropped connections, then `ModelUnreachable` stops the run (resumable); here,
within `Request.attempts`, an unreadable or rejected reply is asked again (`Request.retry`,
`Request.read_last` on the last); a server refusing a structured-output method is asked with
the next (`FALLBACKS`), remembered per model and server, not counted as an attempt.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import httpx
import openai
import pydantic
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.messages.utils import count_tokens_approximately
from langchain_core.runnables import Runnable, RunnableSequence

from critic_loop.nodes.models.ledger import Ledger
from critic_loop.nodes.models.loading import STRICT_SCHEMA_PROVIDERS, role_tags, split_model_spec
from critic_loop.nodes.models.redaction import redacted
from critic_loop.state.context import StructuredOutputMethod
from critic_loop.state.records import TokenUsage

logger = logging.getLogger(__name__)

T = TypeVar("T")
M = TypeVar("M", bound=pydantic.BaseModel)

ANSWER_FAILURES: tuple[type[Exception], ...] = (
    openai.LengthFinishReasonError,
    openai.ContentFilterFinishReasonError,
    OutputParserException,
    json.JSONDecodeError,
    openai.APIResponseValidationError,
    pydantic.ValidationError,
)
"""The model answered, but not usably: an attempt spent, asked again."""

UNREACHABLE: tuple[type[Exception], ...] = (openai.APIConnectionError, httpx.TransportError)

FALLBACKS: dict[StructuredOutputMethod, StructuredOutputMethod | None] = {
    "json_schema": "function_calling",
    "function_calling": "json_mode",
    "json_mode": None,
}

REFUSAL_WORDS: dict[StructuredOutputMethod, tuple[str, ...]] = {  # in a refusal of each method
    "json_schema": ("json_schema", "response_format"),  # llama-cpp-python: HTTP 500 "Input
    "function_calling": ("tool", "function"),  # should be 'text' or 'json_object'"
    "json_mode": ("json_object", "response_format"),
}
REFUSAL_STATUSES = frozenset({400, 404, 405, 415, 422, 500, 501})  # servers refuse with these


class InvalidAnswer(ValueError):
    """A model's structured answer that cannot be accepted, with every reason why."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


def portable_schema(model: type[pydantic.BaseModel], description: str) -> dict[str, Any]:
    """Return `model`'s JSON schema as every structured-output provider takes it (inlined)."""
    schema = model.model_json_schema()
    definitions = schema.pop("$defs", {})

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return inline(definitions[node["$ref"].rsplit("/", 1)[-1]])
            return {key: inline(value) for key, value in node.items()}
        if isinstance(node, list):
            return [inline(item) for item in node]
        return node

    return {**inline(schema), "description": description}


class ModelUnreachable(ConnectionError):
    """A role's model server could not be reached (after the client's own retries)."""

    def __init__(self, role: str, spec: str, server: str | None, cause: Exception) -> None:
        try:
            url = str(cause.request.url)  # type: ignore[attr-defined]
        except (AttributeError, RuntimeError):  # httpx raises RuntimeError when it has none
            url = server or "the provider's endpoint"
        self.role, self.spec, self.url = role, spec, redacted(url)
        detail = str(cause).strip() or "no answer"
        timed_out = isinstance(cause, openai.APITimeoutError | httpx.TimeoutException)
        failed = "did not answer in time" if timed_out else "cannot be reached"
        super().__init__(
            f"the {role} model {spec!r} at {self.url} {failed} ({type(cause).__name__}: {detail})"
        )


_methods: dict[tuple[str, str | None], StructuredOutputMethod] = {}
_noted_servers: set[str | None] = set()
_lock = threading.Lock()


def forget_methods() -> None:
    """Forget which structured-output method each server accepts (tests do)."""
    with _lock:
        _methods.clear()
        _noted_servers.clear()


def _refused(error: BaseException, method: StructuredOutputMethod) -> bool:
    if getattr(error, "status_code", None) not in REFUSAL_STATUSES:
        return False
    return any(word in str(error).lower() for word in REFUSAL_WORDS[method])


def _usage_of(reply: BaseMessage | None, prompt: Sequence[BaseMessage]) -> TokenUsage:
    # reported usage, else a local approximation
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


def parse_answer(answer: dict[str, Any], schema: type[M]) -> M:
    """Read LangChain's raw/parsed/parsing_error triple as `schema`, or raise `InvalidAnswer`."""
    parsed = answer.get("parsed")
    if answer.get("parsing_error") is not None or parsed is None:
        reason = answer.get("parsing_error") or "no structured answer was found"
        raise InvalidAnswer([f"the answer is not valid JSON for the schema ({reason})"])
    try:
        return schema.model_validate(parsed)
    except pydantic.ValidationError as error:
        fields = sorted({".".join(map(str, item["loc"])) or "(root)" for item in error.errors()})
        raise InvalidAnswer(
            ["the answer does not match the schema at " + ", ".join(fields)]
        ) from error


_bindings: dict[tuple[int, str, int, str, bool], tuple[Any, ...]] = {}


def _model_and_parser(
    model: BaseChatModel,
    role: str,
    schema: dict[str, Any] | None,
    method: StructuredOutputMethod,
    strict: bool,
) -> tuple[Runnable[Any, Any], Runnable[Any, Any] | None]:
    # the model to invoke and the parser of its structured answer; cached (at most 64), each
    # entry holding the model and schema whose ids are its key. A structured binding is taken
    # apart: with include_raw=True LangChain runs the parser beside a passthrough in a
    # RunnableParallel, a thread pool per call under invoke (+0.3x a round at zero latency)
    key = (id(model), role, id(schema), method, strict)
    known = _bindings.get(key)
    if known is not None:
        return known[0]  # type: ignore[no-any-return]
    bound: Runnable[Any, Any] = model
    parser: Runnable[Any, Any] | None = None
    if schema is not None:
        options: dict[str, Any] = {"method": method}
        if method != "json_mode" and strict:
            options["strict"] = True
        structured = model.with_structured_output(schema, **options)
        steps = structured.steps if isinstance(structured, RunnableSequence) else []
        if steps and isinstance(getattr(steps[0], "bound", steps[0]), BaseChatModel):
            bound, *rest = steps  # the bound model, then its parser
            parser = (rest[0] if len(rest) == 1 else RunnableSequence(*rest)).with_config(
                tags=role_tags(role)
            )
        else:
            bound = model.with_structured_output(schema, include_raw=True, **options)
    pair = (bound.with_config(tags=role_tags(role)), parser)
    if len(_bindings) >= 64:
        _bindings.clear()
    _bindings[key] = (pair, model, schema)
    return pair


def _structured_reply(
    raw: BaseMessage, parsed: Any = None, error: Exception | None = None
) -> dict[str, Any]:
    # LangChain's raw/parsed/parsing_error triple, as include_raw=True gives it
    return {"raw": raw, "parsed": parsed, "parsing_error": error}


@dataclass(frozen=True)
class Request(Generic[T]):
    """One question to a model; `read` gets the reply, or with `schema` the parsed triple."""

    model: BaseChatModel
    spec: str
    role: str
    server: str | None
    prompt: list[BaseMessage]
    read: Callable[[Any], T]
    """Returns the accepted value, or raises `InvalidAnswer` to ask again."""
    attempts: int = 1
    read_last: Callable[[Any], T] | None = None
    """Takes the last attempt's rejected answer on stricter terms, if it can."""
    retry: Callable[[list[BaseMessage], Any, str], list[BaseMessage]] = lambda prompt, *_: prompt
    """The next prompt, from the last one, its answer and why that was rejected."""
    schema: dict[str, Any] | None = None
    method: StructuredOutputMethod = "json_schema"


@dataclass
class Answer(Generic[T]):
    """What a request came to: the accepted value (or None) and what it took."""

    value: T | None = None
    calls: int = 0
    rejected: list[str] = field(default_factory=list)
    usage: TokenUsage = field(default_factory=TokenUsage)
    stopped: str | None = None
    """Why the run's budgets refused a call before a value was accepted."""
    failure: Exception | None = None
    """The last unreadable reply's error, when no value was accepted."""


class _Calls(Generic[T]):
    """The calls one request makes, step by step: what `ask` and `aask` share."""

    def __init__(self, request: Request[T], ledger: Ledger) -> None:
        self.request, self.ledger = request, ledger
        self.answer: Answer[T] = Answer()
        self.prompt, self.estimate, self.tries, self.done = request.prompt, 0, 0, False
        self.key = (request.spec, request.server)
        self.method = _methods.get(self.key, request.method)
        self.parser: Runnable[Any, Any] | None = None

    def next_call(self) -> Runnable[Any, Any] | None:
        """Admit the next call and return what to invoke, or None when there is none."""
        if self.done or self.tries >= self.request.attempts:
            return None
        self.estimate = count_tokens_approximately(self.prompt)
        refusal = self.ledger.admit(self.estimate)
        if refusal is not None:
            self.answer.stopped = refusal
            return None
        self.answer.calls += 1
        request = self.request
        strict = split_model_spec(request.spec)[0] in STRICT_SCHEMA_PROVIDERS
        model, self.parser = _model_and_parser(
            request.model, request.role, request.schema, self.method, strict
        )
        return model

    def answered(self, reply: Any) -> None:
        raw = reply.get("raw") if self.request.schema is not None else reply
        usage = _usage_of(raw, self.prompt)
        self.ledger.settle(self.estimate, usage)
        self.answer.usage += usage
        self._read(reply)

    def failed(self, error: Exception) -> None:
        """Settle the call; ask again, fall back to another method, or raise."""
        self.ledger.settle(self.estimate)
        if self.request.schema is not None and _refused(error, self.method):
            replacement = self._fall_back(error)
            if replacement is not None:
                self.method = replacement
                return
        if isinstance(error, ANSWER_FAILURES):
            self.answer.failure = error
            if self.request.schema is not None:
                self._read({"raw": None, "parsed": None, "parsing_error": error})
            else:
                self.tries += 1
                self.answer.rejected.append(f"the reply could not be read ({error!r})")
            return
        if isinstance(error, UNREACHABLE):
            request = self.request
            raise ModelUnreachable(request.role, request.spec, request.server, error) from error
        raise error

    def _read(self, reply: Any) -> None:
        self.tries += 1
        try:
            self.answer.value, self.done = self.request.read(reply), True
            self.answer.failure = None
            return
        except InvalidAnswer as invalid:
            problem = str(invalid)
        self.answer.rejected.append(problem)
        if self.tries < self.request.attempts:
            self.prompt = self.request.retry(self.prompt, reply, problem)
        elif self.request.read_last is not None:
            with contextlib.suppress(InvalidAnswer):
                self.answer.value = self.request.read_last(reply)

    def _fall_back(self, error: Exception) -> StructuredOutputMethod | None:
        replacement = FALLBACKS[self.method]
        with _lock:
            if replacement is not None and _methods.get(self.key, self.method) == self.method:
                _methods[self.key] = replacement
                if self.request.server not in _noted_servers:
                    _noted_servers.add(self.request.server)
                    logger.info(
                        "%s does not accept structured output by %s (HTTP %s); using %s "
                        "from now on",
                        redacted(self.request.server or self.request.spec),
                        self.method,
                        getattr(error, "status_code", "?"),
                        replacement,
                    )
        return replacement


def ask(request: Request[T], ledger: Ledger) -> Answer[T]:
    """Make the calls `request` needs (see the module docstring)."""
    calls = _Calls(request, ledger)
    while (model := calls.next_call()) is not None:
        try:
            reply = model.invoke(calls.prompt)
        except Exception as error:
            calls.failed(error)
            continue
        if calls.parser is not None:
            try:
                reply = _structured_reply(reply, calls.parser.invoke(reply))
            except Exception as failure:  # an unreadable answer is an invalid one
                reply = _structured_reply(reply, error=failure)
        calls.answered(reply)
    return calls.answer


async def aask(request: Request[T], ledger: Ledger) -> Answer[T]:
    """`ask`, awaiting each call."""
    calls = _Calls(request, ledger)
    while (model := calls.next_call()) is not None:
        try:
            reply = await model.ainvoke(calls.prompt)
        except Exception as error:
            calls.failed(error)
            continue
        if calls.parser is not None:  # awaited: a sync parse would block on async callbacks
            try:
                reply = _structured_reply(reply, await calls.parser.ainvoke(reply))
            except Exception as failure:  # an unreadable answer is an invalid one
                reply = _structured_reply(reply, error=failure)
        calls.answered(reply)
    return calls.answer


def ask_all(requests: Sequence[Request[T]], ledger: Ledger) -> list[Answer[T]]:
    """Ask each request in turn; all share `ledger`."""
    answers = []
    for request in requests:  # not a comprehension: one frame fewer under the node
        answers.append(ask(request, ledger))
    return answers


async def aask_all(requests: Sequence[Request[T]], ledger: Ledger) -> list[Answer[T]]:
    """Ask the requests side by side; all share `ledger`, so they stop at its budgets."""
    if len(requests) == 1:  # awaited in place: no task to make, one stack from the node
        return [await aask(requests[0], ledger)]
    return list(await asyncio.gather(*(aask(request, ledger) for request in requests)))
