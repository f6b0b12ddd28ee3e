import pytest
from pydantic import ValidationError

from critic_loop.state.context import Context


def test_defaults() -> None:
    context = Context()
    assert context.max_iterations == 10
    assert context.stall_rounds == 2
    assert (context.on_stall, context.sample_budget) == ("auto", 6)
    assert context.on_exhausted == "best"
    assert context.structured_output_method == "json_schema"


def test_environment_overrides_defaults_but_not_explicit_values(monkeypatch) -> None:
    monkeypatch.setenv("CRITIC_LOOP_MAX_ITERATIONS", "7")
    monkeypatch.setenv("CRITIC_LOOP_CRITIC_MODEL", "google_genai:gemini-2.5-pro")
    assert Context().max_iterations == 7
    assert Context().critic_model == "google_genai:gemini-2.5-pro"
    assert Context(max_iterations=4).max_iterations == 4


@pytest.mark.parametrize("cap", [0, -1, 101])
def test_iteration_cap_outside_1_to_100_is_refused(cap: int) -> None:
    with pytest.raises(ValidationError, match="max_iterations"):
        Context(max_iterations=cap)


@pytest.mark.parametrize("cap", [1, 100])
def test_iteration_cap_bounds_are_accepted(cap: int) -> None:
    assert Context(max_iterations=cap).max_iterations == cap


@pytest.mark.parametrize("spec", ["gpt-4o", "openai:", ":gpt-4o", ""])
def test_model_must_be_provider_colon_model(spec: str) -> None:
    with pytest.raises(ValidationError, match="provider:model"):
        Context(worker_model=spec)


def test_unknown_fields_are_refused() -> None:
    with pytest.raises(ValidationError, match="max_iteration"):
        Context(max_iteration=3)  # type: ignore[call-arg]


def test_bad_environment_value_is_refused(monkeypatch) -> None:
    monkeypatch.setenv("CRITIC_LOOP_MAX_ITERATIONS", "1000")
    with pytest.raises(ValidationError, match="max_iterations"):
        Context()
