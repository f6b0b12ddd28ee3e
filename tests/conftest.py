"""Shared fixtures: scripted models registered under the "scripted" provider."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from critic_loop.local_model.server import LocalModelServer
from critic_loop.nodes.models.discovery import forget_servers
from critic_loop.nodes.models.provider_registry import (
    register_chat_model_provider,
    unregister_chat_model_provider,
)
from critic_loop.state.context import Context
from tests.support import fake_llama_server
from tests.support.rubrics import RUBRIC, TASK
from tests.support.scripted_model import ScriptedChatModel

pytest_plugins = ["tests.support.cli"]
"""Fixtures shared across test folders (`run_cli`)."""


class Models(dict[str, ScriptedChatModel]):
    """The scripted models a test registered, by name (worker, critic, ...)."""

    def script(self, name: str, *replies: object) -> ScriptedChatModel:
        model = ScriptedChatModel(replies=list(replies))
        self[name] = model
        return model


@pytest.fixture(autouse=True)
def no_run_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep a developer's CRITIC_LOOP_* settings out of the tests (test switches stay)."""
    for name in list(os.environ):
        if name.startswith("CRITIC_LOOP_") and not name.startswith(
            ("CRITIC_LOOP_TEST_", "CRITIC_LOOP_REQUIRE_")
        ):
            monkeypatch.delenv(name)


@pytest.fixture(autouse=True)
def no_real_embedded_model(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Start the embedded model's stand-in, never llama-cpp-python, outside tests/real_model.

    With the `local` extra installed, a test that reaches the embedded model would load a
    real model on the machine's few cores: here it gets `tests.support.fake_llama_server`.
    """
    if "real_model" not in request.node.path.parts:
        monkeypatch.setattr(LocalModelServer, "program", fake_llama_server.program())


@pytest.fixture(autouse=True)
def no_model_server_answers_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ask each test's model server afresh (their ports are reused from test to test).

    The answers its processes share live under this test's own XDG_CACHE_HOME.
    """
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    forget_servers()


@pytest.fixture
def models() -> Iterator[Models]:
    registered = Models()

    def factory(model: str, **settings: object) -> ScriptedChatModel:
        return registered[model]

    register_chat_model_provider("scripted", factory)
    yield registered
    unregister_chat_model_provider("scripted")


@pytest.fixture
def context() -> Context:
    return Context(worker_model="scripted:worker", critic_model="scripted:critic")


@pytest.fixture
def loop_input() -> dict[str, object]:
    return {"task": TASK, "rubric": [c.model_dump() for c in RUBRIC]}


@pytest.fixture
def postgres_url() -> str:
    """The test PostgreSQL server (`.ci/postgres start` prints the URL to export)."""
    url = os.environ.get("CRITIC_LOOP_TEST_POSTGRES_URL")
    if url:
        return url
    message = "no PostgreSQL server: export CRITIC_LOOP_TEST_POSTGRES_URL (.ci/postgres start)"
    if os.environ.get("CRITIC_LOOP_REQUIRE_POSTGRES") == "1":
        pytest.fail(message)
    pytest.skip(message)
