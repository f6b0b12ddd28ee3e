"""Figure 5: recall from a scope of many rules, against one model call, on each store.

A scope is filled with `recall_rules` rules (distinct texts, varied usage, each learned on
a task of one of ten kinds, four of them the kinds recall is asked about), then the
recall node's own work (`recall`: `search_rules` plus ranking) is timed directly,
interleaved across the stores: SQLite without the vector index, SQLite with it (pysqlite3
and sqlite-vec, as the embedded default has on Linux x86-64), and PostgreSQL when
`CRITIC_LOOP_TEST_POSTGRES_URL` is set. Its p50 and p90 are divided by one model call
that takes `recall_call_seconds` at the server, timed in the same run. A one-round
critic-loop run per store then counts the rules that reach the worker's prompt.
"""

from __future__ import annotations

import os
import random
import re
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.store.base import BaseStore, PutOp

from benchmarks.performance.report import Figure
from benchmarks.performance.server import LatencyServer, LoopResponder, ServerProcess, loop_task
from benchmarks.performance.settings import Settings
from benchmarks.performance.systems import MODEL, critic_context
from benchmarks.performance.timing import median, median_interval, percentile, timed
from critic_loop.state.rules import Rule, RuleProvenance, RuleUsage, rules_namespace
from tests.support.rubrics import RUBRIC

POSTGRES_VARIABLE = "CRITIC_LOOP_TEST_POSTGRES_URL"
RULE_ID = re.compile(r"\bR\d{5}\b")

VERBS = ["State", "Check", "Name", "Keep", "Quote", "Count", "Put", "Give", "List", "Cut"]
OBJECTS = [
    "the key numbers",
    "the word limit",
    "one worked example",
    "the audience",
    "the call to action",
    "every heading",
    "the product's capacity",
    "the deadline",
    "the unit of each figure",
    "the main claim",
]
PLACES = [
    "in the first sentence",
    "before the closing line",
    "in plain words",
    "in the order the task gives them",
    "without jargon",
    "in one short paragraph",
    "as a bulleted list",
    "before any detail",
]

TASKS = [
    "Write a short product description of a 750 ml insulated bottle for an online shop.",
    "Summarize the quarterly sales numbers for a newcomer in three sentences.",
    "Explain what a hash map is, with one worked example.",
    "Draft a polite reminder about an overdue invoice with its deadline.",
]

LEARNED_ON = [
    *TASKS,
    "Write a haiku about autumn rain.",
    "Reply to a customer whose parcel arrived two days late.",
    "Write a Python function that returns the median of a list of numbers.",
    "Write up the notes of a team meeting that chose a new company logo.",
    "Translate a short hotel booking request into French.",
    "Write a two-sentence weather forecast for Denver tomorrow.",
]
"""The tasks the filled rules were learned on: the recalled tasks' kinds and six others."""


def _share_interval(samples: list[float], call: float) -> tuple[float, float] | None:
    """Return the p50's 95% bootstrap interval, as percent of one model call."""
    interval = median_interval(samples)
    return None if interval is None else (100 * interval[0] / call, 100 * interval[1] / call)


