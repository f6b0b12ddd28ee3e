"""Every model call goes through one gateway, a few of critic-loop's own frames below a node."""

import asyncio
import json
import threading
import traceback
from pathlib import Path
from typing import Any

import pytest
from blockbuster import BlockBuster
from langchain_core.messages import HumanMessage
from langchain_core.runnables import RunnableLambda
from pydantic import BaseModel, Field

from critic_loop.graphs.app import build_graph
from critic_loop.nodes.models.gateway import Request, aask, ask, parse_answer
from critic_loop.nodes.models.ledger import Ledger
from critic_loop.nodes.models.loading import role_tags
from tests.support.contexts import scripted_context
from tests.support.rubrics import RUBRIC, TASK
from tests.support.scripted_model import ScriptedChatModel
from tests.support.verdicts import graded

PRODUCT = [Path(__file__).resolve().parents[2] / folder for folder in ("graphs", "nodes", "state")]


def own_frames() -> list[str]:
    """The product's frames on the stack now (graphs/, nodes/, state/)."""
    return [
        f"{Path(frame.filename).name}:{frame.name}"
        for frame in traceback.extract_stack()
        if any(Path(frame.filename).resolve().is_relative_to(folder) for folder in PRODUCT)
    ]


class Recording(ScriptedChatModel):
    """Records our frames on the stack where a request reaches the model (invoke or ainvoke)."""

    stacks: list[list[str]] = Field(default_factory=list)

    def invoke(self, *args: Any, **kwargs: Any) -> Any:
        self.stacks.append(own_frames())
        return super().invoke(*args, **kwargs)

    async def ainvoke(self, *args: Any, **kwargs: Any) -> Any:
        self.stacks.append(own_frames())
        return await super().ainvoke(*args, **kwargs)


@pytest.mark.parametrize("call", ["invoke", "ainvoke"])
def test_a_model_request_is_at_most_four_of_our_frames_below_langgraph(models, call) -> None:
    models["worker"] = Recording(replies=["Recursion is a function calling itself."])
    models["critic"] = Recording(replies=["a function calling itself"])
    rubric = [{"id": "defines", "text": "It says what recursion is."}]
    context = scripted_context(judge_mode="extract")
    graph, given = build_graph(), {"task": TASK, "rubric": rubric}
    if call == "invoke":
        out = graph.invoke(given, context=context)
    else:
        out = asyncio.run(graph.ainvoke(given, context=context))
    assert out["outcome"] == "passed"
    gateway = "gateway.py:ask" if call == "invoke" else "gateway.py:aask"
    for role in ("worker", "critic"):
        (stack,) = models[role].stacks
        assert stack[-1] == gateway and len(stack) <= 4, stack
        assert stack[0] == f"node.py:{call}", stack  # the node, behind the operator's policy


def test_a_structured_answer_under_invoke_starts_no_thread(models, monkeypatch) -> None:
    # include_raw=True would parse beside a passthrough in a RunnableParallel: a thread pool
    # per call, a third of a round's time at zero latency
    started: list[list[str]] = []
    original = threading.Thread.start

    def start(thread: threading.Thread) -> None:
        started.append(own_frames())
        original(thread)

    monkeypatch.setattr(threading.Thread, "start", start)
    models.script("worker", "Recursion is a function calling itself.")
    models.script("critic", graded(RUBRIC))
    rubric = [criterion.model_dump() for criterion in RUBRIC]
    out = build_graph().invoke({"task": TASK, "rubric": rubric}, context=scripted_context())
    assert out["outcome"] == "passed" and models["critic"].calls == 1
    assert [frames for frames in started if "gateway.py:ask" in frames] == []


class OwnStructuredOutput(ScriptedChatModel):
    """A model whose structured binding is not a model-then-parser sequence."""

    def with_structured_output(self, schema: Any, *, include_raw: bool = False, **_: Any) -> Any:
        def answer(prompt: Any) -> Any:
            reply = self.invoke(prompt)
            parsed = json.loads(reply.text)
            return (
                {"raw": reply, "parsed": parsed, "parsing_error": None} if include_raw else parsed
            )

        return RunnableLambda(answer)


def test_a_structured_binding_that_cannot_be_taken_apart_answers_as_langchain_gives_it() -> None:
    model = OwnStructuredOutput(replies=['{"verdict": "yes"}'])
    request = Request(
        model=model,
        spec="scripted:own",
        role="critic",
        server=None,
        prompt=[HumanMessage("Is it?")],
        read=lambda triple: (triple["parsed"], triple["raw"].text),
        schema={"type": "object", "properties": {"verdict": {"type": "string"}}},
    )
    answer = ask(request, Ledger())
    assert answer.value == ({"verdict": "yes"}, '{"verdict": "yes"}') and answer.calls == 1


class Verdict(BaseModel):
    verdict: str


def verdict_request(model: ScriptedChatModel) -> Request[tuple[Verdict, str]]:
    """Asks for a `Verdict` by function calling; reads it with the raw reply's type."""
    return Request(
        model=model,
        spec="scripted:verdict",
        role="critic",
        server=None,
        prompt=[HumanMessage("Is it?")],
        read=lambda triple: (parse_answer(triple, Verdict), type(triple["raw"]).__name__),
        schema=Verdict.model_json_schema(),
        method="function_calling",
    )


async def streamed_events(role_tags_only: bool = False) -> list[Any]:
    """The events of a runnable awaiting a structured answer, streamed under BlockBuster."""

    async def node(_: Any) -> Any:
        model = ScriptedChatModel(replies=[{"verdict": "yes"}])
        return (await aask(verdict_request(model), Ledger())).value

    include = role_tags("critic") if role_tags_only else None
    blocker = BlockBuster()  # as `langgraph dev` runs every node
    blocker.activate()
    try:
        stream = RunnableLambda(node).astream_events({}, version="v2", include_tags=include)
        return [event async for event in stream]
    finally:
        blocker.deactivate()


def test_an_awaited_structured_answer_blocks_nothing_while_events_stream() -> None:
    # astream_events adds async callbacks: a sync parse would wait for them on a lock in the
    # event loop, which BlockBuster (and so the dev server) refuses
    events = asyncio.run(streamed_events())
    assert events[-1]["data"]["output"] == (Verdict(verdict="yes"), "AIMessage")


def test_the_parsed_answer_is_tagged_with_the_role_as_the_model_call_is() -> None:
    events = asyncio.run(streamed_events(role_tags_only=True))
    assert any(event["event"] == "on_chat_model_end" for event in events)
    assert any(event["data"].get("output") == {"verdict": "yes"} for event in events)


class PreparesItsPrompt(ScriptedChatModel):
    """A model whose structured binding starts with a step of its own, not the model call."""

    def with_structured_output(self, schema: Any, **options: Any) -> Any:
        structured = super().with_structured_output(schema, **options)
        return RunnableLambda(lambda prompt: prompt, name="prepare") | structured


def test_a_binding_that_does_not_start_with_the_model_is_asked_whole() -> None:
    answer = ask(verdict_request(PreparesItsPrompt(replies=[{"verdict": "yes"}])), Ledger())
    assert answer.value == (Verdict(verdict="yes"), "AIMessage") and answer.calls == 1
