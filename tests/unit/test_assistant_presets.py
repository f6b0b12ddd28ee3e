"""The ready-made assistants: which ones an environment gets, and installing them twice."""

import asyncio
from typing import Any

import pytest

from critic_loop.nodes.models import discovery
from critic_loop.serving import assistants
from critic_loop.serving.assistants import PRESETS, chosen_presets, install


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, []),
        ({"OPENAI_API_KEY": "sk-x"}, ["openai"]),
        ({"OPENAI_BASE_URL": "http://h/v1", "OPENAI_API_KEY": "local"}, ["local"]),
        ({"GOOGLE_API_KEY": "g", "OPENAI_API_KEY": "sk-x"}, ["openai", "gemini"]),
        ({"GEMINI_API_KEY": "g"}, ["gemini"]),
    ],
)
def test_auto_installs_what_the_environment_can_run(environ, expected) -> None:
    assert [p.name for p in chosen_presets("auto", environ)] == expected


def test_a_list_or_none_overrides_auto_and_typos_are_refused() -> None:
    assert [p.name for p in chosen_presets("gemini, openai", {})] == ["gemini", "openai"]
    assert chosen_presets("none", {"OPENAI_API_KEY": "x"}) == []
    with pytest.raises(ValueError, match="unknown assistant preset.*gemnii.*local, openai, gemini"):
        chosen_presets("gemnii", {})


class FakeAssistants:
    """Keeps assistants by id, as the server's API does."""

    def __init__(self) -> None:
        self.kept: dict[str, dict[str, Any]] = {}

    async def create(self, graph_id: str, *, assistant_id: str, if_exists: str, **fields: Any):
        assert if_exists == "do_nothing"
        self.kept.setdefault(assistant_id, {"graph_id": graph_id, **fields})
        return self.kept[assistant_id]

    async def update(self, assistant_id: str, **fields: Any):
        self.kept[assistant_id].update(fields)
        return {"assistant_id": assistant_id, **self.kept[assistant_id]}


class FakeClient:
    def __init__(self) -> None:
        self.assistants = FakeAssistants()


def test_installing_twice_updates_in_place_and_an_unreachable_server_is_skipped(
    monkeypatch,
) -> None:
    client = FakeClient()
    environ = {"GOOGLE_API_KEY": "g", "OPENAI_BASE_URL": "http://h/v1"}
    monkeypatch.setattr(discovery, "discover_model", lambda url: "served-model")
    chosen = [PRESETS["local"], PRESETS["gemini"]]
    asyncio.run(install(client, chosen, environ))
    installed = asyncio.run(install(client, chosen, environ))
    assert len(client.assistants.kept) == 2
    by_preset = {a["metadata"]["critic_loop_preset"]: a for a in installed}
    assert by_preset["local"]["context"]["worker_model"] == "openai:served-model"
    assert by_preset["gemini"]["context"]["critic_model"].startswith("google_genai:gemini")

    def down(url: str) -> str:
        raise assistants.DiscoveryFailed("no answer")

    monkeypatch.setattr(discovery, "discover_model", down)
    discovery.forget_servers()
    assert asyncio.run(install(FakeClient(), [PRESETS["local"]], environ)) == []
