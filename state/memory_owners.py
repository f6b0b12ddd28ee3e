"""Whose memory a store namespace holds: a user's own, or a scope the operator shares.

On LangGraph server with authentication, each user's memory lives under a namespace
prefix of their own, `("users", <identity>)`: a run of user U recalls from and distils
into `("users", U, "critic_loop", "rules", scope)`, never another user's. Only the scopes
the operator names in `CRITIC_LOOP_SHARED_MEMORY_SCOPES` stay at the unprefixed
`("critic_loop", ..., scope)`, where every user's runs read and write them. Runs without
an authenticated user (the command line, Python, a server without authentication) use the
unprefixed namespaces, as they always did.

The graph (`nodes.memory.owned_store`) and the server's authorization handlers
(`critic_loop.serving.auth`) both place namespaces with these functions, so what a run
writes is exactly what its user may reach through the store API.
"""

from __future__ import annotations

from collections.abc import Collection
from urllib.parse import quote

USERS_LABEL = "users"
"""The first label of every user's own namespaces."""

APP_LABEL = "critic_loop"
"""The first label of critic-loop's own namespaces (rules, rankings, usage markers)."""


def owner_label(identity: str) -> str:
    """Return `identity` as one namespace label (no periods, distinct identities stay distinct)."""
    return quote(identity, safe="").replace(".", "%2E")


def owner_prefix(identity: str) -> tuple[str, str]:
    """Return the namespace prefix under which the user `identity` keeps their memory."""
    return (USERS_LABEL, owner_label(identity))


def shared_scope_of(namespace: tuple[str, ...], shared_scopes: Collection[str]) -> str | None:
    """Return the shared scope `namespace` belongs to, if it is one of `shared_scopes`.

    critic-loop's namespaces are `("critic_loop", <kind>, <scope>)`: the rules, their
    ranking and the usage markers of one scope.
    """
    if len(namespace) >= 3 and namespace[0] == APP_LABEL and namespace[2] in shared_scopes:
        return namespace[2]
    return None
