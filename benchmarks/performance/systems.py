"""The systems under test: one refinement loop each, making the same model calls per round.

Every system drafts with one plain worker call and grades with one structured critic call
(`json_schema` method, the same verdict schema, `include_raw=True`), over real HTTP to the
benchmark's scripted server, until the critic passes the draft (`LoopResponder` passes the
last round only). Each `run` returns how many rounds it made, so a scenario can check that
every system did the same work.

- `PlainLoop`: a Python loop over langchain-openai's `ChatOpenAI` (the baseline).
- `MinimalGraphLoop`: the same calls in two trivial LangGraph steps a round (the floor
  any LangGraph loop pays), in memory or on SQLite.
- `ReflectionLoop`: langgraph-reflection's `create_reflection_graph` (optional extra).
- `CriticLoopMemory`: critic-loop's `build_graph()` with `InMemorySaver`, memory off.
- `CriticLoopSqlite`: critic-loop's embedded default, `run_loop` on `open_persistence`.
- `AsyncCriticLoopSqlite`: `arun_loop` on `aopen_persistence` (for many loops at once).
"""

from __future__ import annotations

import importlib.util
import operator
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Protocol

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import Runnable, RunnableLambda
from langchain_openai import ChatOpenAI
from typing_extensions import TypedDict

from benchmarks.performance.server import loop_task
from critic_loop.nodes.verifiers.judge_answers import critic_output_schema
from critic_loop.state.history import append_only
from tests.support.rubrics import RUBRIC

MODEL = "scripted"
"""The model name every system asks the scripted server for."""

WORKER_SYSTEM = (
    "You are the author. You write the artifact the task asks for. A reviewer you cannot "
    "see checks each version; when it falls short you receive feedback and revise. Reply "
    "with the complete artifact only."
)
CRITIC_SYSTEM = (
    "You are an exacting reviewer. Grade the artifact against every criterion of the "
    "rubric exactly once, by its id, with evidence; give a hint for each failing one."
)


class Loop(Protocol):
    """A system under test: runs one loop to its end and returns the rounds it made."""

    def run(self, loop_id: str, rounds: int) -> int:
        """Run the loop tagged `loop_id`, which the scripted critic passes at `rounds`."""
        ...


def critic_context(base_url: str | None, rounds: int, **overrides: Any) -> dict[str, Any]:
    """Return critic-loop's context for a benchmark loop of `rounds` rounds.

    Memory is off, the judge granularity is the default, and stalling is put out of reach
    (the scripted critic fails the same criterion until the last round), and so is the
    call budget (two calls a round; the default ceiling of 200 still holds served runs).
    A `base_url` of None leaves the server to OPENAI_BASE_URL (served runs may use no other).
    """
    return {
        "worker_model": f"openai:{MODEL}",
        "critic_model": f"openai:{MODEL}",
        "base_url": base_url,
        "memory": False,
        "max_iterations": rounds,
        "stall_rounds": max(2, rounds),
        "call_budget": max(200, 4 * rounds),
        **overrides,
    }


def _chat_models(base_url: str) -> tuple[ChatOpenAI, Runnable[Any, dict[str, Any]]]:
    """Build the worker and the structured critic once, as a careful hand-written loop does."""
    common: dict[str, Any] = {
        "model": MODEL,
        "base_url": base_url,
        "api_key": "not-needed",
        "timeout": 600.0,
        "max_retries": 2,
    }
    worker = ChatOpenAI(temperature=0.7, **common)
    critic = ChatOpenAI(temperature=0.0, extra_body={"max_tokens": 2048}, **common)
    structured: Runnable[Any, dict[str, Any]] = critic.with_structured_output(  # type: ignore[assignment]
        critic_output_schema(), method="json_schema", include_raw=True, strict=True
    )
    return worker, structured


def critic_prompt(draft: str) -> list[BaseMessage]:
    """Build the baselines' critic prompt: the rubric and the fenced artifact."""
    rubric = "\n".join(f"- [{criterion.id}] {criterion.text}" for criterion in RUBRIC)
    grade = (
        f"Rubric:\n{rubric}\n\nThe artifact is everything between the two markers.\n"
        f"<<<ARTIFACT a1>>>\n{draft}\n<<<END ARTIFACT a1>>>\n\n"
        'Answer with one JSON object: {"results": [...], "feedback": ..., "passed": ...}'
    )
    return [SystemMessage(CRITIC_SYSTEM), HumanMessage(grade)]


def revision_request(round_number: int, verdict: dict[str, Any]) -> HumanMessage:
    """Build the baselines' revision request from a failing verdict."""
    hints = [f"- {result['hint']}" for result in verdict["results"] if not result["passed"]]
    return HumanMessage(
        f"That version (round {round_number}) did not pass review. Revise it.\n\n"
        f"Reviewer's note: {verdict['feedback']}\n\nChanges to make:\n" + "\n".join(hints)
    )


