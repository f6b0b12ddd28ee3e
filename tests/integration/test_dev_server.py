"""The app served by the real `langgraph dev`, driven with `langgraph_sdk`.

Model calls go over HTTP from the server process to a scripted OpenAI-compatible server;
rules go to the server's own store, indexed with the offline embedder in langgraph.json.
"""

import time
from uuid import uuid4

import httpx
import pytest
from langgraph_sdk import get_client

from tests.support.dev_server import DevServer
from tests.support.openai_server import (
    Answer,
    RoleScript,
    ScriptedOpenAIServer,
    Structured,
    Text,
    is_structured_request,
)
from tests.support.rubrics import RUBRIC, TASK
from tests.support.verdicts import QUOTE, graded

pytestmark = pytest.mark.integration

RULE = "Always give one worked example with real keys and values."
ADD_RULE = {"action": "add", "rule_id": "", "text": RULE, "criteria": ["example"], "reason": "r"}
INPUT = {"task": TASK, "rubric": [c.model_dump() for c in RUBRIC]}


def context(scope: str) -> dict:
    return {
        "worker_model": "openai:stub-worker",
        "critic_model": "openai:stub-critic",
        "max_iterations": 5,
        "memory_scope": scope,
    }


@pytest.fixture(scope="module")
def model_server():
    with ScriptedOpenAIServer(RoleScript()) as server:
        yield server


@pytest.fixture(scope="module")
def dev_server(model_server):
    env = {
        "OPENAI_BASE_URL": model_server.base_url,
        "OPENAI_API_KEY": "unused-by-stub",
        "CRITIC_LOOP_PYTHON_CHECK_MODULES": "builtins:bool",  # MIXED's python check
    }
    with DevServer(env=env) as server:
        yield server


async def stream_run(client, thread_id: str, scope: str, server: DevServer, task: str = TASK):
    custom, values = [], None
    async for part in client.runs.stream(
        thread_id,
        "critic_loop",
        input={**INPUT, "task": task},
        context=context(scope),
        stream_mode=["custom", "values"],
    ):
        if part.event == "custom":
            custom.append(part.data)
        elif part.event == "values":
            values = part.data
        elif part.event == "error":
            pytest.fail(f"run failed: {part.data}\n{server.log()}")
    return custom, values


