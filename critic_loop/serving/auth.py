"""Who may use a LangGraph server running critic-loop, and what is theirs (docs/security.md)."""

from __future__ import annotations

import asyncio
import functools
from typing import Any

from langgraph_sdk import Auth
from pydantic import ValidationError

from critic_loop.nodes.operator_policy import Trust, check_context
from critic_loop.serving.admission import quota_problem, webhook_problem
from critic_loop.serving.tokens import InvalidToken, TokenSettings, checked_settings, verify
from critic_loop.state.context import Context
from critic_loop.state.errors import TrustViolation
from critic_loop.state.memory_owners import owner_prefix, shared_scope_of
from critic_loop.state.operator_settings import operator_settings

# the metadata key that names the user who created a thread, run, cron or assistant
OWNER_KEY = "owner"

# the metadata of the assistants the server made itself, which every user may read and run
SYSTEM_MARK = ("created_by", "system")

NO_VERIFIER = (
    "This server requires authentication but has no way to check tokens: set "
    "CRITIC_LOOP_AUTH_SECRET or CRITIC_LOOP_AUTH_JWKS_URL (or unset CRITIC_LOOP_AUTH_REQUIRED "
    "to serve everyone as one anonymous user)."
)

ANONYMOUS: Auth.types.MinimalUserDict = {
    "identity": "anonymous",
    "display_name": "anonymous",
    "is_authenticated": False,
    "permissions": [],
}
"""Everyone, on a server that checks no tokens."""

auth = Auth()  # the server's authentication and authorization (langgraph.json's `auth.path`)


@functools.cache
def token_settings() -> TokenSettings:
    """Return how tokens are checked, read once (`cache_clear()` after changing the env)."""
    return checked_settings()


def check_at_start() -> None:
    """Stop the server as it starts (RuntimeError) if an auth setting is invalid."""
    try:
        token_settings()
    except ValueError as error:
        raise RuntimeError(f"critic-loop's authentication is misconfigured: {error}") from None


def _refused(status: int, detail: str) -> Auth.exceptions.HTTPException:
    return Auth.exceptions.HTTPException(status_code=status, detail=detail)


@auth.authenticate
async def authenticate(authorization: str | None) -> Auth.types.MinimalUserDict:
    """Return the user a request's bearer token names."""
    settings = token_settings()
    if not settings.verifies:
        if settings.required:
            raise _refused(401, NO_VERIFIER)
        return ANONYMOUS
    scheme, _, token = (authorization or "").strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise _refused(401, "Authentication required: send 'Authorization: Bearer <token>'.")
    try:
        if settings.jwks_url:  # fetching the provider's keys blocks
            found = await asyncio.to_thread(verify, token.strip(), settings)
        else:
            found = verify(token.strip(), settings)
    except InvalidToken as error:
        raise _refused(401, f"Invalid token: {error}.") from error
    user: Auth.types.MinimalUserDict = {**ANONYMOUS, "identity": found.identity}
    return {**user, "display_name": found.display_name, "is_authenticated": True}


def _owner(ctx: Auth.types.AuthContext) -> str | None:
    # None: the anonymous user of a server that checks no tokens, who sees everything
    if ctx.user.is_authenticated:
        return str(ctx.user.identity)
    if token_settings().verifies:
        raise _refused(403, "Forbidden: this request has no authenticated user.")
    return None


# the actions whose metadata is stored (in a search, metadata is a filter)
CLAIMING_ACTIONS = frozenset({"create", "update", "create_run"})


def _claim(ctx: Auth.types.AuthContext, value: Any, owner: str) -> None:
    if ctx.action not in CLAIMING_ACTIONS or not isinstance(value, dict):
        return
    metadata = value.get("metadata")
    if isinstance(metadata, dict):
        metadata[OWNER_KEY] = owner
        if metadata.get(SYSTEM_MARK[0]) == SYSTEM_MARK[1]:
            del metadata[SYSTEM_MARK[0]]


