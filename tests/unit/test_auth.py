"""The server's authentication and ownership rules, called as LangGraph server calls them."""

from __future__ import annotations

import time
import traceback
from collections.abc import Iterator
from typing import Any

import jwt
import pytest
from langgraph.store.memory import InMemoryStore
from langgraph_sdk import Auth

from critic_loop.nodes.memory.owned_store import OwnedStore
from critic_loop.serving import auth
from critic_loop.serving.tokens import InvalidToken, TokenSettings, verify
from critic_loop.state.memory_owners import owner_label, owner_prefix
from critic_loop.state.operator_settings import operator_settings

SECRET = "s" * 40


def token(subject: str = "alice", secret: str = SECRET, **claims: Any) -> str:
    payload = {"sub": subject, "exp": int(time.time()) + 600, **claims}
    return jwt.encode(payload, secret, algorithm="HS256")


@pytest.fixture
def enforcing(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("CRITIC_LOOP_AUTH_SECRET", SECRET)
    auth.token_settings.cache_clear()
    yield
    auth.token_settings.cache_clear()


@pytest.fixture
def open_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("CRITIC_LOOP_AUTH_SECRET", raising=False)
    monkeypatch.delenv("CRITIC_LOOP_AUTH_JWKS_URL", raising=False)
    auth.token_settings.cache_clear()
    yield
    auth.token_settings.cache_clear()


class User:
    def __init__(self, identity: str, authenticated: bool = True) -> None:
        self.identity = identity
        self.is_authenticated = authenticated
        self.display_name = identity
        self.permissions: list[str] = []


def context(
    resource: str, action: str, identity: str = "alice", authenticated: bool = True
) -> Auth.types.AuthContext:
    return Auth.types.AuthContext(
        resource=resource,  # type: ignore[arg-type]
        action=action,  # type: ignore[arg-type]
        user=User(identity, authenticated),  # type: ignore[arg-type]
        permissions=[],
    )


def test_a_token_signed_with_the_secret_names_its_user() -> None:
    settings = TokenSettings(secret=SECRET)
    assert verify(token("alice", name="Alice"), settings).identity == "alice"
    assert verify(token("alice", name="Alice"), settings).display_name == "Alice"


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        (token(secret="x" * 40), "Signature verification failed"),
        (token(exp=int(time.time()) - 10), "expired"),
        (jwt.encode({"sub": "alice"}, SECRET, algorithm="HS256"), "exp"),
        (jwt.encode({"exp": int(time.time()) + 60}, SECRET, algorithm="HS256"), "sub"),
        (jwt.encode({"sub": "a", "exp": int(time.time()) + 60}, None, algorithm="none"), "none"),
        ("not a token", "Not enough segments"),
    ],
)
def test_a_token_not_signed_by_the_secret_or_incomplete_is_refused(bad: str, why: str) -> None:
    with pytest.raises(InvalidToken, match=why):
        verify(bad, TokenSettings(secret=SECRET))


def test_audience_and_issuer_are_checked_when_set() -> None:
    settings = TokenSettings(secret=SECRET, audience="critic-loop", issuer="https://id.example")
    good = token(aud="critic-loop", iss="https://id.example")
    assert verify(good, settings).identity == "alice"
    with pytest.raises(InvalidToken, match="(?i)audience"):
        verify(token(aud="other", iss="https://id.example"), settings)
    with pytest.raises(InvalidToken, match="(?i)issuer"):
        verify(token(aud="critic-loop", iss="https://evil.example"), settings)


def test_a_short_secret_is_refused_at_start() -> None:
    with pytest.raises(ValueError, match="at least 32"):
        TokenSettings(secret="short")


def test_a_bad_setting_stops_the_server_in_a_line_that_never_holds_its_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CRITIC_LOOP_AUTH_SECRET", "sixteen-chars-ab")
    monkeypatch.setenv("CRITIC_LOOP_AUTH_REQUIRED", "not-a-yes-or-no")
    auth.token_settings.cache_clear()
    with pytest.raises(RuntimeError) as stopped:
        auth.check_at_start()
    auth.token_settings.cache_clear()
    message = str(stopped.value)
    assert "CRITIC_LOOP_AUTH_SECRET: it must be at least 32 characters long" in message
    assert "CRITIC_LOOP_AUTH_REQUIRED: " in message
    printed = "".join(traceback.format_exception(stopped.value))  # what the server logs
    assert "sixteen-chars-ab" not in printed and "not-a-yes-or-no" not in printed


async def test_without_a_secret_everyone_is_one_anonymous_user(open_server: None) -> None:
    user = await auth.authenticate(None)
    assert user["is_authenticated"] is False
    anonymous = context("threads", "read", user["identity"], authenticated=False)
    assert await auth.own_resources(anonymous, {}) is None
    store = context("store", "put", user["identity"], authenticated=False)
    assert await auth.own_memory(store, {"namespace": ["critic_loop", "rules", "x"]}) is None


async def test_a_user_authenticated_by_another_auth_still_owns_their_data(
    open_server: None,
) -> None:
    assert await auth.own_resources(context("threads", "read"), {}) == {"owner": "alice"}


