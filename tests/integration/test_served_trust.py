"""Attacks from run input, as a client of the real `langgraph dev` sends them.

On the server the task, the rubric and the context come from clients. Each attack here is
refused with a clear error before any model call, or contained; nothing it names runs.
"""

import json
import re
from pathlib import Path
from uuid import uuid4

import httpx
import pytest
from langgraph_sdk import get_client

from critic_loop.state.budget import spent_on
from critic_loop.state.operator_settings import CONTEXT_CEILINGS, Ceilings, variable
from critic_loop.state.records import Critique, Draft
from critic_loop.thread_settings import stored_settings
from tests.integration.test_sandbox_memory import HOLDS_THREE, THREE_AT_ONCE
from tests.support.contexts import context_maxima
from tests.support.dev_server import DevServer
from tests.support.openai_server import (
    NeverQuiteThere,
    RoleScript,
    ScriptedOpenAIServer,
    is_structured_request,
)
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


OPERATOR_CEILINGS = {"call_budget": 40, "token_budget": 200_000}
"""Ceilings this deployment's operator sets (CRITIC_LOOP_CEILING_*); the rest are defaults."""


@pytest.fixture(scope="module")
def dev_server(model_server):
    env = {"OPENAI_BASE_URL": model_server.base_url, "OPENAI_API_KEY": "sk-operator-secret-123"}
    env.update({variable(name): str(value) for name, value in OPERATOR_CEILINGS.items()})
    with DevServer(env=env) as server:
        yield server


async def run_in_a_thread(client, run_input: dict, **settings: object) -> dict:
    """Run to the end in a new thread; return the thread's whole state."""
    thread = await client.threads.create()
    await client.runs.wait(
        thread["thread_id"], "critic_loop", input=run_input, context={**CONTEXT, **settings}
    )
    return (await client.threads.get_state(thread["thread_id"]))["values"]


async def error_of(run) -> str:
    """The refusal of a run: a 4xx when it is created (its context), or the run's own error."""
    try:
        result = await run
    except httpx.HTTPStatusError as refused:
        assert 400 <= refused.response.status_code < 500, refused.response.text
        return str(refused.response.json()["detail"])
    assert "__error__" in result, result
    return str(result["__error__"]["message"])


async def refusal(dev_server, model_server, *, input=None, context=None) -> str:
    """Run and return the error message; the model server must not have been called."""
    before = len(model_server.requests)
    client = get_client(url=dev_server.url)
    message = await error_of(
        client.runs.wait(
            None,
            "critic_loop",
            input=input or {"task": TASK, "rubric": [c.model_dump() for c in RUBRIC]},
            context={**CONTEXT, **(context or {})},
            raise_error=False,
        )
    )
    assert len(model_server.requests) == before, "a model was called before the refusal"
    return message


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
    # a resume with new settings is checked again (refused when it is created)
    resumed = client.runs.wait(
        thread["thread_id"],
        "critic_loop",
        input=None,
        context={**CONTEXT, "base_url": attacker_server.base_url},
        raise_error=False,
    )
    assert "is not allowed" in await error_of(resumed)
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


async def test_a_served_runs_checkpoints_keep_its_settings_as_a_clients(dev_server, model_server):
    """What `critic-loop run --thread-id` reads back from a thread the server ran."""
    model_server.responder.worker[:] = ["draft"]
    model_server.responder.critic[:] = [graded(RUBRIC)]
    client = get_client(url=dev_server.url)
    thread = await client.threads.create()
    await client.runs.wait(
        thread["thread_id"],
        "critic_loop",
        input={"task": TASK, "rubric": [c.model_dump() for c in RUBRIC]},
        context={**CONTEXT, "max_iterations": 2},
    )
    [latest, *_] = await client.threads.get_history(thread["thread_id"], limit=1)
    kept = stored_settings(latest["metadata"])
    assert kept is not None and kept.by_client is True
    assert kept.values["worker_model"] == "openai:stub" and kept.values["max_iterations"] == 2


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
    ("rubric", "refused_by", "ours"),
    [
        (nested_list(10_000), 422, False),  # the server's JSON parser stops at 1,024 levels
        (f'[{{"id": "s", "kind": "json_schema", "schema": {nested_schema(1_000)}}}]', 400, False),
        (nested_list(200), 422, True),  # the server takes it: our front door refuses it
        (f'[{{"id": "s", "kind": "json_schema", "schema": {nested_schema(100)}}}]', 422, True),
    ],
    ids=["rubric-10000", "schema-1000", "rubric-200", "schema-100"],
)
async def test_deeply_nested_input_is_refused_in_one_line(
    dev_server, model_server, rubric, refused_by, ours
):
    before = len(model_server.requests)
    response = await raw_run(dev_server, rubric)
    message = one_line_error(response)
    assert response.status_code == refused_by, response.text[:500]
    if ours:  # no run was made, and the refusal says what to change
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


async def test_a_request_at_every_context_maximum_is_refused_naming_each_ceiling(
    dev_server, model_server
):
    maxima = context_maxima()
    assert set(maxima) == set(CONTEXT_CEILINGS)
    client = get_client(url=dev_server.url)
    thread = await client.threads.create()
    with pytest.raises(httpx.HTTPStatusError) as refused:  # when the run is created
        await client.runs.create(thread["thread_id"], "critic_loop", input={}, context=maxima)
    assert refused.value.response.status_code == 403
    assert await client.runs.list(thread["thread_id"]) == []
    with pytest.raises(httpx.HTTPStatusError) as refused:  # an assistant is held to them too
        await client.assistants.create("critic_loop", context=maxima)
    assert refused.value.response.status_code == 403
    assert "call_budget=1000000" in refused.value.response.json()["detail"]
    message = await refusal(dev_server, model_server, context=maxima)
    assert message.startswith("the run's context asks for more than this server allows: ")
    for name in CONTEXT_CEILINGS:
        assert f"{name}=" in message and variable(name) in message, name
    assert "call_budget=1000000 (the most is 40, CRITIC_LOOP_CEILING_CALL_BUDGET)" in message


