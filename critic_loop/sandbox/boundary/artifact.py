"""The draft process: import the drafted module, then answer calls to it until the tests end.

    python -m critic_loop_boundary.artifact CHANNEL_FD MODULE

Everything in this process is within the drafted code's reach (it may replace any of
it); nothing here is trusted. What it sends is only ever read as plain data by the
harness process, which decides the verdict.

Messages it sends, on the channel (see `wire`):

- first, `{"hello": {"doc": ..., "names": {name: description}}}` once the module is
  imported, or `{"import_error": "<Type>: <message>"}` if it could not be;
- then one reply per call, in order: `{"id": n, "returned": value}`,
  `{"id": n, "raised": {...}}` or `{"id": n, "refused": why}` (what it returned is not
  plain data), each with what the call printed (`"printed"`).
"""

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

MAX_PRINTED = 64 * 1024
"""How much of what one call prints is sent back with its reply."""

MAX_TEXT = 2000
"""How long an error message or docstring sent across may be."""


class BoundedText(io.StringIO):
    """A text stream that keeps its first `MAX_PRINTED` characters."""

    def write(self, text: str) -> int:
        """Keep what still fits; report it all as written."""
        room = MAX_PRINTED - self.tell()
        if room > 0:
            super().write(text[:room])
        return len(text)


@contextlib.contextmanager
def printed() -> Iterator[BoundedText]:
    """Collect what the code prints (to sys.stdout and sys.stderr) while inside."""
    collected = BoundedText()
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = collected
    try:
        yield collected
    finally:
        sys.stdout, sys.stderr = saved


def short(text: str) -> str:
    """Return `text` cut to `MAX_TEXT` characters."""
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 3] + "..."


def summary(error: BaseException) -> str:
    """Say what an exception was, in one line (a SyntaxError by its message only)."""
    if isinstance(error, SyntaxError):
        return short(f"{type(error).__name__}: {error.msg}")
    return short("".join(traceback.format_exception_only(type(error), error)).strip())


def lineage(kind: type) -> list[list[str]]:
    """Name `kind` and its ancestors, as [module, qualified name] pairs (object left out)."""
    return [[base.__module__, base.__qualname__] for base in kind.__mro__ if base is not object]


class Handles:
    """The functions and iterators the harness may use, by number."""

    def __init__(self) -> None:
        """Start with none."""
        self.kept: list[Any] = []

    def keep(self, kind: str, value: Any) -> int:
        """Keep `value` (a function or an iterator) and return its number."""
        self.kept.append(value)
        return len(self.kept) - 1

    def get(self, kind: str, number: int) -> Any:
        """Return the kept function or iterator `number`."""
        if not 0 <= number < len(self.kept):
            raise wire.BrokenMessage(f"no {kind} {number}")
        return self.kept[number]


def describe_name(value: Any, handles: Handles) -> dict[str, Any]:
    """Say what the harness should make of one of the module's names."""
    if isinstance(value, types.ModuleType):
        return {"kind": "opaque", "type": "module"}
    if isinstance(value, type) and issubclass(value, BaseException):
        return {"kind": "exception", "lineage": lineage(value)}
    if callable(value):
        doc = getattr(value, "__doc__", None)
        return {
            "kind": "function",
            "handle": handles.keep("function", value),
            "doc": short(doc) if isinstance(doc, str) else None,
        }
    try:
        return {"kind": "value", "value": wire.encode(value)}
    except wire.NotPlainData:
        return {"kind": "opaque", "type": type(value).__qualname__}


def hello(module: types.ModuleType, handles: Handles) -> dict[str, Any]:
    """Describe the imported module's names for the harness."""
    names = {
        name: describe_name(value, handles)
        for name, value in list(vars(module).items())
        if not (name.startswith("__") and name.endswith("__")) or name == "__all__"
    }
    doc = module.__doc__
    return {"doc": short(doc) if isinstance(doc, str) else None, "names": names}


def raised(error: BaseException, handles: Handles) -> dict[str, Any]:
    """Describe an exception a call raised: its class's lineage, arguments and message."""
    try:
        arguments = wire.encode(list(error.args))
    except wire.NotPlainData:
        arguments = None
    try:
        message = short(str(error))
    except Exception:
        message = ""
    return {"lineage": lineage(type(error)), "args": arguments, "message": message}


def answer(request: dict[str, Any], handles: Handles) -> dict[str, Any]:
    """Run one request (a call, or the next item of an iterator) and return the reply."""
    rebuild = handles.get
    with printed() as output:
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
            reply: dict[str, Any] = {"raised": raised(error, handles)}
        else:
            try:
                reply = {"returned": wire.encode(result, handles.keep)}
            except wire.NotPlainData as refusal:
                reply = {"refused": str(refusal)}
    return {**reply, "printed": output.getvalue()}


def serve(channel: socket.socket, module_name: str) -> None:
    """Import the drafted module, say what it holds, then answer requests until the end."""
    handles = Handles()
    failure: str | None = None
    with printed() as output:
        try:
            module = importlib.import_module(module_name)
        except BaseException as error:  # even SystemExit: the import failed
            failure = summary(error)
    if failure is not None:
        wire.send(channel, {"import_error": failure, "printed": output.getvalue()})
        return
    wire.send(channel, {"hello": hello(module, handles), "printed": output.getvalue()})
    while True:
        try:
            request = wire.receive(channel)
        except EOFError:
            return
        reply = {"id": request.get("id"), **answer(request, handles)}
        try:
            wire.send(channel, reply)
        except wire.NotPlainData as refusal:  # too large to send
            wire.send(channel, {"id": reply["id"], "refused": str(refusal), "printed": ""})


def main() -> None:
    """Serve the channel and module named on the command line."""
    descriptor, module_name = int(sys.argv[1]), sys.argv[2]
    sys.set_int_max_str_digits(0)  # the harness side reads what this side writes
    serve(socket.socket(fileno=descriptor), module_name)


if __name__ == "__main__":
    main()
