"""The command line picks models from what the machine has, unless the user chose."""

import pytest

from critic_loop import model_choice
from critic_loop.model_choice import GEMINI_MODELS, choose_models


@pytest.fixture
def served(monkeypatch):
    monkeypatch.setattr(model_choice, "served_model", lambda base_url: f"model-at-{base_url[-4:]}")


def test_a_local_server_wins_and_its_model_is_discovered(served) -> None:
    chosen = choose_models({}, {"OPENAI_BASE_URL": "http://h/v1", "OPENAI_API_KEY": "local"})
    assert chosen == {
        "worker_model": "openai:model-at-h/v1",
        "critic_model": "openai:model-at-h/v1",
        "judge_granularity": "criterion",
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


def test_an_unreachable_server_is_an_error_not_a_silent_fallback(monkeypatch) -> None:
    assert model_choice.served_model("http://127.0.0.1:9/v1", timeout=0.5) is None
    monkeypatch.setattr(model_choice, "served_model", lambda base_url: None)
    with pytest.raises(model_choice.DiscoveryFailed, match="--model openai:<name>"):
        choose_models({}, {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
