"""A small OpenAI-compatible chat-completions server on 127.0.0.1 that answers from a script.

Tests point langchain-openai at it (`base_url`) so model calls go over real HTTP. It
speaks plain and streamed (SSE) responses, answers structured requests the way the
request asks (a forced tool call for function calling, JSON content for `json_schema` and
JSON mode), reports token usage, and records every request it receives.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.verdicts import QUOTE, quote_the_artifact


@dataclass(frozen=True)
class Text:
    """Answer with plain assistant text ("length": cut off at the token limit).

    `top_logprobs`: the first token's alternatives as (token, log-probability), sent as
    OpenAI's `logprobs` when the request asks for them.
    """

    content: str
    finish_reason: str = "stop"
    top_logprobs: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True)
class Structured:
    """Answer with this object, shaped as the request's structured-output method wants."""

    value: dict[str, Any]


@dataclass(frozen=True)
class Raw:
    """Answer a structured request with these exact characters (say, JSON cut off mid-way).

    Sent as the tool call's arguments when the request asks for a tool, else as content.
    """

    text: str
    finish_reason: str = "stop"


@dataclass(frozen=True)
class BrokenBody:
    """Answer with HTTP 200 and this body as it is: a response cut off, or not JSON at all."""

    body: bytes


@dataclass(frozen=True)
class Failure:
    """Answer with an HTTP error in OpenAI's error format."""

    status: int
    message: str
    code: str | None = None
    param: str | None = None
    headers: tuple[tuple[str, str], ...] = ()


LLAMA_CPP_PYTHON_REFUSAL = Failure(
    500,
    "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', "
    "'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', "
    "'ctx': {'expected': \"'text' or 'json_object'\"}}",
)
"""How llama-cpp-python's server answers a `response_format: json_schema` request."""

LLAMA_CPP_SERVER_REFUSAL = Failure(
    400,
    'response_format type must be one of "text" or "json_object", but got: json_schema',
)
"""How llama.cpp's llama-server (before it learned json_schema) answers the same request."""

Answer = Text | Structured | Raw | BrokenBody | Failure
Responder = Callable[[dict[str, Any]], Answer]


def is_structured_request(request: dict[str, Any]) -> bool:
    """Whether the request asks for structured output (tools or a response format)."""
    return bool(request.get("tools")) or "response_format" in request


EXTRACT_REQUEST = "Copy the words of the artifact that show it, or NONE."
"""The last line of a judge's request for evidence in plain words (`judge_mode: extract`)."""


def is_extract_request(request: dict[str, Any]) -> bool:
    """Whether the request asks a judge for the words that show a criterion, in plain text."""
    text = "\n".join(str(message.get("content") or "") for message in request["messages"])
    return not is_structured_request(request) and EXTRACT_REQUEST in text


YES_NO_REQUEST = "Answer yes or no."
"""The last line of a judge's yes-or-no look at one criterion (`judge_mode: extract_ask`)."""

YES = Text("yes", top_logprobs=(("yes", 0.0),))
NO = Text("no", top_logprobs=(("no", 0.0),))
"""A judge's clear yes and clear no to a yes-or-no look."""


def is_yes_no_request(request: dict[str, Any]) -> bool:
    """Whether the request asks a judge whether one criterion is met, yes or no."""
    last = str(request["messages"][-1].get("content") or "")
    return not is_structured_request(request) and last.rstrip().endswith(YES_NO_REQUEST)


def is_judge_request(request: dict[str, Any]) -> bool:
    """Whether the request is a judge's (structured, an extraction, or a yes-or-no look)."""
    return (
        is_structured_request(request) or is_extract_request(request) or is_yes_no_request(request)
    )


@dataclass
class RoleScript:
    """Answers plain requests from `worker` and structured ones from `critic`, in order.

    A judge asked for evidence in plain words (`judge_mode: extract`) is answered from
    `critic` too: a one-criterion answer stands for its words ("met" with `QUOTE` quotes
    the artifact's first words; anything else is NONE); asked yes or no, it stands for a
    clear yes ("met") or a clear no.
    """

    worker: list[Answer | str] = field(default_factory=list)
    critic: list[Answer | dict[str, Any]] = field(default_factory=list)

    def __call__(self, request: dict[str, Any]) -> Answer:
        queue: list[Any] = self.critic if is_judge_request(request) else self.worker
        if not queue:
            return Failure(500, "script exhausted", code="script_exhausted")
        item = queue.pop(0)
        if isinstance(item, str):
            return Text(item)
        if isinstance(item, dict) and is_yes_no_request(request):
            return YES if evidence_words(item, request) != "NONE" else NO
        if isinstance(item, dict) and is_extract_request(request):
            return Text(evidence_words(item, request))
        if isinstance(item, dict):
            return Structured(item)
        return item  # type: ignore[no-any-return]


