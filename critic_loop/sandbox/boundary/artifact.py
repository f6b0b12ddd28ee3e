"""The draft process, all within the drafted code's reach: it answers calls to the drafted code."""

from __future__ import annotations

import contextlib
import importlib
import io
import socket
import sys
import traceback
import types
from collections.abc import Iterator
from typing import Any

from . import wire

MAX_PRINTED = 64 * 1024  # of what one call prints, sent back with its reply
MAX_TEXT = 2000  # an error message or docstring sent across


class _BoundedText(io.StringIO):
    def write(self, text: str) -> int:
        room = MAX_PRINTED - self.tell()
        if room > 0:
            super().write(text[:room])
        return len(text)


@contextlib.contextmanager
def _printed() -> Iterator[_BoundedText]:  # what the code prints while inside
    collected = _BoundedText()
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = collected
    try:
        yield collected
    finally:
        sys.stdout, sys.stderr = saved


def _summary(error: BaseException) -> str:  # one line (a SyntaxError: its message only)
    if isinstance(error, SyntaxError):
        return wire.short(f"{type(error).__name__}: {error.msg}", MAX_TEXT)
    said = "".join(traceback.format_exception_only(type(error), error)).strip()
    return wire.short(said, MAX_TEXT)


def _lineage(kind: type) -> list[list[str]]:  # [module, qualified name] pairs, not object
    return [[base.__module__, base.__qualname__] for base in kind.__mro__ if base is not object]


class _Handles(list[Any]):
    """The functions and iterators the harness may use, by number."""

    def keep(self, kind: str, value: Any) -> int:
        self.append(value)
        return len(self) - 1

    def get(self, kind: str, number: int) -> Any:
        if not 0 <= number < len(self):
            raise wire.BrokenMessage(f"no {kind} {number}")
        return self[number]


def _describe_name(value: Any, handles: _Handles) -> dict[str, Any]:
    if isinstance(value, types.ModuleType):
        return {"kind": "opaque", "type": "module"}
    if isinstance(value, type) and issubclass(value, BaseException):
        return {"kind": "exception", "lineage": _lineage(value)}
    if callable(value):
        doc = getattr(value, "__doc__", None)
        return {
            "kind": "function",
            "handle": handles.keep("function", value),
            "doc": wire.short(doc, MAX_TEXT) if isinstance(doc, str) else None,
        }
    try:
        return {"kind": "value", "value": wire.encode(value)}
    except wire.NotPlainData:
        return {"kind": "opaque", "type": type(value).__qualname__}


def _hello(module: types.ModuleType, handles: _Handles) -> dict[str, Any]:
    names = {
        name: _describe_name(value, handles)
        for name, value in list(vars(module).items())
        if not (name.startswith("__") and name.endswith("__")) or name == "__all__"
    }
    doc = module.__doc__
    return {"doc": wire.short(doc, MAX_TEXT) if isinstance(doc, str) else None, "names": names}


def _raised(error: BaseException) -> dict[str, Any]:
    try:
        arguments = wire.encode(list(error.args))
    except wire.NotPlainData:
        arguments = None
    try:
        message = wire.short(str(error), MAX_TEXT)
    except Exception:
        message = ""
    return {"lineage": _lineage(type(error)), "args": arguments, "message": message}


def _answer(request: dict[str, Any], handles: _Handles) -> dict[str, Any]:
    rebuild = handles.get
    with _printed() as output:
        try:
            if "next" in request:
                iterator = handles.get("iterator", request["next"])
                result = next(iterator)
            else:
                function = handles.get("function", request["call"])
                arguments = wire.decode(request.get("args", []), rebuild)
                keywords = wire.decode(request.get("kwargs", {"dict": []}), rebuild)
                result = function(*arguments, **keywords)
        except BaseException as error:  # the drafted code's exception, reported as data
            reply: dict[str, Any] = {"raised": _raised(error)}
        else:
            try:
                reply = {"returned": wire.encode(result, handles.keep)}
            except wire.NotPlainData as refusal:
                reply = {"refused": str(refusal)}
    return {**reply, "printed": output.getvalue()}


def serve(channel: socket.socket, module_name: str) -> None:
    """Import the drafted module, say what it holds, then answer requests until the end."""
    handles = _Handles()
    failure: str | None = None
    with _printed() as output:
        try:
            module = importlib.import_module(module_name)
        except BaseException as error:  # even SystemExit: the import failed
            failure = _summary(error)
    if failure is not None:
        wire.send(channel, {"import_error": failure, "printed": output.getvalue()})
        return
    wire.send(channel, {"hello": _hello(module, handles), "printed": output.getvalue()})
    while True:
        try:
            request = wire.receive(channel)
        except EOFError:
            return
        reply = {"id": request.get("id"), **_answer(request, handles)}
        try:
            wire.send(channel, reply)
        except wire.NotPlainData as refusal:  # too large to send
            wire.send(channel, {"id": reply["id"], "refused": str(refusal), "printed": ""})


if __name__ == "__main__":
    sys.set_int_max_str_digits(0)  # the harness side reads what this side writes
    serve(socket.socket(fileno=int(sys.argv[1])), sys.argv[2])
