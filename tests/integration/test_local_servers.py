"""OpenAI-compatible local servers: refused structured-output methods, weak answers."""

import json
import logging
import re

import pytest

from critic_loop.graphs.app import build_graph
from critic_loop.nodes.models import gateway
from critic_loop.state.context import Context
from tests.support.openai_server import (
    LLAMA_CPP_PYTHON_REFUSAL,
    LLAMA_CPP_SERVER_REFUSAL,
    RefusesJsonSchema,
    RoleScript,
    ScriptedOpenAIServer,
    Text,
    is_structured_request,
)
from tests.support.rubrics import RUBRIC
from tests.support.verdicts import QUOTE, graded, quoted_start

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def fresh_method_memory(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    gateway.forget_methods()
    yield
    gateway.forget_methods()


def context(server, **overrides) -> Context:
    settings = {
        "worker_model": "openai:local",
        "critic_model": "openai:local",
        "base_url": server.base_url,
        "memory": False,
    }
    return Context(**{**settings, **overrides})


@pytest.mark.parametrize(
    "refusal",
    [LLAMA_CPP_PYTHON_REFUSAL, LLAMA_CPP_SERVER_REFUSAL],
    ids=["llama-cpp-python", "llama.cpp-server"],
)
def test_refused_json_schema_falls_back_to_tool_calls_with_one_info_note(
    loop_input, caplog, refusal
) -> None:
    script = RoleScript(
        worker=["draft 1", "draft 2"],
        critic=[graded(RUBRIC, {"tone": "Use plain words."}), graded(RUBRIC)],
    )
    caplog.set_level(logging.INFO, logger="critic_loop")
    with ScriptedOpenAIServer(RefusesJsonSchema(script, refusal)) as server:
        out = build_graph().invoke(loop_input, context=context(server))
    assert out["outcome"] == "passed"
    kinds = [
        "tools" if r.get("tools") else r["response_format"]["type"]
        for r in server.structured_requests()
    ]
    # round 1: json_schema refused (the client retries a 500 before giving up), then tools;
    # round 2 goes straight to tools: the choice was remembered
    assert kinds[-2:] == ["tools", "tools"]
    assert kinds[:-2] and set(kinds[:-2]) == {"json_schema"}
    notes = [r for r in caplog.records if "structured output by" in r.getMessage()]
    assert [note.levelno for note in notes] == [logging.INFO]
    said = notes[0].getMessage()  # one short line, not the server's raw error body
    assert "json_schema" in said and "function_calling" in said and server.base_url in said
    assert "\n" not in said and "{" not in said and len(said) < 200, said
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_the_fallback_note_is_said_once_per_server(loop_input, caplog) -> None:
    script = RoleScript(worker=["draft 1"], critic=[graded(RUBRIC), graded(RUBRIC)])
    caplog.set_level(logging.INFO, logger="critic_loop")
    with ScriptedOpenAIServer(RefusesJsonSchema(script, LLAMA_CPP_PYTHON_REFUSAL)) as server:
        two_critics = context(server, critic_models=["openai:a", "openai:b"])
        out = build_graph().invoke(loop_input, context=two_critics)
    assert out["outcome"] == "passed"
    kinds = ["tools" if r.get("tools") else "json_schema" for r in server.structured_requests()]
    assert kinds.count("tools") == 2  # each critic model found its method
    notes = [r for r in caplog.records if "structured output by" in r.getMessage()]
    assert len(notes) == 1 and notes[0].levelno == logging.INFO


def test_the_choice_is_remembered_across_runs(loop_input) -> None:
    script = RoleScript(worker=["a", "b"], critic=[graded(RUBRIC), graded(RUBRIC)])
    with ScriptedOpenAIServer(RefusesJsonSchema(script)) as server:
        build_graph().invoke(loop_input, context=context(server))
        refused_before = len([r for r in server.requests if "response_format" in r])
        build_graph().invoke(loop_input, context=context(server))
        refused_after = len([r for r in server.requests if "response_format" in r])
    assert refused_before >= 1
    assert refused_after == refused_before


def test_an_answer_cut_off_at_the_token_limit_is_retried(loop_input) -> None:
    cut_off = Text('{"results": [{"criterion_id": "length", "evid', finish_reason="length")
    script = RoleScript(worker=["draft"], critic=[cut_off, graded(RUBRIC)])
    with ScriptedOpenAIServer(script) as server:
        out = build_graph().invoke(loop_input, context=context(server, critic_max_tokens=64))
    assert out["outcome"] == "passed"
    assert out["critiques"][0]["attempts"] == 2
    assert "length limit was reached" in out["critiques"][0]["rejected"][0]
    assert all(r["max_tokens"] == 64 for r in server.structured_requests())


def test_one_call_per_criterion_for_small_models(loop_input) -> None:
    met = {"quote": QUOTE, "verdict": "met", "hint": ""}
    script = RoleScript(worker=["draft"], critic=[met, met, met])
    with ScriptedOpenAIServer(script) as server:
        out = build_graph().invoke(
            loop_input,
            context=context(
                server, judge_granularity="criterion", structured_output_method="function_calling"
            ),
        )
    assert out["outcome"] == "passed"
    critic_requests = server.structured_requests()
    assert len(critic_requests) == 3
    for request, criterion in zip(critic_requests, RUBRIC, strict=True):
        prompt = str(request["messages"])
        assert criterion.text in prompt
        assert all(other.text not in prompt for other in RUBRIC if other is not criterion)
        # one criterion per call: its answer names no criterion, so no id can be confused
        assert "criterion_id" not in json.dumps(request["tools"])
        assert criterion.id not in prompt.replace(criterion.text, "")
    assert out["critiques"][0]["attempts"] == 3


def test_an_empty_draft_fails_the_round_instead_of_crashing(loop_input) -> None:
    script = RoleScript(worker=["", "draft"], critic=[graded(RUBRIC)])
    with ScriptedOpenAIServer(script) as server:
        out = build_graph().invoke(loop_input, context=context(server))
    assert out["outcome"] == "passed"
    assert out["critiques"][0]["verdict"]["results"][0]["evidence"] == "The draft is empty."


def answer_by_filling_in_the_prompt_template(request: dict) -> Text | None:
    """Answer like a weak model: copy the JSON shape the prompt shows, filling each <...>."""
    prompt = "\n".join(str(m.get("content") or "") for m in request["messages"])
    shape = next(line for line in prompt.splitlines() if line.startswith('{"results"'))
    ids = re.findall(r"^- \[([^\]]+)\] ", prompt, flags=re.MULTILINE)
    entry = re.search(r"\[(\{.*?\})\]", shape).group(1)  # one result's shape
    filled_entries = []
    for criterion_id in ids:
        filled = entry.replace("<id>", json.dumps(criterion_id))
        filled = re.sub(r"<true or false>", "true", filled)
        filled = re.sub(r"<true only if[^>]*>", "false", filled)
        quote = f'It says "{quoted_start(prompt)}"'
        filled = re.sub(r"<the artifact's words[^>]*>", json.dumps(quote), filled)
        filled = re.sub(r"<[^>]*>", json.dumps("the artifact says so"), filled)
        filled_entries.append(filled)
    whole = shape.replace(f"[{entry}]", "[" + ", ".join(filled_entries) + "]", 1)
    whole = re.sub(r"<true only if[^>]*>", "true", whole)
    whole = re.sub(r"<[^>]*>", '""', whole)
    return Text(whole)


def test_json_mode_answers_that_follow_the_prompt_template_are_accepted(loop_input) -> None:
    def respond(request: dict):
        if not is_structured_request(request):
            return Text("draft")
        return answer_by_filling_in_the_prompt_template(request)

    with ScriptedOpenAIServer(respond) as server:
        out = build_graph().invoke(
            loop_input, context=context(server, structured_output_method="json_mode")
        )
    assert out["critiques"][0]["rejected"] == []
    assert out["outcome"] == "passed"