async def test_run_streams_rounds_keeps_history_and_learns(dev_server, model_server) -> None:
    scope = f"devserver-{uuid4().hex[:8]}"
    model_server.responder.worker[:] = ["draft one", "draft two"]
    model_server.responder.critic[:] = [
        graded(RUBRIC, {"example": "Give one worked example with real keys and values."}),
        graded(RUBRIC),
        {"operations": [ADD_RULE]},  # the distiller also answers in structured output
    ]
    client = get_client(url=dev_server.url)
    thread = await client.threads.create()
    custom, values = await stream_run(client, thread["thread_id"], scope, dev_server)

    assert custom[0] == {"event": "recall", "scope": scope, "rules": []}
    assert [(e["event"], e["round"]) for e in custom[1:]] == [
        ("draft", 1),
        ("verdict", 1),
        ("draft", 2),
        ("verdict", 2),
        ("finished", 2),
    ]
    assert custom[2]["criteria"][1] == {
        "id": "example",
        "passed": False,
        "skipped": False,
        "terminal": False,
        "severity": "must",
        "weight": 1.0,
    }
    # a served run returns the result; the thread's state keeps the history
    assert values == {
        "outcome": "passed",
        "outcome_reason": values["outcome_reason"],
        "exhausted_by": None,
        "final": "draft two",
        "final_round": 2,
        "open_items": [],
        "thread_id": thread["thread_id"],
    }
    state = await client.threads.get_state(thread["thread_id"])
    assert state["values"]["memory_errors"] == []
    assert [d["text"] for d in state["values"]["drafts"]] == ["draft one", "draft two"]
    assert len(state["values"]["critiques"]) == 2
    history = await client.threads.get_history(thread["thread_id"], limit=50)
    assert sorted({len(h["values"].get("critiques", [])) for h in history}) == [0, 1, 2]
    # Studio's time travel: each checkpoint read back by id holds the history up to it
    # (stored as each step's writes and replayed, not as whole lists in every checkpoint)
    for entry in history:
        checkpoint_id = entry["checkpoint"]["checkpoint_id"]
        at = await client.threads.get_state(thread["thread_id"], checkpoint_id=checkpoint_id)
        assert at["values"].get("drafts", []) == entry["values"].get("drafts", [])
        assert at["values"].get("critiques", []) == entry["values"].get("critiques", [])
    graded_once = [h for h in history if len(h["values"].get("critiques", [])) == 1]
    assert [d["text"] for d in graded_once[-1]["values"]["drafts"]] == ["draft one"]

    # the rule is in the server's store, indexed for semantic search
    found = await client.store.search_items(
        ("critic_loop", "rules", scope), query="worked example with keys", limit=5
    )
    [item] = found["items"]
    assert item["value"]["text"] == RULE
    assert item["score"] is not None
    assert item["value"]["provenance"]["thread_id"] == thread["thread_id"]

    assert item["value"]["topics"] == ["explain hash map"]

    # a second run in the same scope starts with the rule (it passes at once: no distiller)
    model_server.responder.worker[:] = ["draft"]
    model_server.responder.critic[:] = [graded(RUBRIC)]
    second = await client.threads.create()
    await stream_run(client, second["thread_id"], scope, dev_server)
    state = await client.threads.get_state(second["thread_id"])
    assert [rule["text"] for rule in state["values"]["recalled_rules"]] == [RULE]
    worker_requests = model_server.plain_requests()
    assert RULE in str(worker_requests[-1]["messages"])

    # an unrelated task in the same scope is given nothing
    model_server.responder.worker[:] = ["draft"]
    model_server.responder.critic[:] = [graded(RUBRIC)]
    third = await client.threads.create()
    await stream_run(
        client, third["thread_id"], scope, dev_server, task="Write a haiku about autumn rain."
    )
    state = await client.threads.get_state(third["thread_id"])
    assert state["values"]["recalled_rules"] == []
    assert RULE not in str(model_server.plain_requests()[-1]["messages"])


async def test_server_reports_bad_input_clearly(dev_server) -> None:
    client = get_client(url=dev_server.url)
    thread = await client.threads.create()
    run = await client.runs.create(
        thread["thread_id"], "critic_loop", input={**INPUT, "task": ""}, context=context("x")
    )
    await client.runs.join(thread["thread_id"], run["run_id"])
    finished = await client.runs.get(thread["thread_id"], run["run_id"])
    assert finished["status"] == "error"
    state = await client.threads.get_state(thread["thread_id"])
    assert "the task is empty" in str(state["tasks"][0]["error"])


async def test_distill_graph_is_served_on_its_own(dev_server, model_server) -> None:
    scope = f"ondemand-{uuid4().hex[:8]}"
    model_server.responder.critic[:] = [{"operations": [ADD_RULE]}]
    client = get_client(url=dev_server.url)
    past_run = {  # it failed "example", then passed after the hint
        **INPUT,
        "drafts": [{"round": 1, "text": "a draft"}, {"round": 2, "text": "a better draft"}],
        "critiques": [
            {"round": 1, "verdict": graded(RUBRIC, {"example": "Give a worked example."})},
            {"round": 2, "verdict": graded(RUBRIC)},
        ],
        "outcome": "passed",
        "source_thread_id": "some-old-thread",
    }
    result = await client.runs.wait(
        None,
        "distill",
        input=past_run,
        context={"critic_model": "openai:stub-critic", "memory_scope": scope},
    )
    assert result["memory_errors"] == []
    assert len(result["memory_report"]["added"]) == 1
    found = await client.store.search_items(("critic_loop", "rules", scope))
    assert found["items"][0]["value"]["provenance"]["thread_id"] == "some-old-thread"


