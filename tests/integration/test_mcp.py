"""MCP clients use critic-loop through `langgraph dev`'s /mcp, with the official `mcp` client.

Tools are described and typed, a call returns the outcome and the final draft as JSON, a
bad input returns its message, and two assistants with one name stay two tools.
"""

import json

import pytest
from langgraph_sdk import get_client
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.support.dev_server import DevServer
from tests.support.openai_server import RoleScript, ScriptedOpenAIServer
from tests.support.rubrics import RUBRIC, TASK
from tests.support.verdicts import graded

pytestmark = pytest.mark.integration

CONTEXT = {"worker_model": "openai:stub", "critic_model": "openai:stub", "memory": False}


@pytest.fixture(scope="module")
def model_server():
    with ScriptedOpenAIServer(RoleScript()) as server:
        yield server


@pytest.fixture(scope="module")
def dev_server(model_server):
    env = {"OPENAI_BASE_URL": model_server.base_url, "OPENAI_API_KEY": "unused"}
    with DevServer(env=env) as server:
        yield server


async def with_session(dev_server, use):
    async with (
        streamable_http_client(f"{dev_server.url}/mcp") as streams,
        ClientSession(streams[0], streams[1]) as session,
    ):
        await session.initialize()
        return await use(session)


async def test_tools_are_described_and_typed(dev_server) -> None:
    listed = await with_session(dev_server, lambda session: session.list_tools())
    tools = {tool.name: tool for tool in listed.tools}
    loop = tools["critic_loop"]
    assert "a critic grades each draft against a rubric the worker never sees" in loop.description
    schema = loop.input_schema if hasattr(loop, "input_schema") else loop.inputSchema
    assert {"task", "rubric", "context"} <= set(schema["properties"])
    assert "max_iterations" in schema["properties"]["context"]["properties"]
    assert "distill" in tools


async def test_a_call_returns_the_outcome_and_final_draft_as_json(dev_server, model_server) -> None:
    model_server.responder.worker[:] = ["A hash map finds values by key."]
    model_server.responder.critic[:] = [graded(RUBRIC)]
    arguments = {"task": TASK, "rubric": [c.model_dump() for c in RUBRIC], "context": CONTEXT}
    result = await with_session(
        dev_server, lambda session: session.call_tool("critic_loop", arguments)
    )
    assert not result.is_error if hasattr(result, "is_error") else not result.isError
    output = json.loads(result.content[0].text)
    assert output["outcome"] == "passed"
    assert output["final"] == "A hash map finds values by key."
    assert set(output) == {
        "outcome",
        "outcome_reason",
        "exhausted_by",
        "final",
        "final_round",
        "open_items",
        "thread_id",
    }


async def test_a_bad_input_returns_its_message(dev_server, model_server) -> None:
    arguments = {"task": "   ", "rubric": [c.model_dump() for c in RUBRIC], "context": CONTEXT}
    result = await with_session(
        dev_server, lambda session: session.call_tool("critic_loop", arguments)
    )
    assert result.is_error if hasattr(result, "is_error") else result.isError
    assert "the task is empty" in result.content[0].text


async def test_two_assistants_with_one_name_are_two_tools(dev_server) -> None:
    client = get_client(url=dev_server.url)
    for preset in ("fast", "thorough"):
        await client.assistants.create(
            "critic_loop", name="critic-loop copy", context=CONTEXT, metadata={"preset": preset}
        )
    listed = await with_session(dev_server, lambda session: session.list_tools())
    copies = [tool.name for tool in listed.tools if tool.name.startswith("critic-loop_copy")]
    assert len(copies) == 2 and len(set(copies)) == 2


async def test_the_server_installs_the_preset_its_environment_can_run(dev_server) -> None:
    """With only a local model server configured, the `local` preset appears, and only it."""
    import asyncio

    client = get_client(url=dev_server.url)
    presets: list = []
    for _ in range(60):
        found = await client.assistants.search(graph_id="critic_loop", limit=100)
        presets = {
            a["metadata"]["critic_loop_preset"]: a
            for a in found
            if a["metadata"].get("critic_loop_preset")
        }
        if "local" in presets:
            break
        await asyncio.sleep(0.5)
    assert "local" in presets, dev_server.log()
    assert "openai" not in presets  # its key is a dummy for the local server
    local = presets["local"]
    assert local["name"] == "critic-loop (local model)"
    assert local["context"]["worker_model"] == "openai:scripted"  # what the server lists
    assert local["context"]["judge_granularity"] == "criterion"
    assert "base_url" not in local["context"]  # where calls go stays the operator's setting
    listed = await with_session(dev_server, lambda session: session.list_tools())
    tool = {t.name: t for t in listed.tools}["critic-loop_local_model"]
    assert "No API key needed" in tool.description


def test_the_assistants_command_installs_presets_once(dev_server, run_cli) -> None:
    import asyncio

    env = {"GOOGLE_API_KEY": "not-used-until-a-run"}
    first = run_cli("assistants", "--url", dev_server.url, "--presets", "gemini", env=env)
    again = run_cli("assistants", "--url", dev_server.url, "--presets", "gemini", env=env)
    assert first.returncode == again.returncode == 0, first.stderr
    assert "critic-loop (Gemini)  (worker google_genai:gemini-2.5-flash" in first.stdout
    assert first.stdout == again.stdout

    async def gemini_presets() -> list:
        found = await get_client(url=dev_server.url).assistants.search(
            metadata={"critic_loop_preset": "gemini"}, limit=10
        )
        return list(found)

    assert len(asyncio.run(gemini_presets())) == 1
    typo = run_cli("assistants", "--url", dev_server.url, "--presets", "gemnii")
    assert typo.returncode == 2 and "unknown assistant preset(s) gemnii" in typo.stderr
