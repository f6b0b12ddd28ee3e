"""Strangers on one `langgraph dev` server: each user owns their data; no code runs unboxed.

One server for the module, started with an operator's secret (CRITIC_LOOP_AUTH_SECRET):
langgraph.json's `auth.path` then checks every request's bearer token, and each user
reaches only their own threads, runs, assistants and memory. The server's PATH lacks
bubblewrap, as on a host without it: a run whose rubric would execute drafted code is
refused before any model call.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any
from uuid import uuid4

import httpx
import jwt
import pytest
from langgraph_sdk import get_client

from critic_loop.nodes.memory.relevance import topic_of
from critic_loop.state.rules import Rule, RuleProvenance
from tests.support.dev_server import DevServer
from tests.support.hidden_programs import path_without
from tests.support.openai_server import RoleScript, ScriptedOpenAIServer
from tests.support.rubrics import RUBRIC, TASK
from tests.support.verdicts import graded

pytestmark = pytest.mark.integration

SECRET = "an-operators-secret-of-at-least-32-characters"
API_KEY = "sk-the-operators-own-api-key-0123"
INPUT = {"task": TASK, "rubric": [c.model_dump() for c in RUBRIC]}
SCOPE = "shared-name"
"""Both users name the same memory scope: each still gets their own."""


def token(user: str, secret: str = SECRET) -> str:
    return jwt.encode({"sub": user, "exp": int(time.time()) + 3600}, secret, algorithm="HS256")


def client_of(server: DevServer, user: str) -> Any:
    return get_client(url=server.url, headers={"Authorization": f"Bearer {token(user)}"})


def context() -> dict[str, Any]:
    return {
        "worker_model": "openai:stub-worker",
        "critic_model": "openai:stub-critic",
        "max_iterations": 2,
        "memory_scope": SCOPE,
    }


def rule(text: str, scope: str = SCOPE) -> dict[str, Any]:
    """A rule learned on a task like the runs' (so recall finds it relevant)."""
    provenance = RuleProvenance(thread_id=None, outcome="passed", rounds=1)
    learned = Rule(text=text, scope=scope, topics=[topic_of(TASK)], provenance=provenance)
    return learned.model_dump(mode="json")


def own(user: str) -> tuple[str, ...]:
    return ("users", user, "critic_loop", "rules", SCOPE)


@pytest.fixture(scope="module")
def model_server():
    with ScriptedOpenAIServer(RoleScript()) as server:
        yield server


@pytest.fixture(scope="module")
def server(model_server, tmp_path_factory):
    env = {
        "OPENAI_BASE_URL": model_server.base_url,
        "OPENAI_API_KEY": API_KEY,
        "CRITIC_LOOP_AUTH_SECRET": SECRET,
        "PATH": path_without({"bwrap"}, tmp_path_factory.mktemp("bin")),
    }
    with DevServer(env=env) as started:
        yield started


@pytest.fixture(scope="module")
def alices_thread(server, model_server) -> dict[str, Any]:
    """Alice's finished run, in a scope where each user keeps a rule of their own."""
    return asyncio.run(alices_run(server, model_server))


async def alices_run(server, model_server) -> dict[str, Any]:
    alice, bob = client_of(server, "alice"), client_of(server, "bob")
    await alice.store.put_item(own("alice"), "a1", rule("Alice's own rule."))
    await bob.store.put_item(own("bob"), "b1", rule("Bob's planted rule."))
    model_server.responder.worker[:] = ["draft one"]
    model_server.responder.critic[:] = [graded(RUBRIC), {"operations": []}]
    thread = await alice.threads.create(metadata={"topic": "alice's work"})
    recalled = []
    async for part in alice.runs.stream(
        thread["thread_id"], "critic_loop", input=INPUT, context=context(), stream_mode="custom"
    ):
        if part.event == "custom" and part.data.get("event") == "recall":
            recalled = part.data["rules"]
        assert part.event != "error", f"{part.data}\n{server.log()}"
    return {"thread": thread, "recalled": recalled}


def status_of(error: BaseException) -> int:
    assert isinstance(error, httpx.HTTPStatusError), repr(error)
    return error.response.status_code


