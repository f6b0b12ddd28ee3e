"""The graphs as the LangGraph server serves them (`langgraph.json`).

With the server's PostgreSQL (`DATABASE_URI`, or `POSTGRES_URI`), memory's per-scope lock
becomes an advisory lock there, so two containers cannot store a rule twice.
"""

from __future__ import annotations

import os

from critic_loop.graphs.app import graph
from critic_loop.graphs.distill import graph as distill
from critic_loop.keyed_locks import AdvisoryLocks
from critic_loop.nodes.memory.scope_locks import set_default_scope_lock
from critic_loop.persistence import is_postgres

__all__ = ["distill", "graph", "lock_scopes_across_containers", "server_database"]


def server_database() -> str | None:
    """Return the LangGraph server's PostgreSQL URL, or None when it has none."""
    url = os.environ.get("DATABASE_URI") or os.environ.get("POSTGRES_URI")
    return url if url and is_postgres(url) else None


def lock_scopes_across_containers() -> bool:
    """Make memory writes hold an advisory lock in the server's database, if it has one."""
    url = server_database()
    if url is None:
        return False
    set_default_scope_lock(AdvisoryLocks(url))
    return True


lock_scopes_across_containers()
