"""Many runs on one database and one memory scope: nothing corrupted, nothing lost.

Runs share a SQLite file (or a PostgreSQL server) and a scope holding one rule. Each run
recalls the rule, passes, counts itself in the rule's usage, and distills the same lesson.
Afterwards the file is intact, every thread holds an outcome, the rule counts each run
exactly once, and the lesson is stored once.
"""

import asyncio
import multiprocessing
import sqlite3
from pathlib import Path
from uuid import uuid4

import pytest

from critic_loop import arun_loop, run_loop
from critic_loop.graphs.app import build_graph
from critic_loop.persistence import open_persistence
from critic_loop.state.rules import Rule, RuleProvenance, rules_namespace
from tests.support.openai_server import DiligentModel, ScriptedOpenAIServer

pytestmark = pytest.mark.integration

RUNS = int(__import__("os").environ.get("RUNS", "20"))
SEEDED = "Read the task twice before you write."
RUBRIC = [{"id": "clear", "text": "It is clear."}]


def context(server: ScriptedOpenAIServer, scope: str) -> dict:
    return {
        "worker_model": "openai:stub",
        "critic_model": "openai:stub",
        "base_url": server.base_url,
        "memory_scope": scope,
    }


def seed(database: str, scope: str) -> None:
    rule = Rule(text=SEEDED, scope=scope, provenance=RuleProvenance(outcome="passed", rounds=1))
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
        "rounds_when_passed": len(threads),
    }
    texts = [rule["text"] for rule in rules.values()]
    assert sorted(texts) == sorted({*texts}), "a lesson was stored twice"
    assert len(texts) == 2  # the seeded rule and the one distilled lesson


def integrity(path: Path) -> str:
    return sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone()[0]


def test_twenty_async_runs_in_one_process(tmp_path) -> None:
    database, scope = str(tmp_path / "runs.sqlite"), f"async-{uuid4().hex[:6]}"
    seed(database, scope)
    threads = [f"a{i}" for i in range(RUNS)]
    with ScriptedOpenAIServer(DiligentModel()) as server:

        async def all_runs() -> None:
            await asyncio.gather(
                *(
                    arun_loop(
                        "Explain recursion.",
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
    run_loop("Explain recursion.", RUBRIC, context=settings, thread_id=thread, database=database)


def run_processes(database: str, scope: str) -> list[str]:
    threads = [f"p{i}-{uuid4().hex[:6]}" for i in range(RUNS)]
    forking = multiprocessing.get_context("fork")
    with ScriptedOpenAIServer(DiligentModel()) as server:
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
