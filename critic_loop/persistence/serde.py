"""Checkpoints are data: loading one never constructs a type outside an explicit allowlist."""

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

STATE_MODULES = (  # whose pydantic models may appear in a checkpoint
    "critic_loop.state.context",
    "critic_loop.state.distill",
    "critic_loop.state.loop",
    "critic_loop.state.records",
    "critic_loop.state.rubric",
    "critic_loop.state.rules",
    "critic_loop.state.verdict",
)
LOADABLE_KINDS = frozenset({"msgpack", "null", "bytes", "bytearray"})
COMPRESSED = "+zlib"  # the suffix of a compressed value's kind
COMPRESS_FROM_BYTES = 1024  # smaller values gain little
COMPRESSION_LEVEL = 1  # zlib's fastest: nearly as tight as its default on checkpoints
MAX_UNPACKED_BYTES = 256 * 1024 * 1024  # against a planted zlib bomb


def _project_types() -> tuple[tuple[str, str], ...]:
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
        super().__init__(pickle_fallback=False, allowed_msgpack_modules=_project_types())

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        """Serialize a value as LangGraph does, compressed when it is large."""
        kind, data = super().dumps_typed(obj)
        if len(data) < COMPRESS_FROM_BYTES:
            return kind, data
        return kind + COMPRESSED, zlib.compress(data, COMPRESSION_LEVEL)

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        """Load a stored value, or raise `UnsafeCheckpoint` if it names a forbidden type."""
        if data[0].endswith(COMPRESSED):
            data = (data[0].removesuffix(COMPRESSED), _unpacked(data[1]))
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


def _unpacked(data: bytes) -> bytes:
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
