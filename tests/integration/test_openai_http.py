"""The loop through langchain-openai over real HTTP, against a scripted server on 127.0.0.1."""

import json

import pytest

from critic_loop.graphs.app import build_graph
from critic_loop.nodes.verifiers.judge_answers import critic_output_schema
from critic_loop.state.context import Context
from tests.support.openai_server import FailFirstCritic, RoleScript, ScriptedOpenAIServer, Text
from tests.support.rubrics import RUBRIC
from tests.support.verdicts import graded

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def no_api_key(monkeypatch) -> None:
    """A local OpenAI-compatible server needs no key; prove it by having none."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def http_context(server: ScriptedOpenAIServer, **overrides) -> Context:
    return Context(
        worker_model="openai:stub-worker",
        critic_model="openai:stub-critic",
        base_url=server.base_url,
        **overrides,
    )


def two_round_script() -> RoleScript:
    return RoleScript(
        worker=["A hash map stores values under keys.", "A hash map maps keys to values. ..."],
        critic=[graded(RUBRIC, {"example": "Add a phone-book example."}), graded(RUBRIC)],
    )


def test_loop_over_http_with_json_schema_structured_output(loop_input) -> None:
    with ScriptedOpenAIServer(two_round_script()) as server:
        out = build_graph().invoke(loop_input, context=http_context(server))
    assert out["outcome"] == "passed"
    assert out["final"] == "A hash map maps keys to values. ..."
    assert len(out["drafts"]) == len(out["critiques"]) == 2

    critic_requests = server.structured_requests()
    assert [r["model"] for r in critic_requests] == ["stub-critic"] * 2
    response_format = critic_requests[0]["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["strict"] is True
    assert response_format["json_schema"]["name"] == "verdict"
    sent_schema = response_format["json_schema"]["schema"]
    assert sent_schema["required"] == critic_output_schema()["required"]
    critic_text = json.dumps(critic_requests[0]["messages"])
    assert "A hash map stores values under keys." in critic_text
    assert all(c.text in critic_text for c in RUBRIC)

    worker_requests = server.plain_requests()
    assert [r["model"] for r in worker_requests] == ["stub-worker"] * 2
    assert "Add a phone-book example." in json.dumps(worker_requests[1]["messages"])
    assert all(c.text not in json.dumps(worker_requests) for c in RUBRIC)


def test_token_usage_comes_from_the_server_report(loop_input) -> None:
    with ScriptedOpenAIServer(two_round_script()) as server:
        out = build_graph().invoke(loop_input, context=http_context(server))
    usage = out["drafts"][0]["usage"]
    assert usage["estimated"] is False
    assert usage["input_tokens"] > 0 and usage["output_tokens"] > 0
    assert out["critiques"][0]["usage"]["estimated"] is False


@pytest.mark.parametrize(
    ("method", "check"),
    [
        (
            "function_calling",
            lambda r: r["tools"][0]["function"]["name"] == "verdict" and "response_format" not in r,
        ),
        ("json_mode", lambda r: r["response_format"] == {"type": "json_object"}),
    ],
)
def test_other_structured_output_methods(loop_input, method, check) -> None:
    with ScriptedOpenAIServer(two_round_script()) as server:
        context = http_context(server, structured_output_method=method)
        out = build_graph().invoke(loop_input, context=context)
    assert out["outcome"] == "passed"
    assert all(check(request) for request in server.structured_requests())


def test_malformed_verdicts_over_http_end_as_verifier_error(loop_input) -> None:
    script = RoleScript(
        worker=["draft"],
        critic=[Text("I think it passes."), {"results": [], "feedback": "", "passed": True}],
    )
    with ScriptedOpenAIServer(script) as server:
        out = build_graph().invoke(loop_input, context=http_context(server, critic_attempts=2))
    assert out["outcome"] == "verifier_error"
    assert len(server.structured_requests()) == 2
    rejected = out["critiques"][0]["rejected"]
    assert "not valid JSON for the schema" in rejected[0]
    assert "criteria not graded" in rejected[1]


async def test_streaming_async_run_over_http(loop_input) -> None:
    """Streaming message events make langchain-openai stream: SSE must work too."""
    with ScriptedOpenAIServer(two_round_script()) as server:
        graph = build_graph()
        tokens = []
        final = None
        async for mode, chunk in graph.astream(
            loop_input, context=http_context(server), stream_mode=["messages", "values"]
        ):
            if mode == "messages":
                tokens.append(chunk[0])
            else:
                final = chunk
    assert any(request.get("stream") for request in server.requests)
    assert final is not None and final["outcome"] == "passed"
    assert any("hash map" in (token.text or "") for token in tokens)


def test_from_python_a_local_server_alone_picks_the_model_it_serves(monkeypatch, tmp_path) -> None:
    """`run_loop` with only OPENAI_BASE_URL set asks the server for its model, as the CLI does."""
    from critic_loop.nodes.loop.admission import admit_run
    from critic_loop.run import run_loop

    with ScriptedOpenAIServer(FailFirstCritic(failures=1)) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "local")
        state = run_loop(
            "Explain hash maps.",
            RUBRIC,
            context={"memory": False},
            database=tmp_path / "runs.sqlite",
        )
        assert state.outcome == "passed"
        assert state.rounds == 2
        assert {request["model"] for request in server.requests} == {"scripted"}
        chosen = admit_run(None, {"worker_model": "openai:mine", "memory": False}).context
    assert (chosen.worker_model, chosen.critic_model) == ("openai:mine", Context().critic_model)
