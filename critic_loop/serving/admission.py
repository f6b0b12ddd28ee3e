"""Webhooks only to hosts the operator allows, at public addresses; quotas of what may wait.

docs/security.md ("Webhooks", "Quotas").
"""

from __future__ import annotations

import functools
import ipaddress
import socket
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from langgraph_sdk import get_client

from critic_loop.state.operator_settings import operator_settings


def _allowed(host: str) -> bool:
    patterns = [pattern.lower() for pattern in operator_settings().webhook_hosts]
    return any(host == p or (p.startswith("*.") and host.endswith(p[1:])) for p in patterns)


def webhook_problem(url: str) -> str | None:
    """Say why the server may not call `url` when a client's run ends, or None (resolves it)."""
    if not operator_settings().webhook_hosts:
        return "webhooks are off here (the operator allows hosts in CRITIC_LOOP_WEBHOOK_HOSTS)"
    try:
        parts = urlsplit(url)
        host, port = (parts.hostname or "").lower(), parts.port or 443
        if parts.scheme not in ("http", "https") or not _allowed(host):
            return f"{host or url!r} is not one of CRITIC_LOOP_WEBHOOK_HOSTS"
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError, ValueError):
        return f"{url!r} names no host that resolves"
    for *_, address in found:
        ip = ipaddress.ip_address(str(address[0]).split("%")[0])
        ip = getattr(ip, "ipv4_mapped", None) or ip
        if not ip.is_global:
            return f"{host} is at {ip}, a private, loopback or link-local address"
    return None


@functools.cache
def _server() -> Any:  # the server's own API, in process and past its auth: it sees every user's
    return get_client(url=None)


async def quota_problem(mine: Mapping[str, Any], crons: bool) -> str | None:
    """Say why the user whose things `mine` matches may not start another run (or cron)."""
    settings, server = operator_settings(), _server()
    if crons:
        kept = await server.crons.count(metadata=mine)
        if kept < settings.max_crons:
            return None
        return f"you keep {kept} cron(s), the most one user may (CRITIC_LOOP_MAX_CRONS)"
    most, waiting = settings.max_pending_runs, 0
    for thread in await server.threads.search(metadata=mine, status="busy", limit=most):
        runs = await server.runs.list(thread["thread_id"], limit=most)
        waiting += sum(run["status"] in ("pending", "running") for run in runs)
    if waiting < most:
        return None
    return (
        f"you have {waiting} run(s) pending or running, the most one user may "
        "(CRITIC_LOOP_MAX_PENDING_RUNS): wait for one to finish, or cancel one"
    )