class PlainLoop:
    """The baseline: a plain Python loop calling `ChatOpenAI` directly."""

    def __init__(self, base_url: str) -> None:
        """Build the worker and critic clients for the server at `base_url`."""
        self.worker, self.critic = _chat_models(base_url)

    def run(self, loop_id: str, rounds: int) -> int:
        """Draft, grade, revise until the critic passes; return the rounds made."""
        task = [SystemMessage(WORKER_SYSTEM), HumanMessage(loop_task(loop_id, rounds))]
        history: list[BaseMessage] = []
        for round_number in range(1, rounds + 1):
            reply = self.worker.invoke([*task, *history])
            answer = self.critic.invoke(critic_prompt(reply.text))
            verdict = answer["parsed"]
            if verdict is None:
                raise RuntimeError(f"the critic's answer did not parse: {answer}")
            if verdict["passed"]:
                return round_number
            history = [reply, revision_request(round_number, verdict)]
        return rounds

    async def arun(self, loop_id: str, rounds: int) -> int:
        """Async twin of `run` (`ainvoke`), for many loops in one event loop."""
        task = [SystemMessage(WORKER_SYSTEM), HumanMessage(loop_task(loop_id, rounds))]
        history: list[BaseMessage] = []
        for round_number in range(1, rounds + 1):
            reply = await self.worker.ainvoke([*task, *history])
            answer = await self.critic.ainvoke(critic_prompt(reply.text))
            verdict = answer["parsed"]
            if verdict is None:
                raise RuntimeError(f"the critic's answer did not parse: {answer}")
            if verdict["passed"]:
                return round_number
            history = [reply, revision_request(round_number, verdict)]
        return rounds


class ReflectionLoop:
    """langgraph-reflection: a main graph (the worker) and a critique graph (the critic)."""

    def __init__(self, base_url: str) -> None:
        """Compile the reflection graph for the server at `base_url`."""
        from langgraph.graph import END, START, MessagesState, StateGraph
        from langgraph_reflection import create_reflection_graph

        worker, critic = _chat_models(base_url)

        def draft(state: MessagesState) -> dict[str, Any]:
            messages = state["messages"]  # [task, draft, feedback, ...]: keep task + last pair
            prompt = [SystemMessage(WORKER_SYSTEM), messages[0], *messages[1:][-2:]]
            return {"messages": [worker.invoke(prompt)]}

        def grade(state: MessagesState) -> dict[str, Any]:
            drafts = [m for m in state["messages"] if isinstance(m, AIMessage)]
            answer = critic.invoke(critic_prompt(drafts[-1].text))
            verdict = answer["parsed"]
            if verdict is None:
                raise RuntimeError(f"the critic's answer did not parse: {answer}")
            if verdict["passed"]:
                return {}
            return {"messages": [revision_request(len(drafts), verdict)]}

        def single_node(name: str, node: Any) -> Any:
            builder = StateGraph(MessagesState)
            builder.add_node(name, node)
            builder.add_edge(START, name)
            builder.add_edge(name, END)
            return builder.compile()

        # 0.0.1 reads `graph.builder.schema`, which langgraph 1.x no longer has: name it
        self.graph = create_reflection_graph(
            single_node("draft", draft), single_node("grade", grade), state_schema=MessagesState
        ).compile()

    def run(self, loop_id: str, rounds: int) -> int:
        """Run the reflection graph until the critique graph adds no request."""
        task = HumanMessage(loop_task(loop_id, rounds))
        state = self.graph.invoke({"messages": [task]}, {"recursion_limit": 4 * rounds + 10})
        return sum(isinstance(message, AIMessage) for message in state["messages"])


class MinimalGraphState(TypedDict):
    """The minimal graph's state: the task, then each round's draft and verdict."""

    task: str
    drafts: Annotated[list[str], operator.add]
    verdicts: Annotated[list[dict[str, Any]], operator.add]


