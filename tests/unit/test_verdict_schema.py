"""The critic's output schema must be accepted by OpenAI strict mode and by Gemini."""

from typing import Any

from langchain_google_genai import ChatGoogleGenerativeAI
from langchain_openai import ChatOpenAI

from critic_loop.nodes.verifiers.judge_answers import CriticReport, critic_output_schema

# Keywords both OpenAI strict structured outputs and Gemini response schemas understand.
PORTABLE_KEYWORDS = {
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "description",
    "title",
    "enum",
}
PORTABLE_TYPES = {"object", "array", "string", "boolean", "integer", "number"}


def walk(node: Any, path: str = "$") -> list[str]:
    """Every violation of the portable strict-schema rules under `node`."""
    problems: list[str] = []
    if not isinstance(node, dict):
        return [f"{path}: not an object schema"]
    unknown = set(node) - PORTABLE_KEYWORDS
    if unknown:
        problems.append(f"{path}: unsupported keywords {sorted(unknown)}")
    kind = node.get("type")
    if kind not in PORTABLE_TYPES:
        problems.append(f"{path}: type {kind!r} is not a single portable type")
    if kind == "object":
        properties = node.get("properties")
        if not properties:
            problems.append(f"{path}: open object (no properties)")
            properties = {}
        if sorted(node.get("required", [])) != sorted(properties):
            problems.append(f"{path}: not every property is required")
        if node.get("additionalProperties") is not False:
            problems.append(f"{path}: additionalProperties must be false")
        for name, child in properties.items():
            problems += walk(child, f"{path}.{name}")
    if kind == "array":
        problems += walk(node.get("items"), f"{path}[]")
    return problems


def test_schema_follows_strict_rules() -> None:
    assert walk(critic_output_schema()) == []


def test_walker_catches_violations() -> None:
    loose = CriticReport.model_json_schema()  # pydantic's own output uses $ref/$defs
    assert any("unsupported keywords" in p for p in walk(loose))
    assert walk({"type": "object", "properties": {"a": {"type": "string"}}}) == [
        "$: not every property is required",
        "$: additionalProperties must be false",
    ]


def test_openai_strict_request_carries_the_schema_unchanged() -> None:
    model = ChatOpenAI(model="gpt-4.1", api_key="test")  # type: ignore[arg-type]
    bound = model.with_structured_output(
        critic_output_schema(), method="json_schema", strict=True, include_raw=True
    )
    request = bound.first.steps__["raw"].kwargs  # type: ignore[attr-defined]
    sent = request["response_format"]["json_schema"]
    assert sent["strict"] is True
    assert sent["name"] == "verdict"
    assert walk(sent["schema"]) == []


def test_gemini_accepts_the_schema() -> None:
    model = ChatGoogleGenerativeAI(model="gemini-2.5-flash", google_api_key="test")
    bound = model.with_structured_output(critic_output_schema(), method="json_schema")
    kwargs = bound.first.kwargs  # type: ignore[attr-defined]
    sent = kwargs.get("response_json_schema") or kwargs.get("response_schema")
    assert sent is not None, kwargs
    assert walk(sent) == []
