"""The graphs as the LangGraph server serves them (`langgraph.json`)."""

from __future__ import annotations

import os

from critic_loop.graphs.app import graph
from critic_loop.graphs.distill import graph as distill
from critic_loop.keyed_locks import AdvisoryLocks
from critic_loop.nodes.memory.scope_locks import set_default_scope_lock
from critic_loop.persistence import is_postgres

__all__ = ["distill", "graph", "lock_scopes_across_containers"]


def lock_scopes_across_containers() -> bool:
    """Make memory writes hold an advisory lock in the server's database, if it has one."""
    url = os.environ.get("DATABASE_URI") or os.environ.get("POSTGRES_URI")
    if not (url and is_postgres(url)):
        return False
    set_default_scope_lock(AdvisoryLocks(url))
    return True


lock_scopes_across_containers()
