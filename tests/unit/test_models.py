import pytest
from langchain_openai import ChatOpenAI

from critic_loop.nodes.models.loading import load_chat_model
from critic_loop.state.errors import ModelSetupError


@pytest.fixture(autouse=True)
def no_keys(monkeypatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "GOOGLE_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def test_unknown_provider_is_a_clear_error() -> None:
    with pytest.raises(ModelSetupError, match="unknown provider 'nosuch'"):
        load_chat_model("nosuch:model", role="worker", temperature=0)


def test_missing_openai_key_names_the_variable_and_the_local_alternative() -> None:
    with pytest.raises(ModelSetupError) as raised:
        load_chat_model("openai:gpt-4.1", role="critic", temperature=0)
    assert "OPENAI_API_KEY" in str(raised.value)
    assert "OPENAI_BASE_URL" in str(raised.value)
    assert "critic" in str(raised.value)


def test_missing_gemini_key_names_both_variables() -> None:
    with pytest.raises(ModelSetupError, match="GOOGLE_API_KEY or GEMINI_API_KEY"):
        load_chat_model("google_genai:gemini-2.5-flash", role="worker", temperature=0)


def test_gemini_key_from_either_variable(monkeypatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "test")
    model = load_chat_model("google_genai:gemini-2.5-flash", role="worker", temperature=0)
    assert type(model).__name__ == "ChatGoogleGenerativeAI"


def test_openai_compatible_server_needs_no_key() -> None:
    model = load_chat_model(
        "openai:qwen", role="worker", temperature=0.2, base_url="http://127.0.0.1:9/v1"
    )
    assert isinstance(model, ChatOpenAI)
    assert model.openai_api_base == "http://127.0.0.1:9/v1"
    assert model.temperature == 0.2


def test_base_url_from_the_environment(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    model = load_chat_model("openai:qwen", role="worker", temperature=0)
    assert isinstance(model, ChatOpenAI)
    assert model.openai_api_base == "http://127.0.0.1:9/v1"


def test_token_cap_uses_the_field_each_server_understands(monkeypatch) -> None:
    local = load_chat_model(
        "openai:qwen",
        role="critic",
        temperature=0,
        base_url="http://127.0.0.1:9/v1",
        max_tokens=256,
    )
    assert isinstance(local, ChatOpenAI)
    assert local.extra_body == {"max_tokens": 256}  # llama.cpp & co ignore the newer field
    assert local.max_tokens is None
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    hosted = load_chat_model("openai:gpt-4.1", role="critic", temperature=0, max_tokens=256)
    assert isinstance(hosted, ChatOpenAI)
    assert hosted.max_tokens == 256