def rules(scope: str, count: int, seed: int = 7) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield `count` distinct rules for `scope` as (key, stored value), deterministically."""
    from critic_loop.nodes.memory.relevance import topic_of

    chooser = random.Random(seed)
    topics = [topic_of(task) for task in LEARNED_ON]
    for number in range(count):
        text = (
            f"{chooser.choice(VERBS)} {chooser.choice(OBJECTS)} {chooser.choice(PLACES)} "
            f"(R{number:05d})."
        )
        consulted = chooser.randrange(0, 20)
        rule = Rule(
            text=text,
            criteria=[chooser.choice(["length", "example", "tone"])],
            scope=scope,
            topics=[chooser.choice(topics)],
            provenance=RuleProvenance(outcome="passed", rounds=chooser.randrange(1, 6)),
            usage=RuleUsage(consulted=consulted, passed=chooser.randrange(0, consulted + 1)),
        )
        yield f"R{number:05d}", rule.model_dump(mode="json")


def fill(store: BaseStore, scope: str, count: int, batch: int = 500) -> float:
    """Write `count` rules into `scope`; return the seconds it took."""
    namespace = rules_namespace(scope)
    pending: list[PutOp] = []

    def write() -> None:
        for key, value in rules(scope, count):
            pending.append(PutOp(namespace, key, value))
            if len(pending) >= batch:
                store.batch(pending)
                pending.clear()
        if pending:
            store.batch(pending)
            pending.clear()

    return timed(write)


def empty(store: BaseStore, scope: str, count: int, batch: int = 1000) -> None:
    """Delete the rules `fill` wrote (on a shared server, the benchmark leaves nothing)."""
    namespace = rules_namespace(scope)
    keys = [f"R{number:05d}" for number in range(count)]
    for start in range(0, len(keys), batch):
        store.batch([PutOp(namespace, key, None) for key in keys[start : start + batch]])


@contextmanager
def sqlite_store(path: Path, indexed: bool) -> Iterator[BaseStore]:
    """Open a SQLite store as the embedded default does, with or without the vector index."""
    from langgraph.store.sqlite import SqliteStore

    from critic_loop.nodes.memory.lexical_embeddings import sqlite_rule_index
    from critic_loop.persistence import sqlite

    sqlite.prepare(path)
    connection = sqlite.connect(path, isolation_level=None)
    try:
        store = SqliteStore(connection, index=sqlite_rule_index() if indexed else None)
        store.setup()
        yield store
    finally:
        connection.close()


@contextmanager
def postgres_store(url: str) -> Iterator[BaseStore]:
    """Open the PostgreSQL store as `open_persistence` does (unindexed by default)."""
    from langgraph.store.postgres import PostgresStore

    from critic_loop.nodes.memory.lexical_embeddings import rule_index

    index = rule_index() if os.environ.get("CRITIC_LOOP_EMBEDDINGS") else None
    with PostgresStore.from_conn_string(url, index=index) as store:
        store.setup()
        yield store


def recall_once(store: BaseStore, scope: str, task: str, context: Any) -> tuple[float, int]:
    """Run the recall node's logic once; return its seconds and how many rules it gave."""
    from langgraph.runtime import Runtime

    from critic_loop.nodes.memory.recall import RecallView, recall

    runtime = Runtime(context=context, store=store)
    update: dict[str, Any] = {}

    def run() -> None:
        update.update(recall(RecallView(task=task), runtime))

    seconds = timed(run)
    return seconds, len(update["recalled_rules"])


def profiled_recall(
    store: BaseStore, scope: str, task: str, context: Any, times: int = 5
) -> dict[str, Any]:
    """Profile `times` recalls; return the top functions by own and cumulative time."""
    from benchmarks.performance.scenarios.profile import every_thread_profiled, merged, tops

    with every_thread_profiled() as profiles:
        wall = sum(recall_once(store, scope, task, context)[0] for _ in range(times))
    return tops(merged(profiles), wall, count=10)


def rules_in_worker_prompt(store: BaseStore, scope: str, recall_k: int) -> int:
    """Run one critic-loop round with recall on; count the rules in the worker's prompt."""
    from langgraph.checkpoint.memory import InMemorySaver

    from critic_loop import build_graph
    from critic_loop.run import loop_input, thread_config

    with LatencyServer(LoopResponder()) as server:
        graph = build_graph(checkpointer=InMemorySaver(), store=store)
        context = critic_context(
            server.base_url, 1, memory=True, distill=False, memory_scope=scope, recall_k=recall_k
        )
        graph.invoke(loop_input(loop_task("recall", 1), RUBRIC), thread_config(), context=context)
        first = server.plain_requests()[0]
    text = " ".join(str(message.get("content") or "") for message in first["messages"])
    return len(set(RULE_ID.findall(text)))