async def test_studio_sees_the_context_fields(dev_server) -> None:
    client = get_client(url=dev_server.url)
    # the graph's own default assistant; ready-made presets may sit beside it
    made = await client.assistants.search(graph_id="critic_loop", metadata={"created_by": "system"})
    [assistant] = [a for a in made if "critic_loop_preset" not in a["metadata"]]
    schemas = await client.assistants.get_schemas(assistant["assistant_id"])
    fields = schemas["context_schema"]["properties"]
    assert {"worker_model", "critic_model", "max_iterations", "memory_scope"} <= set(fields)
    assert fields["max_iterations"]["maximum"] == 100
    assert "rubric" in schemas["input_schema"]["properties"]
    assert set(schemas["input_schema"]["properties"]) == {"task", "rubric"}  # nothing internal
    assert "drafts" not in schemas["output_schema"]["properties"]


def bare_properties(schema: object, where: str = "") -> list[str]:
    """List every property in `schema` (nested definitions too) that has no description."""
    found = []
    if isinstance(schema, dict):
        properties = schema.get("properties")
        if isinstance(properties, dict):
            found += [
                f"{where}.{name}" for name, p in properties.items() if not p.get("description")
            ]
        for key, value in schema.items():
            found += bare_properties(value, f"{where}/{key}")
    elif isinstance(schema, list):
        for position, value in enumerate(schema):
            found += bare_properties(value, f"{where}[{position}]")
    return found


async def test_studio_shows_a_description_for_every_field(dev_server) -> None:
    client = get_client(url=dev_server.url)
    # the graph's own default assistant; ready-made presets sit beside it
    made = await client.assistants.search(graph_id="critic_loop", metadata={"created_by": "system"})
    [assistant] = [a for a in made if "critic_loop_preset" not in a["metadata"]]
    schemas = await client.assistants.get_schemas(assistant["assistant_id"])
    for name in ("input_schema", "output_schema", "context_schema"):
        assert schemas[name]["properties"], name
        assert bare_properties(schemas[name], name) == []
    # the state's history fields are DeltaChannels, which LangGraph rebuilds from the bare
    # type (langgraph.graph.state._is_field_channel), so their descriptions are lost there
    history = {"drafts", "critiques", "feedback", "reviews", "memory_errors"}
    bare = {path.rsplit(".", 1)[-1] for path in bare_properties(schemas["state_schema"])}
    assert schemas["state_schema"]["properties"] and bare <= history, bare


async def test_the_default_assistant_sends_the_model_the_local_server_serves(
    dev_server, model_server
) -> None:
    """No model in the run's context: the server's OPENAI_BASE_URL model, not gpt-4.1."""
    criteria = [{"id": "c", "text": "It names a colour."}]
    model_server.responder.worker[:] = ["Blue."]
    # judged one criterion per call, as a served model is: this stands for the words copied
    model_server.responder.critic[:] = [{"quote": QUOTE, "verdict": "met", "hint": ""}]
    already = len(model_server.requests)
    client = get_client(url=dev_server.url)
    # the graph's own default assistant; ready-made presets sit beside it
    made = await client.assistants.search(graph_id="critic_loop", metadata={"created_by": "system"})
    [assistant] = [a for a in made if "critic_loop_preset" not in a["metadata"]]
    result = await client.runs.wait(
        None,
        assistant["assistant_id"],
        input={"task": "Name a colour.", "rubric": criteria},
        context={"memory": False},
    )
    assert result.get("outcome") == "passed", f"{result}\n{dev_server.log()}"
    sent = [request["model"] for request in model_server.requests[already:]]
    assert sent and set(sent) == {"scripted"}