def evidence_words(answer: dict[str, Any], request: dict[str, Any]) -> str:
    """The plain words an extracting judge replies with, for a scripted judge's answer."""
    if answer.get("verdict", "met") != "met" or not answer.get("quote"):
        return "NONE"
    quote = str(answer["quote"])
    return quoted_of(request) if quote == QUOTE else quote


def rubric_ids(request: dict[str, Any]) -> list[str]:
    """The criterion ids listed in a critic request's prompt ("- [id] text" lines)."""
    text = "\n".join(str(message.get("content") or "") for message in request["messages"])
    return re.findall(r"^- \[([^\]]+)\] ", text, flags=re.MULTILINE)


@dataclass
class FailFirstCritic:
    """Grades whatever rubric it is sent: the first criterion fails `failures` times, then all pass.

    Plain (worker) requests are answered with numbered drafts.
    """

    failures: int = 1
    drafts: int = 0
    verdicts: int = 0

    def __call__(self, request: dict[str, Any]) -> Answer:
        if is_extract_request(request):  # the judge copies evidence: none at first
            self.verdicts += 1
            return Text("NONE" if self.verdicts <= self.failures else quoted_of(request))
        if is_yes_no_request(request):  # the judge's look: no at first
            self.verdicts += 1
            return NO if self.verdicts <= self.failures else YES
        if not is_structured_request(request):
            self.drafts += 1
            return Text(f"Draft number {self.drafts}, a complete answer.")
        self.verdicts += 1
        if schema_name(request) == "answer":  # one criterion per call: fail the first ones
            if self.verdicts <= self.failures:
                return Structured({"quote": "", "verdict": "not met", "hint": "Make the change."})
            return Structured({"quote": QUOTE, "verdict": "met", "hint": ""})
        ids = rubric_ids(request)
        failing = ids[:1] if self.verdicts <= self.failures else []
        results = [
            {
                "criterion_id": criterion_id,
                "evidence": f"checked {criterion_id}"
                if criterion_id in failing
                else f'It says "{QUOTE}".',
                "passed": criterion_id not in failing,
                "terminal": False,
                "hint": "Make the change this needs." if criterion_id in failing else "",
            }
            for criterion_id in ids
        ]
        value = {
            "results": results,
            "feedback": "Revise." if failing else "",
            "passed": not failing,
        }
        return Structured(value)


def schema_name(request: dict[str, Any]) -> str | None:
    """The name of the schema a structured request asks for ("verdict", "answer", ...)."""
    tools = request.get("tools") or []
    if tools:
        return str(tools[0]["function"]["name"])
    response_format = request.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        return str(response_format["json_schema"]["name"])
    text = "\n".join(str(message.get("content") or "") for message in request["messages"])
    if '"quote":' in text:
        return "answer"
    return "rule_operations" if '"operations"' in text else "verdict"


ARTIFACT = re.compile(r"<<<ARTIFACT (\w+)>>>\n(.*?)\n<<<END ARTIFACT \1>>>", re.DOTALL)


def quoted_of(request: dict[str, Any]) -> str:
    """The first words of the artifact a judge request fences (a short quotation of it)."""
    return " ".join(artifact_of(request).split()[:4]).replace('"', "'") or "the artifact"


def artifact_of(request: dict[str, Any]) -> str:
    """The artifact a judge request fences between its random markers (the last one: worked
    examples before it fence theirs too)."""
    text = "\n".join(str(message.get("content") or "") for message in request["messages"])
    found = ARTIFACT.findall(text)
    return found[-1][1] if found else ""


SHORT_DRAFT = "A first, short draft."
FULL_DRAFT = (
    "The TrailFlask is a 750 ml insulated stainless-steel bottle that keeps drinks cold "
    "for 24 hours and hot for 12. Its leak-proof lid rides safely in any bag, and the "
    "whole bottle goes straight into the dishwasher. Order now."
)
"""A draft that passes the demo's rubric (critic_loop/examples/product_blurb.json)."""