def recall_at_size(settings: Settings, workdir: Path, details: dict[str, Any]) -> list[Figure]:
    """Figure 5: recall p50/p90 over one model call, and rules reaching the worker."""
    from critic_loop.persistence import sqlite
    from critic_loop.state.context import Context

    scope = f"bench_{uuid.uuid4().hex[:8]}"
    count = settings.recall_rules
    notes: dict[str, list[str]] = {}
    skipped: dict[str, str] = {}
    with ExitStack() as stack:
        scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-recall-")))
        stores: dict[str, BaseStore] = {
            "SQLite, no index": stack.enter_context(sqlite_store(scratch / "plain.sqlite", False))
        }
        if sqlite.can_index():
            stores["SQLite, vector index"] = stack.enter_context(
                sqlite_store(scratch / "indexed.sqlite", True)
            )
        else:
            skipped["SQLite, vector index"] = "this Python cannot load sqlite-vec (pysqlite3)"
        url = os.environ.get(POSTGRES_VARIABLE)
        if url:
            stores["PostgreSQL"] = stack.enter_context(postgres_store(url))
        else:
            skipped["PostgreSQL"] = f"{POSTGRES_VARIABLE} is not set (.ci/postgres start)"
        fill_seconds = {name: fill(store, scope, count) for name, store in stores.items()}
        if "PostgreSQL" in stores:
            stack.callback(empty, stores["PostgreSQL"], scope, count)
        server = stack.enter_context(ServerProcess(settings.recall_call_seconds))
        from langchain_openai import ChatOpenAI

        model = ChatOpenAI(model=MODEL, base_url=server.base_url, api_key="not-needed")
        context = Context(
            **critic_context(
                server.base_url, 1, memory=True, memory_scope=scope, recall_k=settings.recall_k
            )
        )
        samples: dict[str, list[float]] = {name: [] for name in stores}
        given: dict[str, list[int]] = {name: [] for name in stores}
        calls: list[float] = []
        for sample in range(settings.recall_samples):
            task = TASKS[sample % len(TASKS)]
            for name, store in stores.items():
                seconds, recalled = recall_once(store, scope, task, context)
                samples[name].append(seconds)
                given[name].append(recalled)
            if sample < settings.recall_call_samples:
                prompt = [HumanMessage(loop_task("call", 1))]
                calls.append(timed(lambda prompt=prompt: model.invoke(prompt)))  # type: ignore[misc]
        profiles = {
            name: profiled_recall(store, scope, TASKS[0], context) for name, store in stores.items()
        }
        in_prompt = {
            name: rules_in_worker_prompt(store, scope, settings.recall_k)
            for name, store in stores.items()
        }
    call = median(calls)
    details["recall"] = {
        "seconds": samples,
        "model_call_seconds": calls,
        "fill_seconds": fill_seconds,
        "rules_given": given,
        "rules_in_worker_prompt": in_prompt,
        "profile": profiles,
    }
    figures = []
    baseline = f"one {settings.recall_call_seconds * 1000:.0f} ms model call"
    for name in ("SQLite, no index", "SQLite, vector index", "PostgreSQL"):
        if name in skipped:
            figures.append(
                Figure(
                    "recall",
                    f"{name}: p50 / model call",
                    None,
                    "%",
                    baseline,
                    10.0,
                    skipped=skipped[name],
                )
            )
            continue
        p50, p90 = percentile(samples[name], 0.5), percentile(samples[name], 0.9)
        figures.append(
            Figure(
                "recall",
                f"{name}: p50 / model call ({count} rules)",
                100 * p50 / call,
                "%",
                baseline,
                10.0,
                samples={name: samples[name], "model call": calls},
                medians={"p50": p50, "p90": p90, "model call": call},
                notes=notes.get(name, []),
                interval=_share_interval(samples[name], call),
            )
        )
        figures.append(
            Figure("recall", f"{name}: p90 / model call", 100 * p90 / call, "%", baseline)
        )
        figures.append(
            Figure(
                "recall",
                f"{name}: most rules in the worker's prompt",
                max([in_prompt[name], *given[name]]),
                "count",
                f"recall_k = {settings.recall_k}",
                settings.recall_k,
            )
        )
    return figures
