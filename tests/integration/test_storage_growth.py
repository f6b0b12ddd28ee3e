"""A thread's stored bytes grow with its history, not with the square of its rounds.

Runs of 10, 40 and 100 rounds with distinct 4 KB drafts (a critic that never passes,
memory on), each in a database of its own, on SQLite and PostgreSQL. What a run adds to
its database (the SQLite file; the total size of PostgreSQL's tables, with their TOAST
tables and indexes) is at most 3x its drafts, critiques and feedback (as JSON) plus a
fixed allowance, and 10 times the rounds store at most 12 times the bytes. The allowance
is what a 1-round run of the same kind stores: the steps every run takes before its first
round and after its last, and on PostgreSQL the first pages of each table, index and
TOAST table. Before the history was stored once (`critic_loop.state.history`), 40 rounds
stored 66x their history on SQLite.

Only bytes are asserted here: the time a round's checkpoints take to write is measured in
the benchmark (`benchmarks/performance`, scenario `storage`), since timings are not
asserted in tests on these shared machines.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from critic_loop.persistence import open_persistence
from critic_loop.run import run_loop
from tests.support.long_history import DistinctDrafts, history_bytes, long_run_context
from tests.support.openai_server import ScriptedOpenAIServer
from tests.support.rubrics import RUBRIC, TASK
from tests.support.stored_bytes import fresh_postgres, postgres_bytes, sqlite_bytes

pytestmark = pytest.mark.integration

ROUNDS = (1, 10, 40, 100)


@pytest.fixture(scope="module")
def model_server() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer(DistinctDrafts()) as server:
        yield server


@contextmanager
def empty_database(
    backend: str, tmp_path: Path, rounds: int
) -> Iterator[tuple[str, Callable[[], int]]]:
    """Yield a new database (set up, no runs) and a function returning its size in bytes."""
    if backend == "sqlite":
        path = tmp_path / f"runs-{rounds}.sqlite"
        yield str(path), lambda: sqlite_bytes(path)
        return
    import os

    url = os.environ["CRITIC_LOOP_TEST_POSTGRES_URL"]
    with fresh_postgres(url) as database:
        yield database, lambda: postgres_bytes(database)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_stored_bytes_grow_with_the_history_not_with_its_square(
    backend: str, tmp_path: Path, model_server: ScriptedOpenAIServer, request: pytest.FixtureRequest
) -> None:
    if backend == "postgres":
        request.getfixturevalue("postgres_url")  # skips (or fails) without a server
    stored: dict[int, int] = {}
    held: dict[int, int] = {}
    for rounds in ROUNDS:
        with empty_database(backend, tmp_path, rounds) as (database, size):
            with open_persistence(database):
                pass  # the tables, set up and empty
            empty = size()
            state = run_loop(
                TASK,
                RUBRIC,
                context=long_run_context(rounds, model_server.base_url),
                database=database,
            )
            assert (state.outcome, state.rounds) == ("exhausted", rounds)
            assert len({draft.text for draft in state.drafts}) == rounds
            stored[rounds] = size() - empty
            held[rounds] = history_bytes(state)
    report = {rounds: f"{stored[rounds]} B for {held[rounds]} B" for rounds in ROUNDS}
    allowance = stored[1]
    assert stored[100] <= 3 * held[100] + allowance, report
    assert stored[100] / stored[10] <= 12, report
