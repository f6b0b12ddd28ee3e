"""A shared memory scope learns only from what this server graded, never from a client's edits.

In a run whose user may write a shared scope, the critique node seals each critique and recall
each rule it gives: an HMAC of what it says, bound to the graph and the thread, that a client
cannot make. A critique or a recalled rule written through the API (`update_state`, `Command`,
a `Send` to a memory step) or given to the served `distill` graph has no seal that holds, so
that run's memory steps reach only the caller's own scopes (docs/security.md, "Shared memory").
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
    """Return what this run's seals are bound to (graph and thread), if it may share memory."""
    server, execution = runtime.server_info, runtime.execution_info
    if server is None or execution is None or not execution.thread_id:
        return None
    if run_owner(runtime) is None or not operator_settings().shared_memory_scopes:
        return None
    return f"{server.graph_id}/{execution.thread_id}"


def seal(bound: str, content: str) -> str:
    """Return the seal of `content` in the run `bound` names."""
    return hmac.new(_key(), f"{bound}\0{content}".encode(), hashlib.sha256).hexdigest()


def critique_seal(bound: str, critique: Critique) -> str:
    """Return the seal of what `critique` says of which draft."""
    return seal(bound, critique.model_dump_json(include={"round", "candidate", "verdict"}))


def rule_seal(bound: str, rule: RecalledRule) -> str:
    """Return the seal of a rule recall gave."""
    return seal(bound, f"{rule.scope}/{rule.id}")


def _holds(given: str | None, expected: str) -> bool:
    return given is not None and hmac.compare_digest(given, expected)


def graded_here(
    runtime: Runtime[Any],
    critiques: Sequence[Critique],
    outcome: Outcome | None = None,
    recalled: Sequence[RecalledRule] = (),
) -> bool:
    """Say whether every critique and recalled rule is this run's own, and the outcome fits."""
    bound = binding(runtime)
    if bound is None or not critiques:
        return False
    if not all(_holds(c.seal, critique_seal(bound, c)) for c in critiques):
        return False
    if not all(_holds(rule.seal, rule_seal(bound, rule)) for rule in recalled):
        return False
    return outcome != "passed" or any(c.verdict is not None and c.verdict.passed for c in critiques)