async def test_mixed_rubric_round_trips_and_its_checks_run_under_the_server(
    dev_server, model_server
) -> None:
    from tests.support.rubrics import MIXED

    model_server.responder.worker[:] = ["# Usage\nlorem ipsum, 24 hours"]
    model_server.responder.critic[:] = []
    client = get_client(url=dev_server.url)
    thread = await client.threads.create()
    result = await client.runs.wait(
        thread["thread_id"],
        "critic_loop",
        input={"task": "Write a README section.", "rubric": MIXED},
        context={**context("mixed"), "max_iterations": 1, "memory": False, "candidates": 1},
    )
    assert "__error__" not in result, result
    assert result["outcome"] == "exhausted"
    result = (await client.threads.get_state(thread["thread_id"]))["values"]
    assert result["rubric"] == MIXED  # exactly as sent
    verdict = {r["criterion_id"]: r for r in result["critiques"][0]["verdict"]["results"]}
    assert verdict["tests"]["passed"] is True  # pytest ran in a subprocess under the server
    assert verdict["sections"]["passed"] is True
    assert verdict["facts"]["passed"] is True
    assert verdict["no_lorem"]["passed"] is False
    assert verdict["valid"]["passed"] is False
    assert verdict["tone"]["skipped"] is True  # the judge waits for the checks
    assert (verdict["tone"]["severity"], verdict["tone"]["weight"]) == ("should", 0.5)
    assert (verdict["length"]["severity"], verdict["length"]["weight"]) == ("must", 2)
    assert result["outcome"] == "exhausted"


async def test_a_person_reviews_through_the_sdk(dev_server, model_server) -> None:
    model_server.responder.worker[:] = ["first version", "second version"]
    model_server.responder.critic[:] = [graded(RUBRIC, {"tone": "Simpler."}), graded(RUBRIC)]
    client = get_client(url=dev_server.url)
    thread = await client.threads.create()
    settings = {**context("review"), "memory": False, "review": "every_round"}
    await client.runs.wait(thread["thread_id"], "critic_loop", input=INPUT, context=settings)
    state = await client.threads.get_state(thread["thread_id"])
    [request] = [i["value"] for task in state["tasks"] for i in task["interrupts"]]
    assert request["review"] == "round 1 was graded" and request["draft"] == "first version"
    feedback = {"action": "reject", "feedback": "Start with an everyday example."}
    await client.runs.wait(
        thread["thread_id"], "critic_loop", command={"resume": feedback}, context=settings
    )
    assert "Start with an everyday example." in str(model_server.plain_requests()[-1]["messages"])
    result = await client.runs.wait(
        thread["thread_id"],
        "critic_loop",
        command={"resume": {"action": "accept"}},
        context=settings,
    )
    assert result["outcome"] == "accepted" and result["final"] == "second version"


class Timed:
    """Answers like the module's script, but slowly, recording when each call ran."""

    def __init__(self, latency: float) -> None:
        self.latency = latency
        self.calls: list[tuple[float, float]] = []

    def __call__(self, request: dict) -> Answer:
        started = time.monotonic()
        time.sleep(self.latency)
        self.calls.append((started, time.monotonic()))
        if is_structured_request(request):
            return Structured(graded(RUBRIC))
        return Text("A draft.")


async def test_the_server_runs_one_run_of_a_thread_at_a_time(dev_server, model_server) -> None:
    """LangGraph server's run queue serializes a thread's runs: no lease is needed there.

    The second run starts once the first has ended, so the thread's run is over: it is
    refused as finished (had it started alongside, the thread would be unfinished).
    """
    timed, script = Timed(latency=0.5), model_server.responder
    model_server.responder = timed
    try:
        client = get_client(url=dev_server.url)
        thread = (await client.threads.create())["thread_id"]
        settings = {**context(f"queue-{uuid4().hex[:8]}"), "memory": False, "max_iterations": 1}
        runs = [
            await client.runs.create(thread, "critic_loop", input=INPUT, context=settings)
            for _ in range(2)
        ]
        with pytest.raises(httpx.HTTPStatusError) as refused:  # or refused, if asked to
            await client.runs.create(
                thread, "critic_loop", input=INPUT, context=settings, multitask_strategy="reject"
            )
        assert refused.value.response.status_code == 409
        for run in runs:
            await client.runs.join(thread, run["run_id"])
        finished = [await client.runs.get(thread, run["run_id"]) for run in runs]
        state = await client.threads.get_state(thread)
    finally:
        model_server.responder = script
    assert [run["status"] for run in finished] == ["success", "error"]
    assert "already finished (passed)" in str(state["tasks"][0]["error"])
    assert len(timed.calls) == 2  # run 1 drafts and grades; the refused run calls no model