async def test_a_server_that_requires_auth_refuses_all_until_it_can_check_tokens(
    open_server: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CRITIC_LOOP_AUTH_REQUIRED", "true")
    auth.token_settings.cache_clear()
    with pytest.raises(Auth.exceptions.HTTPException) as refused:
        await auth.authenticate(f"Bearer {token()}")
    assert refused.value.status_code == 401
    assert "CRITIC_LOOP_AUTH_SECRET" in str(refused.value.detail)


@pytest.mark.parametrize("header", [None, "", "Basic abc", "Bearer ", f"Bearer {token()}x"])
async def test_with_a_secret_a_request_without_a_valid_bearer_token_is_refused(
    enforcing: None, header: str | None
) -> None:
    with pytest.raises(Auth.exceptions.HTTPException) as refused:
        await auth.authenticate(header)
    assert refused.value.status_code == 401


async def test_with_a_secret_the_token_names_the_user(enforcing: None) -> None:
    user = await auth.authenticate(f"Bearer {token('bob')}")
    assert user["identity"] == "bob" and user["is_authenticated"] is True


async def test_what_a_user_creates_is_theirs_and_reads_are_filtered_by_owner(
    enforcing: None,
) -> None:
    created: dict[str, Any] = {"metadata": {"owner": "mallory", "topic": "x"}}
    assert await auth.own_resources(context("threads", "create"), created) == {"owner": "alice"}
    assert created["metadata"] == {"owner": "alice", "topic": "x"}
    searched: dict[str, Any] = {"metadata": {}}
    assert await auth.own_resources(context("threads", "search"), searched) == {"owner": "alice"}
    assert searched["metadata"] == {}  # a search's metadata is its filter, left alone


async def test_the_servers_assistants_are_readable_by_all_and_changeable_by_none(
    enforcing: None,
) -> None:
    readable = await auth.own_assistants(context("assistants", "search"), {"metadata": {}})
    assert readable == {"$or": [{"owner": "alice"}, {"created_by": "system"}]}
    changed: dict[str, Any] = {"metadata": {"created_by": "system"}}
    assert await auth.own_assistants(context("assistants", "update"), changed) == {"owner": "alice"}
    assert changed["metadata"] == {"owner": "alice"}  # a client cannot make it the server's


async def test_a_user_reaches_only_their_own_memory(
    enforcing: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    own = ["users", "alice", "critic_loop", "rules", "demo"]
    await auth.own_memory(context("store", "put"), {"namespace": own})
    for action in ("get", "put", "delete", "search"):
        with pytest.raises(Auth.exceptions.HTTPException) as refused:
            namespace = ["users", "bob", "critic_loop", "rules", "demo"]
            await auth.own_memory(context("store", action), {"namespace": namespace})
        assert refused.value.status_code == 403
        with pytest.raises(Auth.exceptions.HTTPException):
            await auth.own_memory(
                context("store", action), {"namespace": ["critic_loop", "rules", "demo"]}
            )
    listing: dict[str, Any] = {"namespace": None}
    await auth.own_memory(context("store", "list_namespaces"), listing)
    assert listing["namespace"] == ("users", "alice")
    searched: dict[str, Any] = {"namespace": ("users",)}
    await auth.own_memory(context("store", "search"), searched)
    assert searched["namespace"] == ("users", "alice")


async def test_shared_scopes_are_read_and_corrected_by_the_operators_curators_only(
    enforcing: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shared scope holds words of its users' tasks: users reach it through recall only."""
    monkeypatch.setenv("CRITIC_LOOP_SHARED_MEMORY_SCOPES", "house-style")
    monkeypatch.setenv("CRITIC_LOOP_MEMORY_CURATORS", "carol")
    operator_settings.cache_clear()
    try:
        for namespace in (
            ["critic_loop", "rules", "house-style"],
            ["critic_loop", "x", "house-style"],
        ):
            for action in ("get", "search", "put", "delete"):
                with pytest.raises(Auth.exceptions.HTTPException) as refused:
                    await auth.own_memory(context("store", action), {"namespace": namespace})
                assert refused.value.status_code == 403
                await auth.own_memory(context("store", action, "carol"), {"namespace": namespace})
        with pytest.raises(Auth.exceptions.HTTPException):  # curators of shared scopes only
            namespace = ["users", "alice", "critic_loop", "rules", "demo"]
            await auth.own_memory(context("store", "get", "carol"), {"namespace": namespace})
    finally:
        operator_settings.cache_clear()


def test_distinct_identities_get_distinct_labels_without_periods() -> None:
    names = ["a.b", "a%2Eb", "a/b", "users", "critic_loop", "alice@example.com"]
    labels = [owner_label(name) for name in names]
    assert len(set(labels)) == len(names)
    assert all("." not in label and label for label in labels)


def test_a_users_run_reads_and_writes_under_their_prefix_and_shared_scopes_stay_shared() -> None:
    store = InMemoryStore()
    alice = OwnedStore(store, owner_prefix("alice"), frozenset({"shared"}))
    bob = OwnedStore(store, owner_prefix("bob"), frozenset({"shared"}))
    alice.put(("critic_loop", "rules", "demo"), "r1", {"text": "Alice's rule"})
    alice.put(("critic_loop", "rules", "shared"), "r2", {"text": "Everyone's rule"})
    assert store.get(("users", "alice", "critic_loop", "rules", "demo"), "r1") is not None
    assert store.get(("critic_loop", "rules", "shared"), "r2") is not None
    assert bob.get(("critic_loop", "rules", "demo"), "r1") is None
    assert bob.search(("critic_loop", "rules", "demo")) == []
    assert [item.key for item in bob.search(("critic_loop", "rules", "shared"))] == ["r2"]
    found = alice.search(("critic_loop", "rules", "demo"))
    assert [(item.namespace, item.key) for item in found] == [
        (("critic_loop", "rules", "demo"), "r1")
    ]
    assert alice.list_namespaces() == [("critic_loop", "rules", "demo")]
