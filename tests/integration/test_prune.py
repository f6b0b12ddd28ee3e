"""`critic-loop prune` and `prune_runs` remove the finished runs they say, and nothing else.

Each database holds finished runs on both sides of the cutoff, a run stopped mid-way, a
run waiting for a person's review, and a run in flight: its worker call is held open
while the pruning runs, then released, and it must finish with its whole history.
SQLite and PostgreSQL.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import uuid4

import pytest

from critic_loop import run_loop
from critic_loop.errors import ReviewPending
from critic_loop.graphs.app import build_graph
from critic_loop.persistence import open_persistence
from critic_loop.persistence.retention import prune_runs
from critic_loop.run import loop_input, thread_config
from tests.support.long_history import DistinctDrafts, long_run_context
from tests.support.openai_server import Answer, ScriptedOpenAIServer, is_structured_request
from tests.support.rubrics import RUBRIC, TASK
from tests.support.run_history import cli_runner
from tests.support.stored_bytes import fresh_postgres

pytestmark = pytest.mark.integration


class HeldDraft:
    """`DistinctDrafts`, except that draft request `number` waits until released."""

    def __init__(self, number: int) -> None:
        self.inner = DistinctDrafts()
        self.number = number
        self.waiting = threading.Event()
        self.release = threading.Event()

    def __call__(self, request: dict[str, Any]) -> Answer:
        answer = self.inner(request)
        if not is_structured_request(request) and self.inner.drafts == self.number:
            self.waiting.set()
            self.release.wait(120)
        return answer


@dataclass
class Runs:
    """A database of runs of every kind, with one in flight (see the module docstring)."""

    database: str
    tag: str
    old: list[str]
    recent: list[str]
    between: datetime
    stopped: str
    reviewing: str
    in_flight: str
    flight: threading.Thread
    held: HeldDraft
    result: dict[str, Any]

    def values(self, thread_id: str) -> dict[str, Any]:
        with open_persistence(self.database) as persistence:
            graph = build_graph(checkpointer=persistence.checkpointer)
            return dict(graph.get_state(thread_config(thread_id)).values)

    def land(self) -> None:
        """Let the run in flight finish, and wait for it."""
        self.held.release.set()
        self.flight.join(120)


def finished(database: str, thread_id: str, base_url: str) -> None:
    state = run_loop(
        TASK,
        RUBRIC,
        context=long_run_context(2, base_url),
        thread_id=thread_id,
        database=database,
    )
    assert state.outcome == "exhausted"


@pytest.fixture(params=["sqlite", "postgres"])
def runs(request, tmp_path) -> Iterator[Runs]:
    tag = uuid4().hex[:6]
    with ExitStack() as stack:
        if request.param == "sqlite":
            database = str(tmp_path / "runs.sqlite")
        else:
            database = stack.enter_context(fresh_postgres(request.getfixturevalue("postgres_url")))
        server = stack.enter_context(ScriptedOpenAIServer(DistinctDrafts()))
        old = [f"old-{n}-{tag}" for n in range(2)]
        for thread_id in old:
            finished(database, thread_id, server.base_url)
        stopped = f"stopped-{tag}"
        with open_persistence(database) as persistence:
            graph = build_graph(checkpointer=persistence.checkpointer)
            graph.invoke(
                loop_input(TASK, RUBRIC),
                thread_config(stopped),
                context={**long_run_context(3, server.base_url), "memory": False},
                interrupt_after=["critique"],
            )
        reviewing = f"reviewing-{tag}"
        with pytest.raises(ReviewPending):
            run_loop(
                TASK,
                RUBRIC,
                context={**long_run_context(3, server.base_url), "review": "every_round"},
                thread_id=reviewing,
                database=database,
            )
        time.sleep(1.1)  # checkpoint times are compared to the second in reports
        between = datetime.now(UTC)
        time.sleep(1.1)
        recent = [f"recent-{tag}"]
        finished(database, recent[0], server.base_url)

        held = HeldDraft(2)
        flying = stack.enter_context(ScriptedOpenAIServer(held))
        in_flight, result = f"flight-{tag}", {}

        def fly() -> None:
            result["state"] = run_loop(
                TASK,
                RUBRIC,
                context=long_run_context(3, flying.base_url),
                thread_id=in_flight,
                database=database,
            )

        flight = threading.Thread(target=fly)
        flight.start()
        assert held.waiting.wait(60), "the run in flight never reached round 2"
        done = Runs(
            database,
            tag,
            old,
            recent,
            between,
            stopped,
            reviewing,
            in_flight,
            flight,
            held,
            result,
        )
        try:
            yield done
        finally:
            done.land()


def test_prune_removes_the_old_finished_runs_and_nothing_else(runs: Runs) -> None:
    untouched = [runs.stopped, runs.reviewing, *runs.recent]
    before = {thread_id: runs.values(thread_id) for thread_id in untouched}
    # as if a day had passed since `between`: the old runs, the stopped one and the one
    # under review have their last checkpoint before the cutoff (the command's test below
    # puts the cutoff after the run in flight's last step too)
    later = runs.between + timedelta(days=1)
    dry = prune_runs(timedelta(days=1), database=runs.database, now=later, dry_run=True)
    assert sorted(run.thread_id for run in dry.pruned) == sorted(runs.old)
    assert all(runs.values(thread_id).get("drafts") for thread_id in runs.old)  # untouched

    report = prune_runs(timedelta(days=1), database=runs.database, now=later)

    assert sorted(run.thread_id for run in report.pruned) == sorted(runs.old)
    assert {run.outcome for run in report.pruned} == {"exhausted"}
    assert report.left == {"active since the cutoff": 2, "unfinished": 2}
    for thread_id in runs.old:
        assert runs.values(thread_id) == {}  # gone
    for thread_id in untouched:
        assert runs.values(thread_id) == before[thread_id]
    runs.land()
    state = runs.result["state"]
    assert (state.outcome, state.rounds) == ("exhausted", 3)
    assert [d["round"] for d in runs.values(runs.in_flight)["drafts"]] == [1, 2, 3]


def test_a_finished_thread_whose_lease_a_run_holds_is_left_alone(runs: Runs) -> None:
    # a fork of an old finished thread holds its lease before it reads or writes anything
    later = runs.between + timedelta(days=1)
    forked, other = runs.old
    before = runs.values(forked)
    with open_persistence(runs.database) as persistence, persistence.leases.hold(forked):
        report = prune_runs(timedelta(days=1), database=runs.database, now=later)
    assert [run.thread_id for run in report.pruned] == [other]
    assert report.left["held by a run"] == 1
    assert runs.values(forked) == before
    runs.land()


def test_keep_results_compacts_a_run_to_its_outcome_and_final_draft(
    runs: Runs, tmp_path, monkeypatch, capsys
) -> None:
    kept = {thread_id: runs.values(thread_id) for thread_id in runs.old}
    later = runs.between + timedelta(days=1)
    report = prune_runs(timedelta(days=1), database=runs.database, now=later, keep_results=True)
    assert sorted(run.thread_id for run in report.pruned) == sorted(runs.old)
    for thread_id in runs.old:
        compacted = runs.values(thread_id)
        for key in ("task", "rubric", "outcome", "outcome_reason", "final", "final_round"):
            assert compacted[key] == kept[thread_id][key]
        assert compacted["open_items"] == kept[thread_id]["open_items"]
        assert compacted.get("drafts", []) == [] and compacted.get("critiques", []) == []
    again = prune_runs(timedelta(days=1), database=runs.database, now=later, keep_results=True)
    assert again.pruned == [] and again.left["compacted already"] == 2

    cli = cli_runner(tmp_path, monkeypatch, capsys)
    story = cli("show", runs.old[0], "--db", runs.database).stdout
    assert "pruned" in story and kept[runs.old[0]]["final"] in story
    runs.land()
    assert runs.result["state"].rounds == 3


def test_the_command_prunes_every_finished_run_and_leaves_the_run_in_flight(
    runs: Runs, tmp_path, monkeypatch, capsys
) -> None:
    cli = cli_runner(tmp_path, monkeypatch, capsys)
    dry = cli("prune", "--older-than", "0m", "--db", runs.database, "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    assert sorted(run["thread_id"] for run in dry.json["pruned"]) == sorted(
        [*runs.old, *runs.recent]
    )
    done = cli("prune", "--older-than", "0m", "--db", runs.database)
    assert done.returncode == 0, done.stderr
    assert "pruned 3 finished run(s)" in done.stdout
    assert "1 held by a run" in done.stdout and "2 unfinished" in done.stdout
    listed = {run["thread_id"] for run in cli("runs", "--db", runs.database, "--json").json}
    assert listed == {runs.stopped, runs.reviewing, runs.in_flight}
    runs.land()
    assert runs.result["state"].rounds == 3
    wrong = cli("prune", "--older-than", "30 days", "--db", runs.database)
    assert wrong.returncode == 2 and "30d, 12h, 90m or 2w" in wrong.stderr
    missing = cli("prune", "--older-than", "1d", "--db", str(tmp_path / "nothing.sqlite"))
    assert missing.returncode == 2 and "no database at" in missing.stderr
    assert not (tmp_path / "nothing.sqlite").exists()