@dataclass
class DiligentModel:
    """Answers like a diligent model on any task, slowly if asked (`latency` seconds).

    The worker's first draft is short and later drafts are complete; the judge passes
    every criterion it is sent, quoting the artifact; the distiller proposes one rule.
    """

    latency: float = 0.0
    drafts: int = 0

    def __call__(self, request: dict[str, Any]) -> Answer:
        if self.latency:
            time.sleep(self.latency)
        if is_extract_request(request):  # the judge copies evidence, code decides
            return Text(quoted_of(request))
        if is_yes_no_request(request):
            return YES
        if not is_structured_request(request):
            self.drafts += 1
            return Text(SHORT_DRAFT if self.drafts == 1 else FULL_DRAFT)
        if schema_name(request) == "rule_operations":
            rule = {
                "action": "add",
                "rule_id": "",
                "text": "Check the length limit before you answer.",
                "criteria": [],
                "reason": "The first draft was too short.",
            }
            return Structured({"operations": [rule]})
        quote = " ".join(artifact_of(request).split()[:4]).replace('"', "'") or "the artifact"
        if schema_name(request) == "answer":  # one criterion per call
            return Structured({"quote": quote, "verdict": "met", "hint": ""})
        results = [
            {
                "criterion_id": criterion_id,
                "evidence": f'It says "{quote}".',
                "passed": True,
                "terminal": False,
                "hint": "",
            }
            for criterion_id in rubric_ids(request)
        ]
        return Structured({"results": results, "feedback": "", "passed": True})


@dataclass
class NeverQuiteThere:
    """Never passes: numbered drafts; the judge fails every criterion it is sent, but the
    one that asks for an example ("The answer includes one ...") passes in draft 2 (so the
    best draft is not the last).

    Every call takes `latency` seconds.
    """

    latency: float = 0.0
    drafts: int = 0

    def __call__(self, request: dict[str, Any]) -> Answer:
        if self.latency:
            time.sleep(self.latency)
        if is_yes_no_request(request):
            return NO
        if not is_structured_request(request):
            self.drafts += 1
            return Text(f"Draft number {self.drafts}.")
        artifact = artifact_of(request)
        if schema_name(request) == "answer":  # one criterion per call: it names none
            return Structured({"quote": "", "verdict": "not met", "hint": "Change it."})
        text = "\n".join(str(m.get("content") or "") for m in request["messages"])
        example = next(
            (cid for cid in rubric_ids(request) if f"[{cid}] The answer includes one" in text),
            "example",
        )
        results = [
            {
                "criterion_id": cid,
                "passed": cid == example and "number 2" in artifact,
                "evidence": f'It says "{artifact[:14]}".',
                "terminal": False,
                "hint": "Change it.",
            }
            for cid in rubric_ids(request)
        ]
        return Structured({"results": results, "feedback": "Revise.", "passed": False})


def _approximate_tokens(text: str) -> int:
    return max(1, len(text) // 4)


def _render(answer: Text | Structured | Raw, request: dict[str, Any]) -> dict[str, Any]:
    """The assistant message for `answer`, as the request's output method expects it."""
    if isinstance(answer, Text):
        return {"role": "assistant", "content": answer.content}
    arguments = answer.text if isinstance(answer, Raw) else json.dumps(answer.value)
    tools = request.get("tools") or []
    if tools:
        name = tools[0]["function"]["name"]
        call = {
            "id": "call_1",
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }
        return {"role": "assistant", "content": None, "tool_calls": [call]}
    return {"role": "assistant", "content": arguments}


def _usage(request: dict[str, Any], message: dict[str, Any]) -> dict[str, int]:
    prompt = _approximate_tokens(json.dumps(request.get("messages", [])))
    produced = message.get("content") or json.dumps(message.get("tool_calls", ""))
    completion = _approximate_tokens(produced)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _finish(message: dict[str, Any], answer: Text | Structured | Raw) -> str:
    if isinstance(answer, Text | Raw) and answer.finish_reason != "stop":
        return answer.finish_reason
    if isinstance(answer, Text):
        return answer.finish_reason
    return "tool_calls" if message.get("tool_calls") else "stop"


def _logprobs(answer: Text) -> dict[str, Any]:
    alternatives = answer.top_logprobs or ((answer.content, 0.0),)
    top = [{"token": token, "logprob": logprob, "bytes": None} for token, logprob in alternatives]
    first = {"token": top[0]["token"], "logprob": top[0]["logprob"], "bytes": None}
    return {"content": [{**first, "top_logprobs": top}]}


def _completion(
    request: dict[str, Any], message: dict[str, Any], finish_reason: str
) -> dict[str, Any]:
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": request.get("model", "scripted"),
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": finish_reason,
            }
        ],
        "usage": _usage(request, message),
    }


