"""Attacks from run input, as a client of the real `langgraph dev` sends them.

On the server the task, the rubric and the context come from clients. Each attack here is
refused with a clear error before any model call, or contained; nothing it names runs.
"""

import json
from pathlib import Path
from uuid import uuid4

import httpx
import pytest
from langgraph_sdk import get_client

from tests.support.dev_server import DevServer
from tests.support.openai_server import RoleScript, ScriptedOpenAIServer
from tests.support.rubrics import RUBRIC, TASK
from tests.support.verdicts import graded

pytestmark = pytest.mark.integration

CONTEXT = {
    "worker_model": "openai:stub",
    "critic_model": "openai:stub",
    "memory": False,
    "candidates": 1,  # the stub's script holds one draft a round
}
DANGEROUS = [
    "os:system",
    "subprocess:call",
    "builtins:eval",
    "builtins:exec",
    "os:remove",
    "sys:exit",
]


@pytest.fixture(scope="module")
def model_server():
    with ScriptedOpenAIServer(RoleScript()) as server:
        yield server


@pytest.fixture(scope="module")
def attacker_server():
    """A model server the client would like the operator's key sent to."""
    with ScriptedOpenAIServer(RoleScript()) as server:
        yield server


@pytest.fixture(scope="module")
def dev_server(model_server):
    env = {"OPENAI_BASE_URL": model_server.base_url, "OPENAI_API_KEY": "sk-operator-secret-123"}
    with DevServer(env=env) as server:
        yield server


async def run_in_a_thread(client, run_input: dict, **settings: object) -> dict:
    """Run to the end in a new thread; return the thread's whole state."""
    thread = await client.threads.create()
    await client.runs.wait(
        thread["thread_id"], "critic_loop", input=run_input, context={**CONTEXT, **settings}
    )
    return (await client.threads.get_state(thread["thread_id"]))["values"]


async def refusal(dev_server, model_server, *, input=None, context=None) -> str:
    """Run and return the error message; the model server must not have been called."""
    before = len(model_server.requests)
    client = get_client(url=dev_server.url)
    result = await client.runs.wait(
        None,
        "critic_loop",
        input=input or {"task": TASK, "rubric": [c.model_dump() for c in RUBRIC]},
        context={**CONTEXT, **(context or {})},
        raise_error=False,
    )
    assert "__error__" in result, result
    assert len(model_server.requests) == before, "a model was called before the refusal"
    return str(result["__error__"]["message"])


async def test_python_checks_cannot_name_arbitrary_functions(dev_server, model_server, tmp_path):
    marker = tmp_path / "marker"
    for reference in DANGEROUS:
        rubric = [{"id": "c", "kind": "python", "function": reference}]
        message = await refusal(
            dev_server, model_server, input={"task": f"touch {marker}", "rubric": rubric}
        )
        assert f"python check '{reference}' is not allowed" in message
    assert not marker.exists()


async def test_a_client_cannot_send_the_operators_key_elsewhere(
    dev_server, model_server, attacker_server
):
    message = await refusal(
        dev_server, model_server, context={"base_url": attacker_server.base_url}
    )
    assert "is not allowed: a client may use only the operator's server" in message
    assert attacker_server.requests == []


@pytest.mark.parametrize("path", ["/etc/shadow", "/proc/self/environ"])
async def test_a_client_cannot_read_files(dev_server, model_server, path):
    rubric = [{"id": "t", "kind": "tests", "tests_file": path}]
    message = await refusal(dev_server, model_server, input={"task": TASK, "rubric": rubric})
    assert f"tests_file {path!r} is not allowed" in message


async def test_a_client_cannot_choose_prompt_templates(dev_server, model_server, tmp_path):
    marker = tmp_path / "marker"
    (tmp_path / "worker_task.jinja").write_text(
        "{{ cycler.__init__.__globals__.os.system('touch " + str(marker) + "') }}"
    )
    message = await refusal(dev_server, model_server, context={"prompts_dir": str(tmp_path)})
    assert "prompts_dir" in message and "is not allowed" in message
    assert not marker.exists()


async def test_a_resumed_run_and_an_edited_rubric_are_held_to_the_policy(
    dev_server, model_server, attacker_server
):
    model_server.responder.worker[:] = ["draft"]
    client = get_client(url=dev_server.url)
    thread = await client.threads.create()
    rubric = [c.model_dump() for c in RUBRIC]
    paused = await client.runs.wait(
        thread["thread_id"],
        "critic_loop",
        input={"task": TASK, "rubric": rubric},
        context=CONTEXT,
        interrupt_before=["critique"],
    )
    assert paused["drafts"][0]["text"] == "draft"
    # a resume with new settings is checked again
    resumed = await client.runs.wait(
        thread["thread_id"],
        "critic_loop",
        input=None,
        context={**CONTEXT, "base_url": attacker_server.base_url},
        raise_error=False,
    )
    assert "is not allowed" in str(resumed["__error__"]["message"])
    assert attacker_server.requests == []
    # a rubric written into the thread's state is checked where it is used
    await client.threads.update_state(
        thread["thread_id"],
        {"rubric": [{"id": "c", "kind": "python", "function": "os:system"}]},
        as_node="generate",
    )
    edited = await client.runs.wait(
        thread["thread_id"], "critic_loop", input=None, context=CONTEXT, raise_error=False
    )
    assert "python check 'os:system' is not allowed" in str(edited["__error__"]["message"])


async def test_an_allowed_run_still_works(dev_server, model_server):
    model_server.responder.worker[:] = ["draft"]
    model_server.responder.critic[:] = [graded(RUBRIC)]
    client = get_client(url=dev_server.url)
    result = await client.runs.wait(
        None,
        "critic_loop",
        input={"task": TASK, "rubric": [c.model_dump() for c in RUBRIC]},
        context={**CONTEXT, "memory_scope": f"ok-{uuid4().hex[:6]}"},
    )
    assert result["outcome"] == "passed"
    assert Path(".").exists()


