"""Many runs on one database and one memory scope: nothing corrupted, nothing lost.

Runs share a SQLite file (or a PostgreSQL server) and a scope holding one rule. Each run
recalls the rule, fails round 1 and passes round 2 after the judge's hint, counts itself in
the rule's usage, and distills the same lesson.
Afterwards the file is intact, every thread holds an outcome, the rule counts each run
exactly once, and the lesson is stored once.
"""

import asyncio
import json
import multiprocessing
import sqlite3
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest

from critic_loop import arun_loop, run_loop
from critic_loop.graphs.app import build_graph
from critic_loop.nodes.memory.relevance import topic_of
from critic_loop.persistence import open_persistence
from critic_loop.state.rules import Rule, RuleProvenance, rules_namespace
from tests.support.openai_server import (
    FULL_DRAFT,
    SHORT_DRAFT,
    Answer,
    DiligentModel,
    ScriptedOpenAIServer,
    Structured,
    Text,
    artifact_of,
    is_structured_request,
    rubric_ids,
    schema_name,
)

pytestmark = pytest.mark.integration

RUNS = int(__import__("os").environ.get("RUNS", "20"))
TASK = "Explain recursion."
SEEDED = "Read the task twice before you write."
RUBRIC = [{"id": "clear", "text": "It is clear."}]
HINT = "Give a worked example of recursion."


def revises_once(request: dict[str, Any]) -> Answer:
    """Every run's first draft fails with `HINT`, its revision passes; the distiller adds
    nothing, so every run keeps the same lesson as it is."""
    if not is_structured_request(request):
        revising = "did not pass review" in json.dumps(request["messages"])
        return Text(FULL_DRAFT if revising else SHORT_DRAFT)
    if schema_name(request) == "rule_operations":
        return Structured({"operations": []})
    draft = artifact_of(request)
    passed = draft.strip() != SHORT_DRAFT
    results = [
        {
            "criterion_id": criterion_id,
            "evidence": f'It says "{draft.split(".")[0][:80]}".',
            "passed": passed,
            "terminal": False,
            "hint": "" if passed else HINT,
        }
        for criterion_id in rubric_ids(request)
    ]
    return Structured({"results": results, "feedback": "", "passed": passed})


def context(server: ScriptedOpenAIServer, scope: str) -> dict:
    return {
        "worker_model": "openai:stub",
        "critic_model": "openai:stub",
        "base_url": server.base_url,
        "memory_scope": scope,
    }


def seed(database: str, scope: str) -> None:
    rule = Rule(
        text=SEEDED,
        scope=scope,
        topics=[topic_of(TASK)],  # learned on a task like the runs': recalled by every one
        provenance=RuleProvenance(outcome="passed", rounds=1),
    )
    with open_persistence(database) as persistence:
        persistence.store.put(rules_namespace(scope), "seeded", rule.model_dump(mode="json"))


def check_everything_counted(database: str, scope: str, threads: list[str]) -> None:
    with open_persistence(database) as persistence:
        graph = build_graph(checkpointer=persistence.checkpointer)
        outcomes = [
            graph.get_state({"configurable": {"thread_id": thread}}).values.get("outcome")
            for thread in threads
        ]
        rules = {item.key: item.value for item in persistence.store.search(rules_namespace(scope))}
    assert outcomes == ["passed"] * len(threads)
    assert rules["seeded"]["usage"] == {
        "consulted": len(threads),
        "passed": len(threads),
        "rounds_when_passed": 2 * len(threads),
    }
    texts = [rule["text"] for rule in rules.values()]
    assert sorted(texts) == sorted({*texts}), "a lesson was stored twice"
    assert sorted(texts) == sorted([SEEDED, HINT])  # the seeded rule and the one lesson


def integrity(path: Path) -> str:
    return sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone()[0]


