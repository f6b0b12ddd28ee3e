"""Whose memory a store namespace holds; the graph and the server's auth both place it here."""

from __future__ import annotations

from collections.abc import Collection
from urllib.parse import quote

USERS_LABEL = "users"
APP_LABEL = "critic_loop"


def owner_label(identity: str) -> str:
    """Return `identity` as one namespace label (no periods, distinct identities stay distinct)."""
    return quote(identity, safe="").replace(".", "%2E")


def owner_prefix(identity: str) -> tuple[str, str]:
    """Return the namespace prefix under which the user `identity` keeps their memory."""
    return (USERS_LABEL, owner_label(identity))


def shared_scope_of(namespace: tuple[str, ...], shared_scopes: Collection[str]) -> str | None:
    """Return the shared scope of `namespace`, `("critic_loop", <kind>, <scope>)`, if any."""
    if len(namespace) >= 3 and namespace[0] == APP_LABEL and namespace[2] in shared_scopes:
        return namespace[2]
    return None