async def test_oversized_input_is_refused_at_once(dev_server, model_server):
    many = [{"id": f"c{i}", "text": "It is fine."} for i in range(10_000)]
    message = await refusal(dev_server, model_server, input={"task": TASK, "rubric": many})
    assert "the rubric has 10000 criteria; the most allowed is 100" in message
    rubric = [c.model_dump() for c in RUBRIC]
    message = await refusal(
        dev_server, model_server, input={"task": "x" * 10_000_000, "rubric": rubric}
    )
    assert "the task is 10000000 characters; the most allowed is 100000" in message


async def test_a_backtracking_pattern_fails_its_criterion_instead_of_hanging(
    dev_server, model_server
):
    model_server.responder.worker[:] = ["a" * 40 + "!"]
    client = get_client(url=dev_server.url)
    rubric = [{"id": "shape", "kind": "regex", "pattern": "(a|a)+$"}]
    result = await run_in_a_thread(client, {"task": TASK, "rubric": rubric}, max_iterations=1)
    [verdict] = result["critiques"][0]["verdict"]["results"]
    assert verdict["passed"] is False
    assert "took longer than 1 s" in verdict["evidence"]
    assert result["outcome"] == "exhausted"


async def test_a_clients_test_code_is_contained(dev_server, model_server, tmp_path):
    """Inline tests are client code: they run in the sandbox like drafted code."""
    marker = tmp_path / "marker"
    marker.parent.chmod(0o777)  # even a directory anyone may write to stays out of reach
    hostile = f'''
import os, pathlib

def test_reach_out():
    found = []
    for path in ("/etc/shadow", "{Path.home()}/.bashrc", "/proc/1/environ"):
        try:
            found.append(pathlib.Path(path).read_text()[:50])
        except OSError as error:
            found.append(type(error).__name__)
    try:
        pathlib.Path("{marker}").write_text("escaped")
    except OSError as error:
        found.append(type(error).__name__)
    print(sorted(os.environ.items()), found)
    assert False, str(found) + str(dict(os.environ))
'''
    model_server.responder.worker[:] = ["```python\nx = 1\n```"]
    client = get_client(url=dev_server.url)
    rubric = [{"id": "t", "kind": "tests", "tests": hostile}]
    result = await run_in_a_thread(client, {"task": TASK, "rubric": rubric}, max_iterations=1)
    [verdict] = result["critiques"][0]["verdict"]["results"]
    assert verdict["passed"] is False
    assert "1 of 1 tests failed: test_reach_out" in verdict["evidence"]  # it did run
    assert not marker.exists()
    everything = str(result)
    assert "sk-operator-secret-123" not in everything
    assert "sk-operator-secret-123"[::-1] not in everything
    assert "root:" not in everything  # /etc/shadow's first line


def nested_list(levels: int) -> str:
    return "[" * levels + "]" * levels


def nested_schema(levels: int) -> str:
    return '{"not": ' * levels + "{}" + "}" * levels


async def raw_run(dev_server, rubric_json: str) -> httpx.Response:
    """Post a run whose rubric is raw JSON text (the SDK's encoder refuses deep values)."""
    body = (
        f'{{"assistant_id": "critic_loop", "input": {{"task": {json.dumps(TASK)}, '
        f'"rubric": {rubric_json}}}, "context": {json.dumps(CONTEXT)}}}'
    )
    async with httpx.AsyncClient(base_url=dev_server.url, timeout=60) as http:
        return await http.post(
            "/runs/wait", content=body, headers={"Content-Type": "application/json"}
        )


def one_line_error(response: httpx.Response) -> str:
    """The error of a refused request, or of a run that failed: one line either way."""
    body = response.json()
    message = body["__error__"]["message"] if "__error__" in body else body["detail"]
    assert "\n" not in message and "RecursionError" not in message, message
    return str(message)


@pytest.mark.parametrize(
    ("rubric", "refused_by"),
    [
        (nested_list(10_000), 422),  # the server's JSON parser stops at 1,024 levels
        (f'[{{"id": "s", "kind": "json_schema", "schema": {nested_schema(1_000)}}}]', 400),
        (nested_list(200), 200),  # the server takes it: the run fails with our one line
        (f'[{{"id": "s", "kind": "json_schema", "schema": {nested_schema(100)}}}]', 200),
    ],
    ids=["rubric-10000", "schema-1000", "rubric-200", "schema-100"],
)
async def test_deeply_nested_input_is_refused_in_one_line(
    dev_server, model_server, rubric, refused_by
):
    before = len(model_server.requests)
    response = await raw_run(dev_server, rubric)
    message = one_line_error(response)
    assert response.status_code == refused_by, response.text[:500]
    if refused_by == 200:  # a run was made, and its error says what to change
        assert message == "input: nested more than 64 levels deep (CRITIC_LOOP_MAX_NESTING_DEPTH)"
    assert len(model_server.requests) == before


@pytest.mark.parametrize(
    "rubric",
    [
        json.loads(nested_list(200)),
        [{"id": "s", "kind": "json_schema", "schema": json.loads(nested_schema(100))}],
    ],
    ids=["rubric-200", "schema-100"],
)
async def test_deeply_nested_input_is_a_served_runs_one_line_error(
    dev_server, model_server, rubric
):
    """Through langgraph_sdk (its encoder stops at 254 levels), the run's error is one line."""
    message = await refusal(dev_server, model_server, input={"task": TASK, "rubric": rubric})
    assert message == "input: nested more than 64 levels deep (CRITIC_LOOP_MAX_NESTING_DEPTH)"
