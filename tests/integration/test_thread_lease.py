"""One writer per thread: a second run of a busy thread is refused at once (or waits).

The real `critic-loop` command runs in subprocesses against the scripted HTTP model, on
SQLite and on PostgreSQL. Two processes resume one unfinished thread at the same moment:
exactly one runs, the other exits 2 naming the thread, the history keeps one branch and
the model server sees each call once. The same through `arun_loop` twice in one process.
A holder killed with SIGKILL leaves no lease behind: the same command resumes at once.
"""

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest

from critic_loop import arun_loop
from critic_loop.errors import ThreadBusy, ThreadFinished
from critic_loop.graphs.app import build_graph
from critic_loop.persistence import open_persistence
from tests.support.openai_server import (
    Answer,
    ScriptedOpenAIServer,
    Structured,
    Text,
    is_structured_request,
    rubric_ids,
)
from tests.support.verdicts import QUOTE

pytestmark = pytest.mark.integration

CLI = str(Path(sys.executable).with_name("critic-loop"))
RUBRIC = [{"id": "clear", "text": "It is clear."}]


class Model:
    """Drafts and passes; the first `hang` worker requests wait until released."""

    def __init__(self, hang: int = 0, latency: float = 0.0) -> None:
        self.hang = hang
        self.latency = latency
        self.worker_calls = 0
        self.critic_calls = 0
        self.hanging = threading.Event()
        self.release = threading.Event()
        self.lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> Answer:
        if is_structured_request(request):
            with self.lock:
                self.critic_calls += 1
            results = [
                {
                    "criterion_id": criterion_id,
                    "evidence": f'It says "{QUOTE}".',
                    "passed": True,
                    "terminal": False,
                    "hint": "",
                }
                for criterion_id in rubric_ids(request)
            ]
            return Structured({"results": results, "feedback": "", "passed": True})
        with self.lock:
            self.worker_calls += 1
            number = self.worker_calls
        if number <= self.hang:
            self.hanging.set()
            self.release.wait(60)
        time.sleep(self.latency)
        return Text(f"A clear draft, number {number}. {QUOTE}")


@pytest.fixture(params=["sqlite", "postgres"])
def database(request, tmp_path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "runs.sqlite")
    return request.getfixturevalue("postgres_url")


def command(server: ScriptedOpenAIServer, database: str, thread_id: str, cwd: Path) -> list[str]:
    (cwd / "task.json").write_text(json.dumps({"task": "Explain recursion.", "rubric": RUBRIC}))
    return [
        CLI,
        "run",
        "--input",
        "task.json",
        "--thread-id",
        thread_id,
        "--db",
        database,
        "--base-url",
        server.base_url,
        "--worker-model",
        "openai:w",
        "--critic-model",
        "openai:c",
        "--no-memory",
    ]


def clean_env() -> dict[str, str]:
    prefixes = ("OPENAI_", "CRITIC_LOOP_")
    return {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}


def start(arguments: list[str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        arguments,
        cwd=cwd,
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def history(database: str, thread_id: str) -> list[Any]:
    with open_persistence(database) as persistence:
        graph = build_graph(checkpointer=persistence.checkpointer)
        return list(graph.get_state_history({"configurable": {"thread_id": thread_id}}))


def leaves(snapshots: list[Any]) -> list[Any]:
    """The checkpoints no other checkpoint continues from: one per branch."""
    parents = {
        s.parent_config["configurable"]["checkpoint_id"] for s in snapshots if s.parent_config
    }
    return [s for s in snapshots if s.config["configurable"]["checkpoint_id"] not in parents]


def unfinished_thread(server: ScriptedOpenAIServer, model: Model, arguments, cwd) -> None:
    """Start the thread, and kill its process (SIGKILL) while round 1 drafts."""
    first = start(arguments, cwd)
    assert model.hanging.wait(60), "the first run never asked for a draft"
    first.kill()
    first.wait(10)
    model.release.set()


def test_two_processes_resuming_one_thread_one_runs_the_other_exits_2(database, tmp_path) -> None:
    thread_id = f"lease-{uuid4().hex[:8]}"
    model = Model(hang=1, latency=1.5)  # the resuming run holds the lease for a while
    with ScriptedOpenAIServer(model) as server:
        arguments = command(server, database, thread_id, tmp_path)
        unfinished_thread(server, model, arguments, tmp_path)
        calls_before = len(server.requests)
        both = [start(arguments, tmp_path), start(arguments, tmp_path)]  # the same moment
        for process in both:
            process.wait(120)
        calls = server.requests[calls_before:]
    outcomes = sorted(
        (process.returncode, process.stdout.read(), process.stderr.read()) for process in both
    )
    [(ran, ran_out, _), (refused, _, refusal)] = outcomes
    assert (ran, refused) == (0, 2), outcomes
    assert "outcome: passed" in ran_out
    assert f"critic-loop: thread {thread_id} is being run by process" in refusal
    assert refusal.count("\n") == 1
    snapshots = history(database, thread_id)
    assert len(leaves(snapshots)) == 1  # one branch
    values = snapshots[0].values
    assert len(values["drafts"]) == 1 and len(values["critiques"]) == 1
    # the model server saw the resumed run's calls once: one draft, one grade
    assert [is_structured_request(request) for request in calls] == [False, True]


def test_the_same_thread_twice_in_one_process(tmp_path) -> None:
    database, thread_id = str(tmp_path / "runs.sqlite"), "twice"
    model = Model(latency=1.0)
    with ScriptedOpenAIServer(model) as server:
        settings = {
            "worker_model": "openai:w",
            "critic_model": "openai:c",
            "base_url": server.base_url,
            "memory": False,
        }

        def run(**options: Any) -> Any:
            return arun_loop(
                "Explain recursion.",
                RUBRIC,
                context=settings,
                thread_id=thread_id,
                database=database,
                **options,
            )

        async def both() -> list[Any]:
            first = asyncio.ensure_future(run())
            await asyncio.sleep(0.5)  # the first run holds the lease now
            second = await asyncio.gather(run(), return_exceptions=True)
            waiting = await asyncio.gather(run(wait_for_thread=True), return_exceptions=True)
            return [await first, *second, *waiting]

        first, second, waited = asyncio.run(both())
    assert first.outcome == "passed"
    assert isinstance(second, ThreadBusy), second
    assert f"thread {thread_id} is being run by process {os.getpid()}" in str(second)
    assert isinstance(waited, ThreadFinished)  # it waited, then found the run over
    assert (model.worker_calls, model.critic_calls) == (1, 1)
    assert len(leaves(history(database, thread_id))) == 1


def test_a_killed_holder_leaves_no_lease_behind(database, tmp_path) -> None:
    thread_id = f"killed-{uuid4().hex[:8]}"
    model = Model(hang=1)
    with ScriptedOpenAIServer(model) as server:
        arguments = command(server, database, thread_id, tmp_path)
        holder = start(arguments, tmp_path)
        assert model.hanging.wait(60), "the holder never asked for a draft"
        holder.kill()  # SIGKILL while it holds the lease
        holder.wait(10)
        model.release.set()
        started = time.monotonic()
        again = subprocess.run(
            arguments, cwd=tmp_path, env=clean_env(), capture_output=True, text=True, timeout=120
        )
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"resuming thread {thread_id}" in again.stdout
    assert time.monotonic() - started < 60