async def test_a_request_at_the_ceilings_makes_at_most_the_ceilings_of_calls_and_tokens(
    dev_server, model_server
):
    """The most a client can ask for: 4 candidates, 3 models x 5 samples per criterion, ..."""
    ceilings = Ceilings(**OPERATOR_CEILINGS)
    asked = {name: getattr(ceilings, name) for name in CONTEXT_CEILINGS}
    asked["critic_models"] = ["openai:stub"] * ceilings.critic_models
    asked |= {"judge_granularity": "criterion", "critic_temperature": 0.7}
    rubric = [
        {"id": "tone", "text": "The answer is written for a beginner audience."},
        {"id": "example", "text": "The answer includes one concrete worked example."},
    ]
    scripted = model_server.responder
    model_server.responder = NeverQuiteThere()
    before = len(model_server.requests)
    try:
        client = get_client(url=dev_server.url)
        state = await run_in_a_thread(client, {"task": TASK, "rubric": rubric}, **asked)
    finally:
        model_server.responder = scripted
    requests = model_server.requests[before:]
    tokens = model_server.reported_tokens()[before:]
    assert (state["outcome"], state["exhausted_by"]) == ("exhausted", "call_budget")
    assert len(requests) == ceilings.call_budget
    assert sum(tokens) <= ceilings.token_budget
    drafts = [Draft.model_validate(d) for d in state["drafts"]]
    critiques = [Critique.model_validate(c) for c in state["critiques"]]
    assert spent_on(drafts, critiques).calls == len(requests)
    for request in requests:
        most = ceilings.critic_max_tokens if is_structured_request(request) else None
        assert request["max_tokens"] <= (most or ceilings.worker_max_tokens)
    assert state["final"] in {draft.text for draft in drafts}


LIMITS_SEEN = """
import resource

def test_limits():
    memory = resource.getrlimit(resource.RLIMIT_AS)[0] // 2**20
    processes = resource.getrlimit(resource.RLIMIT_NPROC)[0]
    assert False, f"limits seen: memory {memory} MiB, processes {processes}."
"""


async def test_sandbox_settings_above_the_ceilings_are_refused_and_defaults_capped(
    dev_server, model_server
):
    asked = {
        "id": "t",
        "kind": "tests",
        "tests": LIMITS_SEEN,
        "memory_mb": 65536,
        "max_processes": 4096,
        "work_dir_mb": 65536,
        "timeout_seconds": 600,
    }
    message = await refusal(dev_server, model_server, input={"task": TASK, "rubric": [asked]})
    assert message.startswith("criterion 't' asks for more than this server allows: ")
    for setting, ceiling in (
        ("memory_mb=65536", "CRITIC_LOOP_CEILING_TEST_MEMORY_MB"),
        ("max_processes=4096", "CRITIC_LOOP_CEILING_TEST_MAX_PROCESSES"),
        ("work_dir_mb=65536", "CRITIC_LOOP_CEILING_TEST_WORK_DIR_MB"),
        ("timeout_seconds=600", "CRITIC_LOOP_CEILING_TEST_TIMEOUT_SECONDS"),
    ):
        assert setting in message and ceiling in message
    model_server.responder.worker[:] = ["```python\nx = 1\n```"]
    client = get_client(url=dev_server.url)
    rubric = [{"id": "t", "kind": "tests", "tests": LIMITS_SEEN}]  # the default: 1024 MiB
    state = await run_in_a_thread(client, {"task": TASK, "rubric": rubric}, max_iterations=1)
    [verdict] = state["critiques"][0]["verdict"]["results"]
    seen = re.search(r"limits seen: memory (\d+) MiB, processes (\d+)\.", verdict["evidence"])
    assert seen, verdict["evidence"]
    ceilings = Ceilings()
    # the default 1024 MiB and 64 processes, lowered to the ceilings (and, within them, to
    # the sandbox's memory total)
    assert int(seen.group(1)) <= ceilings.test_memory_mb
    assert int(seen.group(2)) == ceilings.test_max_processes


async def test_three_processes_of_700_mb_cannot_be_held_at_once_under_the_default_ceilings(
    dev_server, model_server
):
    """The most a client may ask for (the ceilings) does not hold three 700 MB processes."""
    ceilings = Ceilings()
    model_server.responder.worker[:] = [HOLDS_THREE]
    most = {"memory_mb": ceilings.test_memory_mb, "max_processes": ceilings.test_max_processes}
    rubric = [{"id": "memory", "kind": "tests", "tests": THREE_AT_ONCE, **most}]
    client = get_client(url=dev_server.url)
    state = await run_in_a_thread(client, {"task": TASK, "rubric": rubric}, max_iterations=1)
    [verdict] = state["critiques"][0]["verdict"]["results"]
    assert not verdict["passed"]
    assert "test_three_processes_hold_700_mb_each_at_once" in verdict["evidence"]
    # the drafted code ran and said which held: not all three
    held = re.search(r"assert \[(\w+), (\w+), (\w+)\] == \[True, True, True\]", verdict["evidence"])
    assert held and "False" in held.groups(), verdict["evidence"]