def _chunks(
    request: dict[str, Any], message: dict[str, Any], finish: str
) -> Iterable[dict[str, Any]]:
    base = {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": request.get("model", "scripted"),
    }
    delta: dict[str, Any] = {"role": "assistant"}
    if message.get("tool_calls"):
        delta["tool_calls"] = [{"index": 0, **call} for call in message["tool_calls"]]
    else:
        delta["content"] = message.get("content") or ""
    yield {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
    yield {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}
    if (request.get("stream_options") or {}).get("include_usage"):
        yield {**base, "choices": [], "usage": _usage(request, message)}


class _QuietServer(ThreadingHTTPServer):
    """A threading HTTP server that does not print clients hanging up (timeouts do that)."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


class ScriptedOpenAIServer:
    """Serve `/v1/chat/completions` from `responder` on 127.0.0.1 (a free port)."""

    def __init__(self, responder: Responder, *, port: int = 0, model_id: str = "scripted") -> None:
        self.responder = responder
        self.model_id = model_id  # the one model GET /models lists
        self.requests: list[dict[str, Any]] = []
        self.arrivals: list[float] = []
        """When each request arrived (`time.monotonic()`), in the order of `requests`."""
        self.tokens: dict[int, int] = {}
        """The total tokens the server reported for each answered request, by its `id()`."""
        self.model_listings = 0  # GET /models: how often a client asked which model it serves
        self.models_delay = 0.0
        """Seconds GET /models waits, as llama-cpp-python's does behind a generation."""
        self._lock = threading.Lock()
        self._server = _QuietServer(("127.0.0.1", port), self._handler())
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def start(self) -> ScriptedOpenAIServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> ScriptedOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def structured_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if is_structured_request(r)]

    def plain_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if not is_structured_request(r)]

    def reported_tokens(self) -> list[int]:
        """The tokens reported for each request, in arrival order (0: no usage reported)."""
        return [self.tokens.get(id(request), 0) for request in self.requests]

    def _answer(self, request: dict[str, Any]) -> Answer:
        with self._lock:
            self.requests.append(request)
            self.arrivals.append(time.monotonic())
        answer = self.responder(request)
        if isinstance(answer, Structured):  # scripted passes quote the artifact they grade
            text = "\n".join(str(m.get("content") or "") for m in request["messages"])
            return Structured(quote_the_artifact(answer.value, text))
        return answer

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # answer at once: with Nagle on, each kept-alive reply waits ~40 ms for an ACK
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

            def _send_json(
                self,
                status: int,
                payload: dict[str, Any],
                headers: tuple[tuple[str, str], ...] = (),
            ) -> None:
                body = json.dumps(payload).encode()
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    server.model_listings += 1
                    time.sleep(server.models_delay)
                    self._send_json(200, {"object": "list", "data": [{"id": server.model_id}]})
                else:
                    self._send_json(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                request = json.loads(self.rfile.read(length) or b"{}")
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send_json(404, {"error": {"message": f"no route {self.path}"}})
                    return
                answer = server._answer(request)
                if isinstance(answer, BrokenBody):
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(answer.body)))
                    self.end_headers()
                    self.wfile.write(answer.body)
                    return
                if isinstance(answer, Failure):
                    kind = (
                        "internal_server_error" if answer.status >= 500 else "invalid_request_error"
                    )
                    error = {
                        "message": answer.message,
                        "type": kind,
                        "code": answer.code,
                        "param": answer.param,
                    }
                    self._send_json(answer.status, {"error": error}, answer.headers)
                    return
                message = _render(answer, request)
                finish = _finish(message, answer)
                server.tokens[id(request)] = _usage(request, message)["total_tokens"]
                if not request.get("stream"):
                    completion = _completion(request, message, finish)
                    if isinstance(answer, Text) and request.get("logprobs"):
                        completion["choices"][0]["logprobs"] = _logprobs(answer)
                    self._send_json(200, completion)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                for chunk in _chunks(request, message, finish):
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True

        return Handler


@dataclass
class RefusesJsonSchema:
    """Wraps a responder; refuses `json_schema` requests the way a local server does."""

    inner: Responder
    refusal: Failure = LLAMA_CPP_PYTHON_REFUSAL

    def __call__(self, request: dict[str, Any]) -> Answer:
        if (request.get("response_format") or {}).get("type") == "json_schema":
            return self.refusal
        return self.inner(request)