@auth.on
async def own_resources(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType | None:
    """Keep threads, runs and crons to their creators."""
    owner = _owner(ctx)
    if owner is None:
        return None
    _claim(ctx, value, owner)
    return {OWNER_KEY: owner}


def _settings_of(payload: dict[str, Any]) -> Any:
    # what a run made from `payload` is set with: `config.configurable`, then `context`
    config, context = payload.get("config"), payload.get("context")
    configurable = config.get("configurable") if isinstance(config, dict) else None
    if not isinstance(configurable, dict):
        return context
    return {**configurable, **(context if isinstance(context, dict) else {})}


def _police_context(context: Any) -> None:
    # only `Context` fields are read (other keys are LangGraph's); the nodes check again
    if not isinstance(context, dict):
        return
    fields = {key: value for key, value in context.items() if key in Context.model_fields}
    try:
        check_context(Context(**fields), Trust(served=True))
    except ValidationError as error:
        problems = [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors()]
        raise _refused(422, "the run's context: " + "; ".join(problems)) from None
    except TrustViolation as error:
        raise _refused(403, str(error)) from None


async def _admitted(
    ctx: Auth.types.AuthContext, value: Any, key: str, quota: str | None = None
) -> Auth.types.FilterType | None:
    # refuse (403) what `value[key]` sets that the operator refuses, a webhook to a host not
    # allowed, then (429) what passes the user's quota of `quota`; claim it for its user
    payload = value.get(key) if isinstance(value, dict) else None
    payload = payload if isinstance(payload, dict) else {}
    await asyncio.to_thread(_police_context, _settings_of(payload))  # paths: resolved on disk
    webhook = payload.get("webhook")
    problem = await asyncio.to_thread(webhook_problem, str(webhook)) if webhook else None
    if problem is not None:
        raise _refused(403, f"webhook refused: {problem}")
    owned = await own_resources(ctx, value)
    problem = await quota_problem(owned, quota == "crons") if owned and quota else None
    if problem is not None:
        raise _refused(429, f"Too many: {problem}.")
    return owned


@auth.on.threads.create_run
async def own_runs_within_policy(ctx: Auth.types.AuthContext, value: Any) -> Any:
    """Keep runs to their creators; refuse one the operator refuses (403) or over quota (429)."""
    return await _admitted(ctx, value, "kwargs", "runs")


@auth.on.crons.create
async def own_crons_within_policy(ctx: Auth.types.AuthContext, value: Any) -> Any:
    """As `own_runs_within_policy`, for the runs a new cron will start."""
    return await _admitted(ctx, value, "payload", "crons")


@auth.on.crons.update
async def changed_crons_within_policy(ctx: Auth.types.AuthContext, value: Any) -> Any:
    """As `own_runs_within_policy`, for a cron's new settings (no quota: it exists)."""
    return await _admitted(ctx, value, "payload")


@auth.on.assistants
async def own_assistants(ctx: Auth.types.AuthContext, value: Any) -> dict[str, Any] | None:
    """Keep assistants to their creators (the server's are everyone's); police their context."""
    if ctx.action in ("create", "update") and isinstance(value, dict):
        await asyncio.to_thread(_police_context, _settings_of(value))
    owned = await own_resources(ctx, value)
    if owned is not None and ctx.action in ("read", "search"):
        # `$or` of two exact matches (the runtimes' filters support it beside $eq, $contains)
        return {"$or": [owned, {SYSTEM_MARK[0]: SYSTEM_MARK[1]}]}
    return owned


@auth.on.store()
async def own_memory(ctx: Auth.types.AuthContext, value: dict[str, Any]) -> None:
    """Keep a user to their own namespaces; the operator's curators to the shared scopes too."""
    owner = _owner(ctx)
    if owner is None:
        return
    own = owner_prefix(owner)
    namespace = tuple(value.get("namespace") or ())
    if namespace[: len(own)] == own:
        return
    if ctx.action in ("search", "list_namespaces") and own[: len(namespace)] == namespace:
        value["namespace"] = own  # a listing wider than the user's own is narrowed to it
        return
    settings = operator_settings()  # a shared scope names its users' tasks: curators only
    if owner in settings.memory_curators and shared_scope_of(
        namespace, settings.shared_memory_scopes
    ):
        return
    raise _refused(
        403, f"Forbidden: your memory lies under {list(own)}; {list(namespace)} is not yours."
    )


check_at_start()
