"""Plain data, exact types only (no subclasses): all that crosses between drafted code and tests."""

from __future__ import annotations

import base64
import json
import math
import socket
import struct
from collections.abc import Callable, Iterator
from typing import Any

MAX_FRAME_BYTES = 16 * 1024 * 1024
MAX_DEPTH = 100
HEADER = struct.Struct(">I")
PLAIN_TYPES = (  # in words, for error messages
    "None, bool, int, float, complex, str, bytes, range, and lists, tuples, sets, dicts of them"
)


class NotPlainData(TypeError):
    """A value that cannot cross: not one of the plain types, or nested too deeply."""


class BrokenMessage(ValueError):
    """What arrived is not a well-formed message (too large, not JSON, unknown tags)."""


Handle = Callable[[str, Any], int]  # keeps a function or iterator: (kind, object) -> handle


def short(text: object, limit: int) -> str:
    """Return `text` as a string of at most `limit` characters."""
    text = str(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _described(value: object) -> str:
    kind = type(value)
    name = kind.__qualname__
    plain = next(
        (base.__name__ for base in kind.__mro__[1:-1] if base.__module__ == "builtins"), ""
    )
    if plain:
        return f"an object of type {name} (a subclass of {plain})"
    return f"an object of type {name}"


def encode(value: Any, handle: Handle | None = None, depth: int = 0) -> Any:
    """Return `value` as tagged JSON (else `NotPlainData`); functions become `handle`s."""
    if depth > MAX_DEPTH:
        raise NotPlainData(f"a value nested more than {MAX_DEPTH} levels (or inside itself)")
    kind = type(value)
    if value is None or kind in (bool, int, str):
        return value
    if kind is float:
        return value if math.isfinite(value) else {"float": repr(value)}
    inner = depth + 1
    if kind is list:
        return [encode(item, handle, inner) for item in value]
    if kind in (tuple, set, frozenset):
        return {kind.__name__: [encode(item, handle, inner) for item in value]}
    if kind is dict:
        return {
            "dict": [[encode(k, handle, inner), encode(v, handle, inner)] for k, v in value.items()]
        }
    if kind is bytes:
        return {"bytes": base64.b64encode(value).decode("ascii")}
    if kind is complex:
        return {"complex": [encode(value.real), encode(value.imag)]}
    if kind is range:
        return {"range": [value.start, value.stop, value.step]}
    if handle is not None and isinstance(value, Iterator):
        return {"iterator": handle("iterator", value)}
    if handle is not None and callable(value) and not isinstance(value, type):
        return {"function": handle("function", value)}
    raise NotPlainData(_described(value))


def _number(value: Any) -> float:
    if type(value) in (int, float):
        return float(value)
    raise BrokenMessage(f"not a number: {value!r}"[:200])


def _integer(value: Any) -> int:
    if type(value) is not int:
        raise BrokenMessage("not an integer")
    return value


Rebuild = Callable[[str, int], Any]  # the receiver's stand-in: (kind, handle) -> object


def _tagged(tag: str, body: Any, rebuild: Rebuild | None, depth: int) -> Any:
    if tag in ("tuple", "set", "frozenset") and type(body) is list:
        items = [decode(item, rebuild, depth + 1) for item in body]
        return {"tuple": tuple, "set": set, "frozenset": frozenset}[tag](items)
    if tag == "dict" and type(body) is list:
        pairs = []
        for pair in body:
            if type(pair) is not list or len(pair) != 2:
                raise BrokenMessage("a dict entry is not a [key, value] pair")
            pairs.append((decode(pair[0], rebuild, depth + 1), decode(pair[1], rebuild, depth + 1)))
        return dict(pairs)
    if tag == "bytes" and type(body) is str:
        return base64.b64decode(body.encode("ascii"), validate=True)
    if tag == "float" and body in ("nan", "inf", "-inf"):
        return float(body)
    if tag == "complex" and type(body) is list and len(body) == 2:
        return complex(_number(body[0]), _number(body[1]))
    if tag == "range" and type(body) is list and len(body) == 3:
        return range(*(_integer(part) for part in body))
    if tag in ("function", "iterator") and rebuild is not None:
        return rebuild(tag, _integer(body))
    raise BrokenMessage(f"unknown value tag {tag!r}"[:200])


def decode(value: Any, rebuild: Rebuild | None = None, depth: int = 0) -> Any:
    """Build the receiver's own plain objects from tagged JSON (else `BrokenMessage`)."""
    if depth > MAX_DEPTH + 1:
        raise BrokenMessage(f"a value nested more than {MAX_DEPTH} levels")
    kind = type(value)
    if value is None or kind in (bool, int, str, float):
        return value
    if kind is list:
        return [decode(item, rebuild, depth + 1) for item in value]
    if kind is dict and len(value) == 1:
        [(tag, body)] = value.items()
        try:
            return _tagged(tag, body, rebuild, depth)
        except (TypeError, ValueError) as error:  # an unhashable key, bad base64, ...
            if isinstance(error, BrokenMessage):
                raise
            raise BrokenMessage(f"a malformed {tag}: {error}"[:300]) from None
    raise BrokenMessage("not a tagged value")


def send(channel: socket.socket, message: dict[str, Any]) -> None:
    """Send one message (a JSON object) as a frame (`NotPlainData`: it is not JSON)."""
    try:
        data = json.dumps(message, allow_nan=False).encode("ascii")
    except (ValueError, TypeError, RecursionError) as error:
        raise NotPlainData(f"the message cannot be sent: {error}") from None
    if len(data) > MAX_FRAME_BYTES:
        raise NotPlainData(f"a message of {len(data)} bytes; the most is {MAX_FRAME_BYTES}")
    channel.sendall(HEADER.pack(len(data)) + data)


def _exactly(channel: socket.socket, size: int) -> bytes:
    parts, left = [], size
    while left:
        part = channel.recv(min(left, 1024 * 1024))
        if not part:
            raise EOFError("the other side closed the channel")
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def receive(channel: socket.socket) -> dict[str, Any]:
    """Wait for the next message (its values still tagged); EOFError when the other side ends."""
    (size,) = HEADER.unpack(_exactly(channel, HEADER.size))
    if size > MAX_FRAME_BYTES:
        raise BrokenMessage(f"a message of {size} bytes; the most is {MAX_FRAME_BYTES}")
    try:
        message = json.loads(_exactly(channel, size).decode("utf-8"))
    except (ValueError, RecursionError) as error:
        raise BrokenMessage(f"not a JSON message: {error}"[:300]) from None
    if type(message) is not dict:
        raise BrokenMessage("a message is not a JSON object")
    return message
