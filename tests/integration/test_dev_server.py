"""The loop served by the real `langgraph dev`, driven with `langgraph_sdk`.

Model calls go over HTTP from the server process to a scripted OpenAI-compatible server.
"""

import pytest
from langgraph_sdk import get_client

from tests.conftest import RUBRIC, TASK
from tests.support.dev_server import DevServer
from tests.support.openai_server import RoleScript, ScriptedOpenAIServer
from tests.support.verdicts import graded

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def model_server():
    script = RoleScript()
    with ScriptedOpenAIServer(script) as server:
        yield server


@pytest.fixture(scope="module")
def dev_server(model_server):
    env = {"OPENAI_BASE_URL": model_server.base_url, "OPENAI_API_KEY": "unused-by-stub"}
    with DevServer(env=env) as server:
        yield server


async def test_run_streams_rounds_and_keeps_every_draft_and_critique(
    dev_server, model_server
) -> None:
    model_server.responder.worker[:] = ["draft one", "draft two"]
    model_server.responder.critic[:] = [
        graded(RUBRIC, {"example": "Add a phone-book example."}),
        graded(RUBRIC),
    ]
    client = get_client(url=dev_server.url)
    thread = await client.threads.create()
    custom, values = [], None
    async for part in client.runs.stream(
        thread["thread_id"],
        "critic_loop",
        input={"task": TASK, "rubric": [c.model_dump() for c in RUBRIC]},
        context={
            "worker_model": "openai:stub-worker",
            "critic_model": "openai:stub-critic",
            "max_iterations": 5,
        },
        stream_mode=["custom", "values"],
    ):
        if part.event == "custom":
            custom.append(part.data)
        elif part.event == "values":
            values = part.data
        elif part.event == "error":
            pytest.fail(f"run failed: {part.data}\n{dev_server.log()}")

    assert [(e["event"], e["round"]) for e in custom] == [
        ("draft", 1),
        ("verdict", 1),
        ("draft", 2),
        ("verdict", 2),
    ]
    assert custom[1]["criteria"][1] == {"id": "example", "passed": False}
    assert values is not None and values["outcome"] == "passed"
    assert values["final"] == "draft two"

    state = await client.threads.get_state(thread["thread_id"])
    assert [d["text"] for d in state["values"]["drafts"]] == ["draft one", "draft two"]
    assert len(state["values"]["critiques"]) == 2
    history = await client.threads.get_history(thread["thread_id"], limit=50)
    counts = sorted({len(h["values"].get("critiques", [])) for h in history})
    assert counts == [0, 1, 2]


async def test_server_reports_bad_input_clearly(dev_server) -> None:
    client = get_client(url=dev_server.url)
    thread = await client.threads.create()
    run = await client.runs.create(
        thread["thread_id"],
        "critic_loop",
        input={"task": "", "rubric": [c.model_dump() for c in RUBRIC]},
        context={"worker_model": "openai:stub-worker", "critic_model": "openai:stub-critic"},
    )
    await client.runs.join(thread["thread_id"], run["run_id"])
    finished = await client.runs.get(thread["thread_id"], run["run_id"])
    assert finished["status"] == "error"
    state = await client.threads.get_state(thread["thread_id"])
    assert "the task is empty" in str(state["tasks"][0]["error"])
