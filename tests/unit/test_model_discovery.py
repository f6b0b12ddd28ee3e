"""Runs use the models the machine has, unless they chose: one rule for every entry point."""

import pytest
from langgraph.runtime import Runtime

from critic_loop.nodes.models import discovery as model_choice
from critic_loop.nodes.models import profiles
from critic_loop.nodes.models.discovery import GEMINI_MODELS, LOCAL_SETTINGS
from critic_loop.nodes.models.discovery import available_models as choose_models
from critic_loop.nodes.operator_policy import needs_network, within_policy
from critic_loop.state.context import Context


@pytest.fixture
def served(monkeypatch):
    monkeypatch.setattr(
        model_choice, "discover_model", lambda base_url: f"model-at-{base_url[-4:]}"
    )


def test_a_local_server_wins_and_its_model_is_discovered(served) -> None:
    chosen = choose_models({}, {"OPENAI_BASE_URL": "http://h/v1", "OPENAI_API_KEY": "local"})
    assert chosen == {
        "worker_model": "openai:model-at-h/v1",
        "critic_model": "openai:model-at-h/v1",
        "judge_granularity": "criterion",
        "judge_mode": "extract",
        "lint_checks": True,
        "worker_max_tokens": 1024,
    }


def test_explicit_settings_are_kept(served) -> None:
    chosen = choose_models({"base_url": "http://x/v1", "judge_granularity": "rubric"}, {})
    assert chosen["worker_model"] == "openai:model-at-x/v1"
    assert "judge_granularity" not in chosen  # the user's choice stands


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"OPENAI_API_KEY": "sk"}, {}),
        ({"GEMINI_API_KEY": "g"}, GEMINI_MODELS),
        ({"GOOGLE_API_KEY": "g", "OPENAI_API_KEY": "sk"}, {}),
        ({}, {}),
        ({"CRITIC_LOOP_WORKER_MODEL": "openai:x", "OPENAI_BASE_URL": "http://h/v1"}, {}),
    ],
)
def test_keys_pick_the_provider(served, environ, expected) -> None:
    assert choose_models({}, environ) == expected


def test_named_models_are_never_replaced(served) -> None:
    assert choose_models({"worker_model": "openai:a"}, {"OPENAI_BASE_URL": "http://h/v1"}) == {}


def test_naming_the_local_model_gives_the_settings_discovering_it_gives(monkeypatch) -> None:
    monkeypatch.setattr(model_choice, "discover_model", lambda url: "qwen2.5-coder-0.5b-instruct")
    environ = {"OPENAI_BASE_URL": "http://h/v1", "OPENAI_API_KEY": "local"}
    discovered = choose_models({}, environ)
    model = discovered["critic_model"]
    named = choose_models({"worker_model": model, "critic_model": model}, environ)
    assert named == {k: v for k, v in discovered.items() if not k.endswith("_model")}
    assert named == LOCAL_SETTINGS | {"judge_mode": "extract_ask"}  # its shipped judge profile


@pytest.mark.parametrize(
    ("name", "small"),
    [
        ("qwen2.5-coder-0.5b-instruct", True),
        ("gemma-2-2b-it", True),
        ("llama-3.1-8b-instruct", False),
        ("mixtral-8x7b", False),
        ("stub-critic", False),
    ],
)
def test_a_named_model_gets_the_small_model_settings_by_its_size(name, small) -> None:
    chosen = choose_models({"critic_model": f"openai:{name}"}, {"OPENAI_BASE_URL": "http://h/v1"})
    assert (chosen.get("judge_mode") in ("extract", "extract_ask")) is small


def test_a_hosted_model_of_no_stated_size_gets_no_local_settings(served) -> None:
    chosen = {"worker_model": "openai:gpt-4.1", "critic_model": "openai:gpt-4.1"}
    assert choose_models(chosen, {"OPENAI_BASE_URL": "http://h/v1"}) == {}


def test_an_unreachable_server_is_an_error_not_a_silent_fallback(monkeypatch) -> None:
    monkeypatch.setattr(model_choice, "DISCOVERY_ATTEMPTS", 1)
    monkeypatch.setattr(model_choice.discover_model, "__defaults__", (0.5, 1))
    with pytest.raises(model_choice.DiscoveryFailed) as failure:
        choose_models({}, {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
    message = str(failure.value)
    assert "nothing answers at http://127.0.0.1:9/v1" in message
    assert "refused" in message.lower()
    assert "start the model server there" in message  # naming a model would not help
    assert "--model" not in message
    assert model_choice.served_model("http://127.0.0.1:9/v1", timeout=0.5) is None


def test_a_busy_server_is_waited_for(monkeypatch) -> None:
    """The first two answers are late; the third names the model."""
    from tests.support.openai_server import ScriptedOpenAIServer

    monkeypatch.setattr(model_choice.time, "sleep", lambda seconds: None)
    with ScriptedOpenAIServer([]) as server:
        calls = []
        real = model_choice._listed_model

        def slow_then_answer(base_url: str, timeout: float) -> str | None:
            calls.append(timeout)
            if len(calls) < 3:
                raise TimeoutError("timed out")
            return real(base_url, timeout)

        monkeypatch.setattr(model_choice, "_listed_model", slow_then_answer)
        assert model_choice.discover_model(server.base_url)
    assert calls == [model_choice.DISCOVERY_TIMEOUT] * 3


def test_a_settled_context_needs_no_network_again(monkeypatch) -> None:
    monkeypatch.setattr(model_choice, "discover_model", lambda url: "qwen2.5-coder-0.5b-instruct")
    monkeypatch.setattr(profiles, "_looked_up", set())  # no profile read by earlier tests
    monkeypatch.setenv("OPENAI_BASE_URL", "http://h/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "local")
    runtime = Runtime(context=Context())
    assert needs_network(runtime)  # its models are still to discover
    assert within_policy(runtime).context.worker_model == "openai:qwen2.5-coder-0.5b-instruct"
    assert not needs_network(runtime)  # the nodes after the first do not leave the loop
