"""A shared memory scope learns only from what this server graded, never from a client's edits.

Where a run may write a shared scope, the critique node and recall seal what they make (an HMAC
bound to the graph and the thread), which no client can: a run whose critiques or recalled rules
a client wrote (`update_state`, `Command`, `Send`), or the served `distill` graph, lacks the
seals, and its memory steps reach only the caller's own scopes (docs/security.md).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import secrets
from collections.abc import Sequence
from typing import Any

from langgraph.runtime import Runtime

from critic_loop.nodes.memory.owned_store import run_owner
from critic_loop.state.operator_settings import operator_settings
from critic_loop.state.records import Critique, Outcome
from critic_loop.state.rules import RecalledRule


@functools.cache
def _key() -> bytes:  # the token secret keeps seals valid in all the server's processes
    secret = os.environ.get("CRITIC_LOOP_AUTH_SECRET") or secrets.token_hex(32)
    return hashlib.sha256(b"critic-loop seal\0" + secret.encode()).digest()


def binding(runtime: Runtime[Any]) -> str | None:
    """Return the graph and thread this run's seals are bound to, if it may share memory."""
    server, execution = runtime.server_info, runtime.execution_info
    shares = operator_settings().shared_memory_scopes and run_owner(runtime)
    if not (server and execution and execution.thread_id and shares):
        return None
    return f"{server.graph_id}/{execution.thread_id}"


def seal(bound: str, made: Critique | RecalledRule) -> str:
    """Return the seal of a critique (what it says of which draft) or of a recalled rule."""
    if isinstance(made, Critique):
        content = made.model_dump_json(include={"round", "candidate", "verdict"})
    else:
        content = f"{made.scope}/{made.id}"
    return hmac.new(_key(), f"{bound}\0{content}".encode(), hashlib.sha256).hexdigest()


def graded_here(
    runtime: Runtime[Any],
    critiques: Sequence[Critique],
    outcome: Outcome | None = None,
    recalled: Sequence[RecalledRule] = (),
) -> bool:
    """Say whether every critique and recalled rule is sealed here, and the outcome fits them."""
    bound = binding(runtime)
    made: list[Critique | RecalledRule] = [*critiques, *recalled]
    if bound is None or not critiques:
        return False
    if not all(m.seal and hmac.compare_digest(m.seal, seal(bound, m)) for m in made):
        return False
    return outcome != "passed" or any(c.verdict is not None and c.verdict.passed for c in critiques)
