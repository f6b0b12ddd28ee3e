"""A run killed mid-loop resumes from its last checkpoint in a new process.

The real `critic-loop` command runs in a subprocess against the scripted HTTP model. The
model server holds the third draft request open, so the process is killed (SIGKILL) while
it is inside round 3, after rounds 1 and 2 were graded. A second process, given the same
thread id, resumes: no draft or critique is lost and the round count continues.
"""

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

from critic_loop.graphs.app import build_graph
from tests.support.openai_server import (
    Answer,
    ScriptedOpenAIServer,
    Structured,
    Text,
    is_structured_request,
)
from tests.support.rubrics import RUBRIC, TASK
from tests.support.verdicts import graded

pytestmark = pytest.mark.integration

CLI = str(Path(sys.executable).with_name("critic-loop"))


class HangsOnThirdDraft:
    """Drafts 1 and 2 come back; the third request hangs (its process will be killed)."""

    def __init__(self) -> None:
        self.worker_texts = ["draft 1", "draft 2", "never delivered", "draft 3", "draft 4"]
        self.verdicts = [
            graded(RUBRIC, {"tone": "simpler"}),
            graded(RUBRIC, {"length": "shorter"}),
            graded(RUBRIC, {"example": "add one"}),
            graded(RUBRIC),
            {"operations": []},  # the distiller, after the pass
        ]
        self.worker_calls = 0
        self.hanging = threading.Event()
        self.release = threading.Event()

    def __call__(self, request: dict[str, Any]) -> Answer:
        if is_structured_request(request):
            return Structured(self.verdicts.pop(0))
        self.worker_calls += 1
        text = self.worker_texts[self.worker_calls - 1]
        if self.worker_calls == 3:
            self.hanging.set()
            self.release.wait(60)
        return Text(text)


@pytest.fixture(params=["sqlite", "postgres"])
def database(request, tmp_path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "runs.sqlite")
    return request.getfixturevalue("postgres_url")


def cli(
    server: ScriptedOpenAIServer, database: str, thread_id: str, cwd: Path, rounds: int = 5
) -> list[str]:
    (cwd / "task.json").write_text(
        json.dumps({"task": TASK, "rubric": [c.model_dump() for c in RUBRIC]})
    )
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
        "--max-iterations",
        str(rounds),
        "--stall-rounds",
        str(rounds),
    ]


def clean_env() -> dict[str, str]:
    prefixes = ("OPENAI_", "CRITIC_LOOP_")
    return {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}


def test_killed_run_resumes_without_losing_rounds(database: str, tmp_path: Path) -> None:
    script = HangsOnThirdDraft()
    thread_id = f"crash-{uuid4().hex[:8]}"
    with ScriptedOpenAIServer(script) as server:
        command = cli(server, database, thread_id, tmp_path)
        first = subprocess.Popen(
            command,
            cwd=tmp_path,
            env=clean_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            assert script.hanging.wait(60), "the run never reached round 3"
            time.sleep(0.2)  # the process is now blocked inside round 3
            first.kill()  # SIGKILL: no cleanup, no final checkpoint
            first.wait(10)
            printed = first.stdout.read() if first.stdout else ""
        finally:
            script.release.set()
        assert first.returncode == -9
        assert "round 2: 2/3 criteria passed" in printed
        assert "round 3" not in printed

        second = subprocess.run(
            command, cwd=tmp_path, env=clean_env(), capture_output=True, text=True, timeout=120
        )
    assert second.returncode == 0, second.stdout + second.stderr
    assert f"resuming thread {thread_id}" in second.stdout
    assert "round 3: 2/3 criteria passed" in second.stdout
    assert "outcome: passed after 4 round(s)" in second.stdout
    assert "round 1:" not in second.stdout  # rounds 1 and 2 were not run again

    with_state = _state(database, thread_id)
    assert [d["text"] for d in with_state["drafts"]] == ["draft 1", "draft 2", "draft 3", "draft 4"]
    assert [d["round"] for d in with_state["drafts"]] == [1, 2, 3, 4]
    assert [c["round"] for c in with_state["critiques"]] == [1, 2, 3, 4]
    assert with_state["final_round"] == 4


def _state(database: str, thread_id: str) -> dict[str, Any]:
    from critic_loop.persistence import open_persistence

    with open_persistence(database) as persistence:
        graph = build_graph(checkpointer=persistence.checkpointer)
        values: dict[str, Any] = graph.get_state({"configurable": {"thread_id": thread_id}}).values
    return values


class HangsAtDraft:
    """`DistinctDrafts`, except that draft request `number` hangs (its process is killed)."""

    def __init__(self, number: int) -> None:
        from tests.support.long_history import DistinctDrafts

        self.inner = DistinctDrafts()
        self.number = number
        self.hanging = threading.Event()
        self.release = threading.Event()

    def __call__(self, request: dict[str, Any]) -> Answer:
        answer = self.inner(request)
        if not is_structured_request(request) and self.inner.drafts == self.number:
            self.hanging.set()
            self.release.wait(120)
        return answer


def test_a_40_round_run_killed_in_round_35_resumes_on_the_stored_writes(
    database: str, tmp_path: Path
) -> None:
    script = HangsAtDraft(35)
    thread_id = f"crash-{uuid4().hex[:8]}"
    with ScriptedOpenAIServer(script) as server:
        command = cli(server, database, thread_id, tmp_path, rounds=40)
        first = subprocess.Popen(
            command,
            cwd=tmp_path,
            env=clean_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            assert script.hanging.wait(120), "the run never reached round 35"
            time.sleep(0.2)
            first.kill()
            first.wait(10)
        finally:
            script.release.set()
        assert first.returncode == -9
        second = subprocess.run(
            command, cwd=tmp_path, env=clean_env(), capture_output=True, text=True, timeout=300
        )
    assert second.returncode == 1, second.stdout + second.stderr  # exhausted: no pass
    assert "round 35:" in second.stdout and "round 34:" not in second.stdout
    assert "outcome: exhausted after 40 round(s)" in second.stdout
    assert script.inner.drafts == 41  # rounds 1..34 were not drafted again
    state = _state(database, thread_id)
    assert [d["round"] for d in state["drafts"]] == list(range(1, 41))
    assert [c["round"] for c in state["critiques"]] == list(range(1, 41))
    assert len({d["text"] for d in state["drafts"]}) == 40
