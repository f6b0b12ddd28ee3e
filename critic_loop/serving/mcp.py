"""critic-loop's tools for MCP clients, at the LangGraph server's `/mcp`.

It replaces the built-in endpoint (`http.disable_mcp`), which answers with a Python
`repr`, hides a failed run's message, takes no context and fails on assistants that share
a name. Runs go through the server in process with the caller's headers: its auth applies.
"""

from __future__ import annotations

import json
import logging
import re
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import httpx
from langgraph_sdk.client import LangGraphClient
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from critic_loop.state.sizes import check_depth

logger = logging.getLogger(__name__)

PROTOCOL_VERSION = "2025-06-18"  # answered when a client asks for one not known here
KNOWN_VERSIONS = frozenset({"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"})

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
INTERNAL_ERROR = -32603

NAME_CHARACTERS = re.compile(r"[^A-Za-z0-9_.-]")


def _client() -> Any:
    # not `get_client(url=None)`: its requests skip the server's auth, so the caller's
    # headers would count for nothing
    from langgraph_api.server import app  # type: ignore[import-untyped]  # the running server

    transport = httpx.ASGITransport(app=app)
    return LangGraphClient(httpx.AsyncClient(base_url="http://api", transport=transport))


def _headers(request: Request) -> dict[str, str]:
    skip = {"content-length", "content-type", "accept", "host", "connection"}
    return {key: value for key, value in request.headers.items() if key.lower() not in skip}


def _tool_name(name: str) -> str:  # letters, digits, _ . -
    return NAME_CHARACTERS.sub("", re.sub(r"\s+", "_", name.strip()))[:128] or "assistant"


def _tool_names(assistants: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    # assistants sharing a name get their id's start added
    plain = [_tool_name(str(a.get("name") or a.get("graph_id") or "assistant")) for a in assistants]
    named: dict[str, dict[str, Any]] = {}
    for assistant, name in zip(assistants, plain, strict=True):
        if plain.count(name) > 1:
            name = f"{name}_{str(assistant['assistant_id'])[:8]}"
        named[name] = assistant
    return named


async def _assistants(request: Request) -> dict[str, dict[str, Any]]:
    found = await _client().assistants.search(limit=100, headers=_headers(request))
    return _tool_names(list(found))


async def _tool(name: str, assistant: dict[str, Any], request: Request) -> dict[str, Any]:
    schemas = await _client().assistants.get_schemas(
        assistant["assistant_id"], headers=_headers(request)
    )
    schema = dict(schemas.get("input_schema") or {"type": "object", "properties": {}})
    properties = dict(schema.get("properties") or {})
    if schemas.get("context_schema"):
        about = "Settings for this run (optional; see the server's README)."
        properties["context"] = {**schemas["context_schema"], "description": about}
    schema["properties"] = properties
    description = assistant.get("description") or f"Runs the {assistant['graph_id']} graph."
    return {
        "name": name,
        "title": assistant.get("name") or name,
        "description": description,
        "inputSchema": schema,
    }


def _error(code: int, message: str, request_id: Any) -> JSONResponse:
    body = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
    return JSONResponse(body)


def _object(value: Any, what: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"{what} must be an object, not {type(value).__name__}")
    return value


async def _call_tool(params: dict[str, Any], request: Request) -> dict[str, Any]:
    arguments = dict(_object(params.get("arguments"), "arguments"))
    context = _object(arguments.pop("context", None) or params.get("context"), "context")
    assistant = (await _assistants(request)).get(str(params.get("name")))
    if assistant is None:
        raise ValueError(f"Unknown tool: {params.get('name')}")
    try:
        output = await _client().runs.wait(
            None,
            assistant["assistant_id"],
            input=arguments,
            context=context,
            raise_error=False,
            headers=_headers(request),
        )
    except httpx.HTTPStatusError as refused:  # the server's own words
        detail = str(refused.response.json().get("detail"))
        if refused.response.status_code != 422:  # a ceiling, a quota: not the input's fault
            raise ValueError(detail) from None
        output = {"__error__": {"error": "InvalidInput", "message": detail}}
    if isinstance(output, dict) and "__error__" in output:
        error = output["__error__"]
        message = f"{error.get('error', 'Error')}: {error.get('message', '')}".strip(": ")
        return {"content": [{"type": "text", "text": message}], "isError": True}
    return {
        "content": [{"type": "text", "text": json.dumps(output)}],
        "structuredContent": output if isinstance(output, dict) else {"result": output},
        "isError": False,
    }


def _version() -> str:
    try:
        return version("critic-loop")
    except PackageNotFoundError:
        return "unknown"


async def _answer(method: Any, params: dict[str, Any], request: Request) -> dict[str, Any] | None:
    if method == "initialize":
        asked = params.get("protocolVersion")
        return {
            "protocolVersion": asked if asked in KNOWN_VERSIONS else PROTOCOL_VERSION,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": "critic-loop", "version": _version()},
        }
    if method == "ping":
        return {}
    if method == "tools/list":
        named = await _assistants(request)
        return {"tools": [await _tool(name, each, request) for name, each in named.items()]}
    if method == "tools/call":
        return await _call_tool(params, request)
    return None  # no such method


async def _handle(request: Request) -> Response:
    try:
        message = json.loads(await request.body())
    except (ValueError, RecursionError) as error:  # not JSON, or nested too deeply to read
        return _error(PARSE_ERROR, f"the body is not JSON: {type(error).__name__}", None)
    if not isinstance(message, dict) or "method" not in message:
        return _error(INVALID_REQUEST, "not a JSON-RPC request", None)
    method, request_id = message["method"], message.get("id")
    if request_id is None:  # a notification: nothing to answer
        return Response(status_code=202)
    try:
        params = check_depth(_object(message.get("params"), "params"), "params")
        answer = await _answer(method, params, request)
    except ValueError as error:  # bad params, nested too deeply, or a run refused
        return _error(INVALID_PARAMS, str(error), request_id)
    except Exception:
        logger.exception("MCP %s failed", method)
        return _error(INTERNAL_ERROR, f"{method} failed on the server", request_id)
    if answer is None:
        return _error(METHOD_NOT_FOUND, f"method not found: {method}", request_id)
    return JSONResponse({"jsonrpc": "2.0", "id": request_id, "result": answer})


async def _not_streamed(request: Request) -> Response:  # this endpoint is stateless
    return Response(status_code=405, headers={"Allow": "POST"})


def routes() -> list[Route]:
    """Return the MCP endpoint's routes, for the app langgraph.json mounts."""
    return [
        Route("/mcp", _handle, methods=["POST"]),
        Route("/mcp", _not_streamed, methods=["GET", "DELETE"]),
    ]