async def test_a_request_without_a_valid_token_is_refused(server) -> None:
    for headers in (
        {},
        {"Authorization": "Bearer not-a-token"},
        {"Authorization": f"Bearer {token('alice', secret='x' * 40)}"},  # bad signature
        {"x-auth-scheme": "langsmith"},  # no Studio bypass either
    ):
        response = httpx.post(f"{server.url}/threads/search", json={}, headers=headers)
        assert response.status_code == 401, (headers, response.text)
    response = httpx.post(f"{server.url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert response.status_code == 401  # the MCP endpoint is behind the same door


async def test_alices_run_recalls_her_rules_never_bobs(alices_thread) -> None:
    assert alices_thread["recalled"] == ["Alice's own rule."]


async def test_bob_cannot_read_resume_or_fork_alices_thread(server, alices_thread) -> None:
    bob = client_of(server, "bob")
    thread_id = alices_thread["thread"]["thread_id"]
    attempts = {
        "get": lambda: bob.threads.get(thread_id),
        "state": lambda: bob.threads.get_state(thread_id),
        "history": lambda: bob.threads.get_history(thread_id),
        "runs": lambda: bob.runs.list(thread_id),
        "fork": lambda: bob.threads.update_state(thread_id, {"task": "mine now"}),
        "copy": lambda: bob.threads.copy(thread_id),
        "update": lambda: bob.threads.update(thread_id, metadata={"owner": "bob"}),
        "resume": lambda: bob.runs.create(thread_id, "critic_loop", input=INPUT),
        "delete": lambda: bob.threads.delete(thread_id),
    }
    for name, attempt in attempts.items():
        with pytest.raises(httpx.HTTPStatusError) as refused:
            await attempt()
        # the server answers a copy of a thread it cannot find (for this user) with 409
        assert status_of(refused.value) in ((409,) if name == "copy" else (403, 404)), name
    assert await bob.threads.search(limit=100) == []
    alice = client_of(server, "alice")
    [found] = await alice.threads.search(limit=100)
    assert found["thread_id"] == thread_id and found["metadata"]["owner"] == "alice"
    history = await alice.threads.get_history(thread_id)
    forked = await alice.threads.copy(thread_id)
    assert history and forked["metadata"]["owner"] == "alice"


async def test_bob_cannot_see_or_run_alices_assistants(server) -> None:
    alice, bob = client_of(server, "alice"), client_of(server, "bob")
    mine = await alice.assistants.create("critic_loop", name="alice's settings")
    assert mine["metadata"]["owner"] == "alice"
    with pytest.raises(httpx.HTTPStatusError) as refused:
        await bob.assistants.get(mine["assistant_id"])
    assert status_of(refused.value) in (403, 404)
    bobs_view = await bob.assistants.search(graph_id="critic_loop", limit=100)
    assert mine["assistant_id"] not in {a["assistant_id"] for a in bobs_view}
    assert {a["metadata"].get("created_by") for a in bobs_view} == {"system"}  # the server's
    thread = await bob.threads.create()
    with pytest.raises(httpx.HTTPStatusError) as refused:
        await bob.runs.create(thread["thread_id"], mine["assistant_id"], input=INPUT)
    assert status_of(refused.value) in (403, 404)
    # an MCP client lists the tools its user may run, through the same rules
    tools = {}
    for user in ("alice", "bob"):
        response = httpx.post(
            f"{server.url}/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={"Authorization": f"Bearer {token(user)}"},
        )
        tools[user] = {tool["title"] for tool in response.json()["result"]["tools"]}
    assert "alice's settings" in tools["alice"]
    assert "alice's settings" not in tools["bob"] and tools["bob"]


async def test_bob_cannot_read_or_write_alices_memory(server, alices_thread) -> None:
    bob = client_of(server, "bob")
    for attempt in (
        lambda: bob.store.get_item(own("alice"), "a1"),
        lambda: bob.store.put_item(own("alice"), "b2", rule("Planted.")),
        lambda: bob.store.delete_item(own("alice"), "a1"),
        lambda: bob.store.search_items(own("alice")),
        lambda: bob.store.search_items(("critic_loop", "rules", SCOPE)),
    ):
        with pytest.raises(httpx.HTTPStatusError) as refused:
            await attempt()
        assert status_of(refused.value) == 403
    listed = await bob.store.list_namespaces()
    assert all(namespace[:2] == ["users", "bob"] for namespace in listed["namespaces"])
    alice = client_of(server, "alice")
    found = await alice.store.search_items(own("alice"))
    assert [item["key"] for item in found["items"]] == ["a1"]


async def test_bobs_distill_run_writes_only_into_bobs_own_scope(
    server, model_server, alices_thread
) -> None:
    bob, alice = client_of(server, "bob"), client_of(server, "alice")
    add = {"action": "add", "rule_id": "", "text": "Bob's lesson.", "criteria": [], "reason": "r"}
    model_server.responder.critic[:] = [{"operations": [add]}]
    past_run = {  # "example" failed, then passed after its hint: a lesson to keep
        **INPUT,
        "drafts": [{"round": 1, "text": "a draft"}, {"round": 2, "text": "a better draft"}],
        "critiques": [
            {"round": 1, "verdict": graded(RUBRIC, {"example": "Keep Bob's lesson in mind."})},
            {"round": 2, "verdict": graded(RUBRIC)},
        ],
        "outcome": "passed",
    }
    result = await bob.runs.wait(
        None,
        "distill",
        input=past_run,
        context={"critic_model": "openai:stub-critic", "memory_scope": SCOPE},
    )
    assert len(result["memory_report"]["added"]) == 1, result
    bobs = await bob.store.search_items(own("bob"), limit=10)
    assert "Bob's lesson." in {item["value"]["text"] for item in bobs["items"]}
    alices = await alice.store.search_items(own("alice"), limit=10)
    assert {item["value"]["text"] for item in alices["items"]} == {"Alice's own rule."}


async def test_each_users_namespace_is_placed_as_the_graph_places_it(server) -> None:
    # an identity that is no valid label (periods) still gets a namespace of its own
    carol = client_of(server, "carol@example.com")
    scope = f"s{uuid4().hex[:6]}"
    namespace = ("users", "carol%40example%2Ecom", "critic_loop", "rules", scope)
    await carol.store.put_item(namespace, "c1", rule("Carol's rule.", scope))
    found = await carol.store.get_item(namespace, "c1")
    assert found["value"]["text"] == "Carol's rule."


async def test_without_bubblewrap_a_served_run_with_tests_is_refused_before_any_model_call(
    server, model_server
) -> None:
    alice = client_of(server, "alice")
    thread = await alice.threads.create()
    tests = {"id": "tests", "kind": "tests", "tests": "def test_ok():\n    assert True\n"}
    before = len(model_server.requests)
    run = await alice.runs.create(
        thread["thread_id"],
        "critic_loop",
        input={"task": TASK, "rubric": [tests]},
        context=context(),
    )
    await alice.runs.join(thread["thread_id"], run["run_id"])
    finished = await alice.runs.get(thread["thread_id"], run["run_id"])
    assert finished["status"] == "error"
    assert len(model_server.requests) == before  # no model was called
    state = await alice.threads.get_state(thread["thread_id"])
    [task] = state["tasks"]
    assert task["name"] == "check_input"
    message = str(task["error"])
    assert "bubblewrap (bwrap) is not installed" in message, message
    assert "apt-get install bubblewrap" in message and "\\n" not in message


async def test_no_answer_and_no_log_line_holds_a_secret(server, model_server) -> None:
    """Every kind of refusal and error this server gives, then its whole log, grepped."""
    alice = client_of(server, "alice")
    bodies = []
    for headers in (
        {},
        {"Authorization": "Bearer not-a-token"},
        {"Authorization": f"Bearer {token('alice', secret=SECRET[:-1] + '!')}"},
        {"Authorization": f"Bearer {SECRET}"},  # the secret itself, sent as a token
    ):
        bodies.append(httpx.post(f"{server.url}/threads/search", json={}, headers=headers).text)
    thread = await alice.threads.create()
    for chosen in ({"call_budget": 10**9}, {"base_url": "http://127.0.0.1:9/v1"}, {"memory": 3}):
        with pytest.raises(httpx.HTTPStatusError) as refused:
            await alice.runs.create(
                thread["thread_id"], "critic_loop", input=INPUT, context={**context(), **chosen}
            )
        assert 400 <= status_of(refused.value) < 500
        bodies.append(refused.value.response.text)
    model_server.responder.worker[:] = []  # the worker's call fails: a run's own error
    failed = await alice.runs.wait(
        thread["thread_id"], "critic_loop", input=INPUT, context=context(), raise_error=False
    )
    bodies.append(str(failed))
    log = server.log_path.read_text(errors="replace")
    for secret in (SECRET, API_KEY):
        for body in bodies:
            assert secret not in body, body
        assert secret not in log


def test_a_short_secret_stops_the_server_without_saying_it() -> None:
    short = "sixteen-chars-ab"
    server = DevServer(env={"CRITIC_LOOP_AUTH_SECRET": short}, startup_timeout=60)
    try:
        with pytest.raises(RuntimeError, match="langgraph dev exited early") as stopped:
            server.start()
        log = server.log_path.read_text(errors="replace")
    finally:
        server.stop()
    assert (
        "critic-loop's authentication is misconfigured: CRITIC_LOOP_AUTH_SECRET: it must be at "
        "least 32 characters long"
    ) in log
    assert short not in log and short not in str(stopped.value)