class MinimalGraphLoop:
    """The floor for any LangGraph loop: the plain loop's calls in two trivial steps a round.

    `generate` makes the plain loop's worker call and `critique` its critic call; an edge
    ends the loop when the critic passes. The state is a TypedDict of plain lists, and
    nothing else is done: what it costs over the plain loop is LangGraph's own per-step
    machinery with `checkpointer`, the least a graph with a worker node and a critic node
    pays.
    """

    def __init__(self, base_url: str, checkpointer: Any, durability: Durability = "async") -> None:
        """Compile the minimal graph for the server at `base_url` on `checkpointer`."""
        from langgraph.graph import END, START, StateGraph

        worker, critic = _chat_models(base_url)

        def worker_prompt(state: MinimalGraphState) -> list[BaseMessage]:
            prompt: list[BaseMessage] = [SystemMessage(WORKER_SYSTEM), HumanMessage(state["task"])]
            if state["drafts"]:
                rounds = len(state["verdicts"])
                request = revision_request(rounds, state["verdicts"][-1])
                prompt += [AIMessage(state["drafts"][-1]), request]
            return prompt

        def verdict_of(answer: dict[str, Any]) -> dict[str, Any]:
            if answer["parsed"] is None:
                raise RuntimeError(f"the critic's answer did not parse: {answer}")
            return {"verdicts": [answer["parsed"]]}

        def draft(state: MinimalGraphState) -> dict[str, Any]:
            return {"drafts": [worker.invoke(worker_prompt(state)).text]}

        async def adraft(state: MinimalGraphState) -> dict[str, Any]:
            return {"drafts": [(await worker.ainvoke(worker_prompt(state))).text]}

        def grade(state: MinimalGraphState) -> dict[str, Any]:
            return verdict_of(critic.invoke(critic_prompt(state["drafts"][-1])))

        async def agrade(state: MinimalGraphState) -> dict[str, Any]:
            return verdict_of(await critic.ainvoke(critic_prompt(state["drafts"][-1])))

        # sync and async bodies, so `invoke` and `ainvoke` both make their calls natively
        generate = RunnableLambda(draft, afunc=adraft, name="generate")
        critique = RunnableLambda(grade, afunc=agrade, name="critique")

        def after_critique(state: MinimalGraphState) -> str:
            return END if state["verdicts"][-1]["passed"] else "generate"

        builder = StateGraph(MinimalGraphState)
        builder.add_node("generate", generate)
        builder.add_node("critique", critique)
        builder.add_edge(START, "generate")
        builder.add_edge("generate", "critique")
        builder.add_conditional_edges("critique", after_critique, ["generate", END])
        self.graph = builder.compile(checkpointer=checkpointer)
        self.durability = durability

    def run(self, loop_id: str, rounds: int) -> int:
        """Invoke the graph on a new thread; return the rounds it made."""
        from critic_loop.run import thread_config

        state = self.graph.invoke(
            {"task": loop_task(loop_id, rounds), "drafts": [], "verdicts": []},
            {**thread_config(), "recursion_limit": 2 * rounds + 10},
            durability=self.durability,
        )
        return len(state["verdicts"])

    async def arun(self, loop_id: str, rounds: int) -> int:
        """Async twin of `run` (`ainvoke`, async model calls), for many loops at once."""
        from critic_loop.run import thread_config

        state = await self.graph.ainvoke(
            {"task": loop_task(loop_id, rounds), "drafts": [], "verdicts": []},
            {**thread_config(), "recursion_limit": 2 * rounds + 10},
            durability=self.durability,
        )
        return len(state["verdicts"])


def reflection_available() -> bool:
    """Tell whether langgraph-reflection is installed (the `bench` extra)."""
    return importlib.util.find_spec("langgraph_reflection") is not None


def rounds_of(values: dict[str, Any]) -> int:
    """Return the rounds a finished critic-loop run made (and check that it passed)."""
    if values.get("outcome") != "passed":
        raise RuntimeError(
            f"critic-loop ended {values.get('outcome')!r}: {values.get('outcome_reason')}"
        )
    return len(values["critiques"])


class CriticLoopMemory:
    """critic-loop in memory: `build_graph()` with `InMemorySaver`, invoked per loop."""

    def __init__(self, base_url: str) -> None:
        """Compile the graph for the server at `base_url`."""
        from langgraph.checkpoint.memory import InMemorySaver

        from critic_loop import build_graph

        self.base_url = base_url
        self.graph = build_graph(checkpointer=InMemorySaver())

    def run(self, loop_id: str, rounds: int) -> int:
        """Invoke the graph on a new thread; return the rounds it made."""
        from critic_loop.run import loop_input, thread_config

        values = self.graph.invoke(
            loop_input(loop_task(loop_id, rounds), RUBRIC),
            thread_config(),
            context=critic_context(self.base_url, rounds),
        )
        return rounds_of(values)


Durability = Literal["sync", "async", "exit"]


class CriticLoopSqlite:
    """critic-loop's embedded default: `run_loop` on an open SQLite file."""

    def __init__(self, base_url: str, persistence: Any, durability: Durability = "sync") -> None:
        """Run loops against `persistence` (from `open_persistence`).

        `durability="sync"` is what `run_loop` does; other values invoke the graph
        directly with that durability (a diagnostic, not a way users run it).
        """
        from critic_loop import build_graph

        self.base_url = base_url
        self.persistence = persistence
        self.durability = durability
        self.graph = build_graph(checkpointer=persistence.checkpointer, store=persistence.store)

    def run(self, loop_id: str, rounds: int) -> int:
        """Run one loop on a new thread; return the rounds it made."""
        from critic_loop.run import loop_input, run_loop, thread_config

        context = critic_context(self.base_url, rounds)
        task = loop_task(loop_id, rounds)
        if self.durability == "sync":
            state = run_loop(
                task,
                RUBRIC,
                context=context,
                checkpointer=self.persistence.checkpointer,
                store=self.persistence.store,
            )
            return rounds_of(state.model_dump())
        values = self.graph.invoke(
            loop_input(task, RUBRIC),
            thread_config(),
            context=context,
            durability=self.durability,
        )
        return rounds_of(values)


