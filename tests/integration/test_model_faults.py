"""Model servers that misbehave: runs wait, retry or stop resumably; they never crash."""

import json
import time
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI
from langgraph.store.memory import InMemoryStore

from critic_loop.cli import main
from critic_loop.graphs.app import build_graph
from critic_loop.nodes.models.gateway import ModelUnreachable, Request, ask
from critic_loop.nodes.models.ledger import Ledger
from critic_loop.nodes.models.loading import grading_model
from critic_loop.nodes.models.provider_registry import (
    register_chat_model_provider,
    unregister_chat_model_provider,
)
from critic_loop.state.context import Context
from tests.support.dev_server import free_port
from tests.support.openai_server import (
    BrokenBody,
    Failure,
    Raw,
    RoleScript,
    ScriptedOpenAIServer,
    Text,
)
from tests.support.rubrics import RUBRIC, TASK
from tests.support.verdicts import graded

pytestmark = pytest.mark.integration

INPUT = {"task": TASK, "rubric": [c.model_dump() for c in RUBRIC]}
CUT_OFF = json.dumps(graded(RUBRIC))[:60]


def run(server: ScriptedOpenAIServer, **settings: object) -> dict:
    context = Context(
        worker_model="openai:w",
        critic_model="openai:c",
        base_url=server.base_url,
        memory=False,
        **settings,
    )
    return build_graph().invoke(INPUT, context=context)


@pytest.mark.parametrize(
    "bad_answer",
    [
        BrokenBody(b'{"id": "x", "choices": [{"message": {"role": "assist'),
        BrokenBody(b"<html>502 Bad Gateway</html>"),
        Raw(CUT_OFF),
        Raw(CUT_OFF, finish_reason="length"),
    ],
    ids=["body-cut-off", "not-json", "json-cut-off", "json-cut-at-token-limit"],
)
def test_one_malformed_critic_answer_is_retried_and_the_run_passes(bad_answer) -> None:
    script = RoleScript(worker=["draft"], critic=[bad_answer, graded(RUBRIC)])
    with ScriptedOpenAIServer(script) as server:
        out = run(server)
    assert out["outcome"] == "passed"
    [critique] = out["critiques"]
    assert critique["attempts"] == 2 and len(critique["rejected"]) == 1


def test_a_malformed_worker_reply_is_retried() -> None:
    script = RoleScript(
        worker=[BrokenBody(b'{"choices": [{"mess'), "draft"], critic=[graded(RUBRIC)]
    )
    with ScriptedOpenAIServer(script) as server:
        out = run(server)
    assert out["outcome"] == "passed" and out["final"] == "draft"


def test_a_rate_limit_is_waited_out_as_retry_after_says() -> None:
    limited = Failure(429, "slow down", code="rate_limit_exceeded", headers=(("Retry-After", "1"),))
    script = RoleScript(worker=[limited, "draft"], critic=[graded(RUBRIC)])
    with ScriptedOpenAIServer(script) as server:
        started = time.monotonic()
        out = run(server, max_retries=2)
        waited = time.monotonic() - started
    assert out["outcome"] == "passed"
    assert waited >= 1.0
    assert len(server.plain_requests()) == 2


class Hangs:
    """Never answers the worker (until told to), like a server that is stuck."""

    def __init__(self) -> None:
        import threading

        self.release = threading.Event()

    def __call__(self, request: dict) -> object:
        self.release.wait(30)
        return Text("late")


def test_a_server_that_never_answers_ends_at_the_timeout_resumably(
    tmp_path, monkeypatch, capsys
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    stuck = Hangs()
    arguments = [
        "run",
        "--task",
        TASK,
        "--criterion",
        "c=x y z",
        "--model",
        "openai:stub",
        "--thread-id",
        "t-hang",
        "--no-memory",
    ]
    with ScriptedOpenAIServer(stuck) as server:
        started = time.monotonic()
        status = main(
            [
                *arguments,
                "--base-url",
                server.base_url,
                "--request-timeout",
                "1",
                "--max-retries",
                "0",
            ]
        )
        elapsed = time.monotonic() - started
        stuck.release.set()
    err = capsys.readouterr().err
    assert status == 3
    assert elapsed < 15
    assert "Timeout" in err and "did not answer in time" in err
    assert f"worker model 'openai:stub' at {server.base_url}/chat/completions" in err
    assert "resume with: critic-loop run --thread-id t-hang" in err
    assert "Traceback" not in err
    script = RoleScript(worker=["draft"], critic=[graded([{"id": "c"}])])
    with ScriptedOpenAIServer(script) as server:
        again = main([*arguments, "--base-url", server.base_url])
    assert again == 0
    assert "resuming thread t-hang" in capsys.readouterr().out
    assert Path(tmp_path / ".critic_loop" / "critic_loop.sqlite").exists()


def test_an_unreachable_critic_is_named_by_role_and_url() -> None:
    closed = f"http://127.0.0.1:{free_port()}/v1"
    judge = Request(
        model=grading_model("openai:c", "critic", Context(base_url=closed, max_retries=0)),
        spec="openai:c",
        role="critic",
        server=closed,
        prompt=[HumanMessage("grade this")],
        read=lambda answer: answer,
        schema={"type": "object"},
        method="json_mode",
    )
    with pytest.raises(ModelUnreachable) as failed:
        ask(judge, Ledger())
    assert str(failed.value).startswith(
        f"the critic model 'openai:c' at {closed}/chat/completions cannot be reached ("
    )
    assert (failed.value.role, failed.value.url) == ("critic", f"{closed}/chat/completions")


def test_an_unreachable_distiller_is_named_in_memory_errors_and_the_run_stands() -> None:
    closed = f"http://127.0.0.1:{free_port()}/v1"

    def elsewhere(model: str, **settings: object) -> ChatOpenAI:
        return ChatOpenAI(model=model, base_url=closed, api_key="x", max_retries=0)

    register_chat_model_provider("elsewhere", elsewhere)
    # round 1 fails a criterion with a hint and round 2 fixes it: a lesson to distill
    hint = {"example": "Add one worked example with numbers."}
    script = RoleScript(
        worker=["draft", "draft with an example"],
        critic=[graded(RUBRIC, fails=hint), graded(RUBRIC)],
    )
    try:
        with ScriptedOpenAIServer(script) as server:
            graph = build_graph(store=InMemoryStore())
            context = Context(
                worker_model="openai:w",
                critic_model="openai:c",
                distill_model="elsewhere:d",
                structured_output_method="json_mode",
                base_url=server.base_url,
            )
            out = graph.invoke(INPUT, context=context)
    finally:
        unregister_chat_model_provider("elsewhere")
    assert out["outcome"] == "passed"
    [error] = out["memory_errors"]
    assert error.startswith(
        f"distill: ModelUnreachable: the distiller model 'elsewhere:d' at {closed}/chat/"
        "completions cannot be reached ("
    )