def test_twenty_async_runs_in_one_process(tmp_path) -> None:
    database, scope = str(tmp_path / "runs.sqlite"), f"async-{uuid4().hex[:6]}"
    seed(database, scope)
    threads = [f"a{i}" for i in range(RUNS)]
    with ScriptedOpenAIServer(revises_once) as server:

        async def all_runs() -> None:
            await asyncio.gather(
                *(
                    arun_loop(
                        TASK,
                        RUBRIC,
                        context=context(server, scope),
                        thread_id=thread,
                        database=database,
                    )
                    for thread in threads
                )
            )

        asyncio.run(all_runs())
    assert integrity(tmp_path / "runs.sqlite") == "ok"
    check_everything_counted(database, scope, threads)


def _run_in_child(base_url: str, database: str, scope: str, thread: str) -> None:
    settings = {
        "worker_model": "openai:stub",
        "critic_model": "openai:stub",
        "base_url": base_url,
        "memory_scope": scope,
    }
    run_loop(TASK, RUBRIC, context=settings, thread_id=thread, database=database)


def run_processes(database: str, scope: str) -> list[str]:
    threads = [f"p{i}-{uuid4().hex[:6]}" for i in range(RUNS)]
    forking = multiprocessing.get_context("fork")
    with ScriptedOpenAIServer(revises_once) as server:
        children = [
            forking.Process(target=_run_in_child, args=(server.base_url, database, scope, thread))
            for thread in threads
        ]
        for child in children:
            child.start()
        for child in children:
            child.join(timeout=180)
    assert [child.exitcode for child in children] == [0] * RUNS
    return threads


def test_twenty_processes_on_one_sqlite_file(tmp_path) -> None:
    database, scope = str(tmp_path / "runs.sqlite"), f"procs-{uuid4().hex[:6]}"
    seed(database, scope)
    threads = run_processes(database, scope)
    assert integrity(tmp_path / "runs.sqlite") == "ok"
    check_everything_counted(database, scope, threads)


def test_twenty_processes_on_postgres(postgres_url) -> None:
    scope = f"pgprocs-{uuid4().hex[:6]}"
    seed(postgres_url, scope)
    threads = run_processes(postgres_url, scope)
    check_everything_counted(postgres_url, scope, threads)


def test_five_async_runs_on_a_fresh_sqlite_file_ten_times(tmp_path) -> None:
    """The store's and the saver's migrations run once, under a lock, however many open."""
    outcomes: list[object] = []
    with ScriptedOpenAIServer(DiligentModel()) as server:

        async def five_at_once(database: str) -> list[object]:
            return await asyncio.gather(
                *(
                    arun_loop(
                        "Explain recursion.",
                        RUBRIC,
                        context={**context(server, "fresh"), "memory": False},
                        thread_id=f"t{run}",
                        database=database,
                    )
                    for run in range(5)
                ),
                return_exceptions=True,
            )

        async def ten_fresh_files() -> None:
            for attempt in range(10):
                outcomes.extend(await five_at_once(str(tmp_path / f"fresh-{attempt}.sqlite")))

        asyncio.run(ten_fresh_files())
    failures = [repr(outcome) for outcome in outcomes if isinstance(outcome, BaseException)]
    assert failures == []
    assert [outcome.outcome for outcome in outcomes] == ["passed"] * 50  # type: ignore[attr-defined]


@pytest.fixture
def fresh_postgres_database(postgres_url):
    """A new, empty PostgreSQL database on the test server (dropped afterwards)."""
    import psycopg

    name = f"critic_loop_fresh_{uuid4().hex[:8]}"
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    yield postgres_url.rsplit("/", 1)[0] + f"/{name}"
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE {name} WITH (FORCE)")


def test_twenty_processes_on_a_fresh_postgres_database(fresh_postgres_database) -> None:
    threads = run_processes(fresh_postgres_database, f"fresh-{uuid4().hex[:6]}")
    with open_persistence(fresh_postgres_database) as persistence:
        graph = build_graph(checkpointer=persistence.checkpointer)
        outcomes = [
            graph.get_state({"configurable": {"thread_id": thread}}).values.get("outcome")
            for thread in threads
        ]
    assert outcomes == ["passed"] * len(threads)