@contextmanager
def sqlite_persistence(directory: Path) -> Iterator[Any]:
    """Open critic-loop's embedded SQLite persistence in a fresh file under `directory`."""
    from critic_loop.persistence import open_persistence

    with open_persistence(directory / "bench.sqlite") as persistence:
        yield persistence


@asynccontextmanager
async def async_sqlite_persistence(directory: Path) -> AsyncIterator[Any]:
    """Open the async SQLite persistence (async saver and store) under `directory`."""
    from critic_loop.persistence import aopen_persistence

    async with aopen_persistence(directory / "bench-async.sqlite") as persistence:
        yield persistence


@dataclass
class AsyncCriticLoopSqlite:
    """critic-loop under asyncio: `arun_loop` on the async SQLite saver and store."""

    base_url: str
    persistence: Any

    async def run(self, loop_id: str, rounds: int) -> int:
        """Run one loop on a new thread; return the rounds it made."""
        from critic_loop.run import arun_loop

        state = await arun_loop(
            loop_task(loop_id, rounds),
            RUBRIC,
            context=critic_context(self.base_url, rounds),
            checkpointer=self.persistence.checkpointer,
            store=self.persistence.store,
        )
        return rounds_of(state.model_dump())


class MinimalHistoryState(TypedDict):
    """The minimal history loop's state: each round's draft and verdict, appended."""

    rounds: int
    drafts: Annotated[list[str], operator.add]
    verdicts: Annotated[list[dict[str, Any]], operator.add]


class MinimalDeltaHistoryState(TypedDict):
    """The same state on critic-loop's history channel (`DeltaChannel`)."""

    rounds: int
    drafts: Annotated[list[str], append_only()]
    verdicts: Annotated[list[dict[str, Any]], append_only()]


class MinimalHistoryLoop:
    """The minimal LangGraph loop's storage: two steps a round that append a draft and a verdict.

    No model is called: `generate` appends a distinct 4 KB draft and `critique` a small
    failing verdict, until `rounds` rounds. With `delta=False` the lists are LangGraph's
    default reducer channels (`operator.add`), checkpointed whole at every step: what any
    LangGraph loop with a growing list stores; with `delta=True` they are critic-loop's
    history channel, stored once. Run on `checkpointer` with `durability="sync"`.
    """

    def __init__(self, checkpointer: Any, delta: bool) -> None:
        """Compile the loop on `checkpointer`."""
        from langgraph.graph import END, START, StateGraph

        from tests.support.long_history import distinct_draft

        schema: type[Any] = MinimalDeltaHistoryState if delta else MinimalHistoryState

        def generate(state: dict[str, Any]) -> dict[str, Any]:
            return {"drafts": [distinct_draft(len(state["drafts"]) + 1)]}

        def critique(state: dict[str, Any]) -> dict[str, Any]:
            number = len(state["drafts"])
            verdict = {"round": number, "passed": False, "feedback": "Shorter.", "hint": "Cut."}
            return {"verdicts": [verdict]}

        def after_critique(state: dict[str, Any]) -> str:
            return END if len(state["verdicts"]) >= state["rounds"] else "generate"

        builder = StateGraph(schema)
        builder.add_node("generate", generate)
        builder.add_node("critique", critique)
        builder.add_edge(START, "generate")
        builder.add_edge("generate", "critique")
        builder.add_conditional_edges("critique", after_critique, ["generate", END])
        self.graph = builder.compile(checkpointer=checkpointer)

    def run(self, rounds: int) -> dict[str, Any]:
        """Run `rounds` rounds on a new thread; return its final values."""
        from critic_loop.run import thread_config

        values: dict[str, Any] = self.graph.invoke(
            {"rounds": rounds, "drafts": [], "verdicts": []},
            {**thread_config(), "recursion_limit": 2 * rounds + 10},
            durability="sync",
        )
        return values


def minimal_history_bytes(values: dict[str, Any]) -> int:
    """Return the bytes of a minimal history loop's drafts and verdicts, as JSON."""
    import json

    return sum(
        len(json.dumps(item, separators=(",", ":")).encode())
        for item in [*values["drafts"], *values["verdicts"]]
    )
