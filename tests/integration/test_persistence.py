"""The embedded default (SQLite) keeps runs and rules in one file; the index embeds `about`."""

import asyncio
import sqlite3

import pytest

from critic_loop.persistence import aopen_persistence, open_persistence
from critic_loop.state.rules import Rule, RuleProvenance, rules_namespace

pytestmark = pytest.mark.integration


def rule(text: str, *topics: str) -> dict:
    provenance = RuleProvenance(outcome="passed", rounds=2)
    return Rule(text=text, scope="sql", topics=list(topics), provenance=provenance).model_dump(
        mode="json"
    )


RULE = rule("Qualify every column with its table alias when joining tables.")


def test_checkpoints_and_rules_share_one_sqlite_file(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("CRITIC_LOOP_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("CRITIC_LOOP_DATABASE_URL", raising=False)
    with open_persistence() as persistence:
        persistence.store.put(rules_namespace("sql"), "r1", RULE)
        assert persistence.location == str(tmp_path / "data" / "critic_loop.sqlite")
    tables = {
        row[0]
        for row in sqlite3.connect(tmp_path / "data" / "critic_loop.sqlite").execute(
            "select name from sqlite_master where type = 'table'"
        )
    }
    assert {"checkpoints", "writes", "store"} <= tables


def test_the_embedded_index_embeds_what_a_rule_is_about_only(tmp_path) -> None:
    with open_persistence(tmp_path / "db.sqlite") as persistence:
        if not persistence.indexed:
            pytest.skip("this Python cannot load SQLite extensions (no pysqlite3)")
        persistence.store.put(rules_namespace("sql"), "r1", RULE)
        persistence.store.put(
            rules_namespace("sql"), "r2", rule("Count syllables in each line.", "haiku rain")
        )
        [best, other] = persistence.store.search(
            rules_namespace("sql"), query=RULE["text"], limit=2
        )
        [poem] = persistence.store.search(rules_namespace("sql"), query="haiku rain", limit=1)
    assert best.key == "r1"
    # only `about` (text and topics) was embedded: not the usage, provenance or times
    assert best.score == pytest.approx(1.0, abs=1e-4)
    assert other.score < 0.5
    assert poem.key == "r2"  # found by the topic of the task it was learned on


def test_async_persistence_reads_what_sync_wrote(tmp_path) -> None:
    path = tmp_path / "db.sqlite"
    with open_persistence(path) as persistence:
        persistence.store.put(rules_namespace("sql"), "r1", RULE)

    async def read() -> dict:
        async with aopen_persistence(path) as persistence:
            item = await persistence.store.aget(rules_namespace("sql"), "r1")
            return item.value if item else {}

    assert asyncio.run(read())["text"] == RULE["text"]


def test_vectors_made_with_other_dimensions_are_embedded_again(tmp_path, monkeypatch) -> None:
    from critic_loop.nodes.memory import lexical_embeddings

    path = tmp_path / "db.sqlite"
    monkeypatch.setattr(lexical_embeddings, "DIMENSIONS", 384)  # an index from before
    with open_persistence(path) as persistence:
        if not persistence.indexed:
            pytest.skip("this Python cannot load SQLite extensions (no pysqlite3)")
        persistence.store.put(rules_namespace("sql"), "r1", RULE)
    monkeypatch.setattr(lexical_embeddings, "DIMENSIONS", 128)
    with open_persistence(path) as persistence:
        [found] = persistence.store.search(rules_namespace("sql"), query=RULE["text"], limit=1)
    assert found.key == "r1" and found.score == pytest.approx(1.0, abs=1e-4)
    sizes = sqlite3.connect(path).execute("SELECT DISTINCT length(embedding) FROM store_vectors")
    assert [size for (size,) in sizes] == [4 * 128]


def test_closing_waits_for_a_write_in_flight(tmp_path) -> None:
    """Ctrl-C leaves a run's thread mid-write: the connection closes after it, not under it."""
    import threading
    import time

    from critic_loop.persistence import sqlite as sqlite_files

    connection = sqlite_files.connect(tmp_path / "runs.sqlite")
    lock = threading.Lock()  # what SqliteSaver and SqliteStore hold around every use
    inside = threading.Event()
    wrote: list[bool] = []

    def write() -> None:
        with lock:
            inside.set()
            time.sleep(0.3)
            connection.execute("CREATE TABLE written (x)")
            wrote.append(True)

    writer = threading.Thread(target=write)
    writer.start()
    assert inside.wait(5)
    sqlite_files.close_when_idle(connection, lock)
    writer.join(5)
    assert wrote == [True]  # the write finished before the connection closed
    with pytest.raises(sqlite_files.sqlite_module().ProgrammingError):
        connection.execute("SELECT 1")  # a use after closing is an error, not a crash


# --- threads written before the history was stored once ----------------------------------


@pytest.fixture(params=["sqlite", "postgres"])
def old_threads(request, tmp_path):
    """A database holding `old-finished` and `old-unfinished`, written by the old declaration."""
    import os
    import subprocess
    import sys
    from contextlib import ExitStack
    from pathlib import Path

    from tests.support.long_history import DistinctDrafts
    from tests.support.openai_server import ScriptedOpenAIServer
    from tests.support.stored_bytes import fresh_postgres

    root = Path(__file__).resolve().parents[2]
    with ExitStack() as stack:
        if request.param == "sqlite":
            database = str(tmp_path / "old.sqlite")
        else:
            url = request.getfixturevalue("postgres_url")
            database = stack.enter_context(fresh_postgres(url))
        server = stack.enter_context(ScriptedOpenAIServer(DistinctDrafts()))
        written = subprocess.run(
            [sys.executable, "-m", "tests.support.old_threads", database, server.base_url],
            cwd=root,
            env={**os.environ, "PYTHONPATH": str(root)},
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert written.returncode == 0, written.stdout + written.stderr
        yield database, server


def test_threads_written_before_read_resume_and_fork_on_the_new_storage(
    old_threads, tmp_path, monkeypatch, capsys
) -> None:
    from critic_loop import fork_loop, run_loop
    from critic_loop.graphs.app import build_graph
    from critic_loop.run import thread_config
    from tests.support.old_threads import FINISHED, UNFINISHED, context
    from tests.support.rubrics import RUBRIC, TASK
    from tests.support.run_history import cli_runner

    database, server = old_threads
    with open_persistence(database) as persistence:
        saver = persistence.checkpointer
        head = saver.get_tuple(thread_config(FINISHED))
        assert len(head.checkpoint["channel_values"]["drafts"]) == 3  # stored whole, as before
        graph = build_graph(checkpointer=saver)
        old = graph.get_state(thread_config(FINISHED)).values
        assert [c["round"] for c in old["critiques"]] == [1, 2, 3]
        assert old["outcome"] == "exhausted"

        resumed = run_loop(
            TASK,
            RUBRIC,
            context=context(server.base_url, 4),
            thread_id=UNFINISHED,
            checkpointer=saver,
        )
        assert (resumed.outcome, resumed.rounds) == ("exhausted", 4)
        assert [d.round for d in resumed.drafts] == [1, 2, 3, 4]
        stored = saver.get_tuple(thread_config(UNFINISHED)).checkpoint["channel_values"]
        assert "drafts" not in stored  # the new steps store only their writes

        forked = fork_loop(FINISHED, 1, context=context(server.base_url, 2), checkpointer=saver)
        assert [d.text for d in forked.drafts][:1] == [d["text"] for d in old["drafts"]][:1]
        assert (forked.rounds, len(forked.drafts)) == (2, 2)
        assert forked.drafts[1].text not in {d["text"] for d in old["drafts"]}

    cli = cli_runner(tmp_path, monkeypatch, capsys)
    listed = {run["thread_id"]: run for run in cli("runs", "--db", database, "--json").json}
    assert (listed[FINISHED]["rounds"], listed[UNFINISHED]["rounds"]) == (2, 4)
    shown = cli("show", UNFINISHED, "--db", database, "--json").json
    assert [d["round"] for d in shown["values"]["drafts"]] == [1, 2, 3, 4]
    assert sorted(shown["round_seconds"]) == ["1", "2", "3", "4"]
