"""The embedded default (SQLite) keeps runs and rules in one file; the rule index embeds text."""

import asyncio
import sqlite3

import pytest

from critic_loop.persistence import aopen_persistence, open_persistence
from critic_loop.state.rules import rules_namespace

pytestmark = pytest.mark.integration

RULE = {"text": "Qualify every column with its table alias when joining tables.", "usage": {}}


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


def test_the_embedded_index_embeds_the_rule_text_only(tmp_path) -> None:
    with open_persistence(tmp_path / "db.sqlite") as persistence:
        if not persistence.indexed:
            pytest.skip("this Python cannot load SQLite extensions (no pysqlite3)")
        persistence.store.put(rules_namespace("sql"), "r1", RULE)
        persistence.store.put(
            rules_namespace("sql"), "r2", {"text": "Count syllables in each line.", "usage": {}}
        )
        [best, other] = persistence.store.search(
            rules_namespace("sql"), query=RULE["text"], limit=2
        )
    assert best.key == "r1"
    assert best.score == pytest.approx(1.0, abs=1e-4)  # only the text was embedded
    assert other.score < 0.5


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
