"""Checkpoints are data: loading one never constructs a type outside an explicit allowlist.

LangGraph serializes checkpoints with msgpack, whose extension records name a Python
type (module, name, arguments) to construct on load. A row tampered with in the database
could name `os.system`. `StrictSerializer` loads only LangGraph's own safe types, the
LangChain message types and this project's state models, and refuses the whole
checkpoint with `UnsafeCheckpoint` if it names anything else, or if it is a pickle (which
can run anything). The loop's channels hold plain JSON and messages, so nothing else is
ever needed.

Large values are stored compressed (zlib, tagged `msgpack+zlib`): a round's draft is
stored in its step's writes and, when the worker revises it, again in the route's
`Send` and in the checkpoint that holds that pending `Send`, and each checkpoint carries
LangGraph's channel versions. Compression keeps those copies small; values stored
before it, uncompressed, load as before. A compressed value that would unpack to more
than `MAX_UNPACKED_BYTES` is refused like any other tampered row.

The LangGraph server has its own serializer: langgraph.json turns on its strict mode
(`LANGGRAPH_STRICT_MSGPACK`) and turns off its pickle fallback.
"""

from __future__ import annotations

import contextvars
import importlib
import inspect
import zlib
from typing import Any

from langgraph.checkpoint.serde.event_hooks import SerdeEvent, register_serde_event_listener
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from pydantic import BaseModel

from critic_loop.errors import UnsafeCheckpoint

STATE_MODULES = (
    "critic_loop.state.context",
    "critic_loop.state.distill",
    "critic_loop.state.loop",
    "critic_loop.state.records",
    "critic_loop.state.rubric",
    "critic_loop.state.rules",
    "critic_loop.state.verdict",
)
"""Modules whose pydantic models may appear in a checkpoint (a Python caller's input)."""

LOADABLE_KINDS = frozenset({"msgpack", "null", "bytes", "bytearray"})
"""Serialized kinds a checkpoint may hold; "pickle" and others are refused."""

COMPRESSED = "+zlib"
"""Suffix of the kind of a value stored compressed (`msgpack+zlib`)."""

COMPRESS_FROM_BYTES = 1024
"""Serialized values this large or larger are stored compressed; smaller ones gain little."""

COMPRESSION_LEVEL = 1
"""zlib's fastest level: on drafts and checkpoints it packs nearly as tight as its default."""

MAX_UNPACKED_BYTES = 256 * 1024 * 1024
"""The most a stored compressed value may unpack to (a bound against a planted zlib bomb)."""


def project_types() -> tuple[tuple[str, str], ...]:
    """Return (module, name) of every pydantic model in the state modules."""
    found = []
    for module_name in STATE_MODULES:
        module = importlib.import_module(module_name)
        for name, value in vars(module).items():
            model = inspect.isclass(value) and issubclass(value, BaseModel)
            if model and value.__module__ == module_name:
                found.append((module_name, name))
    return tuple(sorted(found))


_blocked: contextvars.ContextVar[list[SerdeEvent] | None] = contextvars.ContextVar(
    "critic_loop_blocked_types", default=None
)


def _collect(event: SerdeEvent) -> None:
    sink = _blocked.get()
    if sink is not None and event["kind"] in ("msgpack_blocked", "msgpack_method_blocked"):
        sink.append(event)


register_serde_event_listener(_collect)


class StrictSerializer(JsonPlusSerializer):
    """LangGraph's serializer, strict: unknown types and pickles refuse the checkpoint."""

    def __init__(self) -> None:
        """Allow LangGraph's safe types and this project's state models only."""
        super().__init__(pickle_fallback=False, allowed_msgpack_modules=project_types())

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        """Serialize a value as LangGraph does, compressed when it is large."""
        kind, data = super().dumps_typed(obj)
        if len(data) < COMPRESS_FROM_BYTES:
            return kind, data
        return kind + COMPRESSED, zlib.compress(data, COMPRESSION_LEVEL)

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        """Load a stored value, or raise `UnsafeCheckpoint` if it names a forbidden type."""
        if data[0].endswith(COMPRESSED):
            data = (data[0].removesuffix(COMPRESSED), unpacked(data[1]))
        kind = data[0]
        if kind not in LOADABLE_KINDS:
            raise UnsafeCheckpoint(f"refusing a stored checkpoint value of kind {kind!r}")
        sink: list[SerdeEvent] = []
        token = _blocked.set(sink)
        try:
            value = super().loads_typed(data)
        finally:
            _blocked.reset(token)
        if sink:
            names = sorted(
                {".".join(filter(None, (e["module"], e["name"], e.get("method")))) for e in sink}
            )
            raise UnsafeCheckpoint(
                "refusing a stored checkpoint that names types outside the allowlist: "
                + ", ".join(names)
                + " (was the database tampered with?)"
            )
        return value


def unpacked(data: bytes) -> bytes:
    """Decompress a stored value.

    Raises:
        UnsafeCheckpoint: it is not zlib data, or it unpacks to more than `MAX_UNPACKED_BYTES`.
    """
    inflater = zlib.decompressobj()
    try:
        value = inflater.decompress(data, MAX_UNPACKED_BYTES)
    except zlib.error as error:
        raise UnsafeCheckpoint(
            f"refusing a stored checkpoint value that is not zlib data: {error}"
        ) from error
    if inflater.unconsumed_tail or not inflater.eof:
        raise UnsafeCheckpoint(
            "refusing a stored compressed checkpoint value that is cut off or unpacks to more "
            f"than {MAX_UNPACKED_BYTES} bytes (was the database tampered with?)"
        )
    return value
